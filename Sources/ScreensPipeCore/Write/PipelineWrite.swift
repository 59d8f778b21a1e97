internal import Logging
import ScreensBus

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Where a write's rows come from.
public enum WriteInput: Sendable, Hashable {
    /// JSON lines on standard input.
    case standardInput
    /// JSON lines in a file.
    case file(String)
    /// The pipeline's own `source:` list (copying from one portal or site to another).
    case pipelineSource
    /// These rows, numbered from 1 (a session's edit).
    case rows([JSONValue])
}

/// How `screens-pipe write` runs a pipeline whose sink is `type: liferay`.
public struct WriteOptions: Sendable {
    /// Where the rows come from.
    public var input: WriteInput
    /// Show the requests (credentials redacted) as `request` events; send nothing.
    public var dryRun: Bool
    /// The rejects file (`{"line","reason","input"}` lines), written when a row is rejected.
    public var rejectsPath: String
    /// Before writing, forget the rows the journal keeps pending (`--forget-pending`): the
    /// user checked on the portal that an unanswered batch was not carried out, for a
    /// service that has no lookup to tell.
    public var forgetPending: Bool

    /// Options for a write from `input`, rejects to `rejectsPath`.
    public init(input: WriteInput, dryRun: Bool = false, rejectsPath: String, forgetPending: Bool = false) {
        self.input = input
        self.dryRun = dryRun
        self.rejectsPath = rejectsPath
        self.forgetPending = forgetPending
    }
}

/// Runs a pipeline whose sink writes to a portal.
///
/// ```swift
/// let spec = try PipelineLoader().load(file: "pipelines/import-bookmarks.yaml")
/// let bus = EventBus()
/// let summary = try await PipelineWrite.run(
///     spec: spec, environment: .current(sandbox: BundledSandbox()), bus: bus,
///     options: WriteOptions(input: .pipelineSource, rejectsPath: "rejects.jsonl"))
/// ```
///
/// Every row ends as one `result` event (`created`, `updated`, `unchanged`, `rejected`,
/// or `planned` in a dry run); the bus is finished when the write ends.
public enum PipelineWrite {
    public static func run(
        spec: PipelineSpec, environment: PipelineEnvironment, bus: EventBus, options: WriteOptions
    ) async throws(ScreensPipeError) -> WriteSummary {
        defer { bus.finish() }
        guard let sink = spec.sink.liferay else {
            throw ScreensPipeError.configuration("pipeline '\(spec.name)' has no sink of type liferay to write to")
        }
        if options.input == .pipelineSource, spec.source.isWriteInput {
            throw ScreensPipeError.configuration(
                "pipeline '\(spec.name)' has no source: give the rows as JSON lines on standard input or with --input")
        }
        var server: (any RunningServer)?
        let baseURL: String
        switch sink.connection.server {
        case .sandbox?:
            guard let launcher = environment.sandbox else {
                throw ScreensPipeError.configuration("server: sandbox needs the bundled sandbox portal (PipelineEnvironment(sandbox:))")
            }
            // The portal of the sink's `liferay-version`, whose commands the writes use.
            let running = try await launcher.start(version: sink.portalVersion.rawValue)
            server = running
            baseURL = running.baseURL
        case .url(let url)?:
            baseURL = url
        case nil:
            throw ScreensPipeError.configuration("sink type 'liferay' needs a server")
        }
        let lease = environment.httpClient()
        let client = lease.client
        let rejects = RejectsFile(path: options.rejectsPath)
        var lock: RunLock?
        do throws(ScreensPipeError) {
            let settings = HTTPSourceSettings(source: sink.connection, configuredURL: baseURL, onRetry: nil, logger: environment.logger)
            try sink.connection.checkTransportRoute()
            // A sandbox started for this run is new every time: a journal of it would skip
            // rows that no longer exist.
            var journal: WriteJournal?
            if !options.dryRun, server == nil {
                let target = WriteTarget.text(baseURL: baseURL, groupId: sink.groupId)
                // Held from before the journal and the portal are first asked until the last
                // outcome is recorded: a second run of this write looks its keys up only once
                // this one's entries exist (architecture.md, "Running twice at once").
                let place = try RunLock.Place.of(spec.cache, environment: environment.storageVariables)
                lock = try await RunLock.acquire(
                    .write(pipeline: spec.name, target: target), at: place,
                    wait: spec.cache?.lockWait ?? RunLock.defaultWait, logger: environment.logger)
                journal = try await openJournal(cache: spec.cache, variables: environment.storageVariables, pipeline: spec.name, target: target)
            }
            if options.forgetPending, let journal {
                let forgotten = try await journal.forgetPending()
                environment.logger.warning("forgot \(forgotten) pending \(forgotten == 1 ? "row" : "rows") of the journal (--forget-pending): they are sent again")
            }
            // A write policy other than remote-only keeps the rows in the outbox first
            // (Outbox/OutboxWrite.swift); a dry run shows the requests either way.
            var outboxWrite: OutboxWrite?
            if sink.writePolicy.usesOutbox, !options.dryRun {
                outboxWrite = try await OutboxWrite.prepare(
                    spec: spec, environment: environment, journal: journal, bus: bus, rejects: rejects,
                    filesDirectory: options.input.filesDirectory(source: spec.source))
            }
            let writer: any RowWriter
            if let outboxWrite {
                writer = outboxWrite.writer
            } else {
                writer = try await makeWriter(
                    sink: sink, pipeline: spec.name, settings: settings, client: client, baseURL: baseURL, journal: journal, bus: bus,
                    rejects: rejects, dryRun: options.dryRun, filesDirectory: options.input.filesDirectory(source: spec.source))
            }
            await bus.publish(.started(RunStarted(pipeline: spec.name, source: "write \(sink.service.rawValue) to \(redactedURL(baseURL))")))
            switch options.input {
            case .standardInput:
                try await feed(WriteInputLines(descriptor: 0, closeWhenDone: false), named: "standard input", to: writer)
            case .file(let path):
                let descriptor = open(path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else {
                    throw ScreensPipeError.io("cannot read the input \(path): \(String(cString: strerror(errno)))")
                }
                var status = stat()
                if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                    close(descriptor)
                    throw ScreensPipeError.io("cannot read the input \(path): it is a directory; give a file of JSON lines")
                }
                try await feed(WriteInputLines(descriptor: descriptor, closeWhenDone: true), named: path, to: writer)
            case .pipelineSource:
                try await copy(spec: spec, environment: environment, to: writer)
            case .rows(let rows):
                for (offset, row) in rows.enumerated() { try await writer.take(row: row, number: offset + 1) }
            }
            var summary = try await writer.finish()
            try await outboxWrite?.send(&summary, client: client, bus: bus, logger: environment.logger)
            var finished = RunFinished(
                pipeline: spec.name, pages: summary.batches, rows: summary.created + summary.updated + summary.deleted + summary.unchanged + summary.skipped + summary.rejected
                    + summary.pending,
                selected: summary.created + summary.updated + summary.deleted, errors: summary.rejected, succeeded: summary.rejected == 0)
            finished.skipped = summary.skipped
            await bus.publish(.finished(finished))
            await lock?.release()
            await lease.release()
            await server?.stop()
            return summary
        } catch {
            _ = try? rejects.close(succeeded: false)
            await bus.publish(.error(error.event(pipeline: spec.name)))
            await lock?.release()
            await lease.release()
            await server?.stop()
            throw error
        }
    }

    /// The write journal of `pipeline` and `target`, in the cache's store: beside the pages
    /// in the SQLite file, or in the PostgreSQL database a fleet shares (with its outbox).
    static func openJournal(cache: CacheSpec?, variables: [String: String], pipeline: String, target: String)
        async throws(ScreensPipeError) -> WriteJournal
    {
        let kind = StorageKind.of(cache)
        guard let storage = try await BackendRegistry.storage(kind).openWriteJournal(spec: cache, environment: variables, pipeline: pipeline, target: target)
        else { throw ScreensPipeError.configuration("the \(kind.displayName) store registered no write journal") }
        var journal = WriteJournal(storage: storage)
        // Rows this journal does not know are looked up before they are created when other
        // machines write the target: versions before 0.2.0 kept each replica's journal in a
        // local file, so the shared one starts without their rows.
        journal.othersMayWrite = kind == .postgres
        return journal
    }

    /// The writer for the sink's service and transport.
    static func makeWriter(
        sink: LiferaySinkSpec, pipeline: String, settings: HTTPSourceSettings, client: HTTPClient, baseURL: String,
        journal: WriteJournal?, bus: EventBus, rejects: RejectsFile, dryRun: Bool, filesDirectory: String = ".", keptRows: Bool = false
    ) async throws(ScreensPipeError) -> any RowWriter {
        let jsonws = JSONWSBookmarkTransport(settings: settings, client: client, baseURL: baseURL)
        func batches<Model: JSONWSWriteModel>(_ model: Model) async throws(ScreensPipeError) -> any RowWriter {
            try await JSONWSWriter(
                spec: sink, model: model, pipeline: pipeline, transport: jsonws, journal: journal, bus: bus, rejects: rejects,
                dryRun: dryRun)
        }
        switch (sink.service, sink.transport) {
        case (.webContent, .headless):
            return try await StructuredContentWriter(
                spec: sink, pipeline: pipeline,
                transport: HeadlessWriteTransport(settings: settings, client: client, baseURL: baseURL, siteId: sink.groupId),
                journal: journal, bus: bus, rejects: rejects, dryRun: dryRun)
        case (.webContent, .jsonws):
            return try await batches(WebContentWriteModel(spec: sink))
        case (.ddlRecord, _):
            guard let recordSetId = sink.recordSetId else { throw ScreensPipeError.configuration("service: ddl-record needs 'record-set-id'") }
            let records = try await JSONWSWriter(
                spec: sink, model: DDLRecordWriteModel(spec: sink, recordSetId: recordSetId), pipeline: pipeline, transport: jsonws,
                journal: journal, bus: bus, rejects: rejects, dryRun: dryRun)
            // Document fields are uploaded first (Write/Upload/DDLRecordDocuments.swift).
            return try await DDLRecordDocumentWriter(
                spec: sink, records: records, pipeline: pipeline, transport: ImageUploadTransport(jsonws: jsonws), filesDirectory: filesDirectory,
                keptRows: keptRows, journal: journal, bus: bus, rejects: rejects, dryRun: dryRun)
        case (.custom, _):
            guard let declared = sink.declared else { throw ScreensPipeError.configuration("service: custom needs 'command' and 'fields'") }
            return try await batches(DeclaredServiceModel(spec: sink, service: declared))
        case (.image, let transport):
            let headless = transport == .headless ? HeadlessWriteTransport(settings: settings, client: client, baseURL: baseURL, siteId: sink.groupId) : nil
            return try await ImageUploadWriter(
                spec: sink, pipeline: pipeline, transport: ImageUploadTransport(jsonws: jsonws, headless: headless), filesDirectory: filesDirectory,
                keptRows: keptRows, journal: journal, bus: bus, rejects: rejects, dryRun: dryRun)
        case (.comment, .headless):
            return try await HeadlessCommentWriter(
                pipeline: pipeline, transport: HeadlessWriteTransport(settings: settings, client: client, baseURL: baseURL, siteId: sink.groupId),
                journal: journal, bus: bus, rejects: rejects, dryRun: dryRun)
        case (.comment, .jsonws):
            return try await batches(CommentWriteModel())
        case (.bookmark, _):
            // The pipeline decoder refuses bookmarks over headless: Liferay has no such API.
            return try await batches(BookmarkWriteModel(spec: sink))
        }
    }

    private static func feed(_ input: WriteInputLines, named name: String, to writer: any RowWriter) async throws(ScreensPipeError) {
        do throws(ScreensPipeError) {
            var lines = 0
            for await line in input.lines {
                try Task.checkCancellation(orThrow: ScreensPipeError(.cancelled, "the write was cancelled"))
                try await writer.take(line)
                input.consumed()
                lines = line.number
            }
            if let failure = input.readFailure {
                throw ScreensPipeError.io(
                    "cannot read the input \(name) after line \(lines): \(failure); the rows before it are written and journaled, and a rerun goes on")
            }
        } catch {
            input.stop()
            throw error
        }
    }

    /// Reads the pipeline's source list and writes its selected rows, in list order.
    private static func copy(spec: PipelineSpec, environment: PipelineEnvironment, to writer: any RowWriter) async throws(ScreensPipeError) {
        let reader = Pipeline(spec: spec, environment: environment)
        let subscription = reader.subscribe()
        let reading = Task { () -> Result<RunSummary, ScreensPipeError> in
            do throws(ScreensPipeError) { return .success(try await reader.runReturningFailures()) } catch { return .failure(error) }
        }
        var number = 0
        do throws(ScreensPipeError) {
            for await event in subscription {
                switch event {
                case .selected(let selected):
                    number += 1
                    try await writer.take(row: selected.item, number: number)
                case .error(let failure):
                    // The list is not what the source holds: no row after the failure is
                    // written, and the write fails naming the page and the cause.
                    throw sourceFailed(failure, rowsTaken: number)
                default:
                    continue
                }
            }
        } catch {
            reading.cancel()
            _ = await reading.value
            throw error
        }
        switch await reading.value {
        case .failure(let error):
            throw sourceFailed(error.event(pipeline: spec.name), rowsTaken: number)
        case .success(let summary) where !summary.succeeded:
            // An interrupted read (no error event) lost the rest of the list all the same.
            throw summary.failures.first.map { sourceFailed($0.event(pipeline: spec.name), rowsTaken: number) }
                ?? ScreensPipeError(.cancelled, "reading the source list was interrupted after \(number) rows; the rows written are journaled, and a rerun goes on")
        case .success:
            return
        }
    }

    /// The error of a write whose source list failed: the source's page, row and cause.
    private static func sourceFailed(_ failure: ListError, rowsTaken: Int) -> ScreensPipeError {
        var error = ScreensPipeError(
            ScreensPipeError.Code(failure.kind),
            "the source list failed after \(rowsTaken) rows, so the write stopped there (the rows written are journaled, and a rerun goes on): \(failure.message)",
            page: failure.page, row: failure.row, request: failure.request, status: failure.status)
        error.exceptionType = failure.exceptionType
        return error
    }
}

extension Task where Success == Never, Failure == Never {
    /// Throws `error` when the current task is cancelled.
    fileprivate static func checkCancellation(orThrow error: ScreensPipeError) throws(ScreensPipeError) {
        if Task.isCancelled { throw error }
    }
}
