internal import Foundation
internal import Logging
import ScreensBus

/// Carries a session's edits out: writes each through the pipeline's `liferay` sink as
/// `screens-pipe write` does (the same writers, journal, write policy and outbox, so each
/// edit is written exactly once, or kept pending), reads the written entry back as the list
/// shows it, and edits the cache's pages of the list as the session edits its own.
///
/// The lists a session edits are those whose service reads a written entry back whole, so
/// that the answer is the row as the portal lists it (``SessionEditedService``): bookmarks,
/// and an image gallery's file entries.
struct SessionEditor: Sendable {
    let spec: PipelineSpec
    let sink: LiferaySinkSpec
    let baseURL: String
    let environment: PipelineEnvironment
    private let service: SessionEditedService

    /// The editor of `pipeline`'s list, or the rules that refuse edits and say why.
    static func make(pipeline: Pipeline, server: (any RunningServer)?) -> (editor: SessionEditor?, rules: SessionEditRules) {
        guard var sink = pipeline.spec.sink.liferay else { return (nil, .noSink) }
        let baseURL: String
        switch sink.connection.server {
        case .sandbox?:
            // The sandbox the session started for its list: the sink writes to the same portal.
            guard let server else {
                return (nil, .refusing("the sink's server is the sandbox, but the session's source started none: give the sink a server URL"))
            }
            baseURL = server.baseURL
            sink.connection.server = .url(server.baseURL)
        case .url(let url)?:
            baseURL = url
        case nil:
            return (nil, .refusing("the liferay sink names no server"))
        }
        let service: SessionEditedService
        switch SessionEditedService.make(sink: sink, source: pipeline.spec.source) {
        case .failure(let refusal): return (nil, .refusing(refusal.message))
        case .success(let made): service = made
        }
        var spec = pipeline.spec
        spec.sink.liferay = sink
        let editor = SessionEditor(spec: spec, sink: sink, baseURL: baseURL, environment: pipeline.environment, service: service)
        let rules = SessionEditRules(
            refusal: nil,
            prepare: { edit in service.prepare(edit) },
            listKey: { listed in service.listKey(listed) },
            versionField: service.versionField)
        return (editor, rules)
    }

    private init(spec: PipelineSpec, sink: LiferaySinkSpec, baseURL: String, environment: PipelineEnvironment, service: SessionEditedService) {
        self.spec = spec
        self.sink = sink
        self.baseURL = baseURL
        self.environment = environment
        self.service = service
    }

    // MARK: - Writing

    /// Writes the edit of `ticket`; how it ended. An upload's progress (bytes sent, bytes to
    /// send) goes to `progress` as it is made, as Image Gallery's `onImageUploadProgress`.
    func write(
        _ ticket: ListSessionStateMachine.EditTicket, progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) async -> Void = { _, _ in }
    ) async -> ListSessionStateMachine.EditResult {
        do throws(ScreensPipeError) {
            if let listed = ticket.listed, case .bookmark(let model) = service { try await know(listed, model: model) }
            let bus = EventBus()
            let subscription = bus.subscribe()
            let collected = Task { () -> [CustomEvent] in
                var events: [CustomEvent] = []
                for await case .custom(let custom) in subscription {
                    switch custom.name {
                    case "result", "sync":
                        events.append(custom)
                    case "progress":
                        if let sent = custom.payload["sent"]?.int64Value, let total = custom.payload["total"]?.int64Value { await progress(sent, total) }
                    default:
                        break
                    }
                }
                return events
            }
            // Rejected edits are answered in the session; their rejects file is thrown away.
            let rejects = FileManager.default.temporaryDirectory.appendingPathComponent("screens-pipe-session-\(UUID().uuidString).rejects.jsonl").path
            defer { try? FileManager.default.removeItem(atPath: rejects) }
            let written: Result<WriteSummary, ScreensPipeError>
            do throws(ScreensPipeError) {
                written = .success(
                    try await PipelineWrite.run(
                        spec: spec, environment: environment, bus: bus, options: WriteOptions(input: .rows([ticket.prepared.row]), rejectsPath: rejects)))
            } catch {
                written = .failure(error)
            }
            let events = await collected.value
            if case .failure(let error) = written { throw error }
            return try await result(of: events, row: ticket.prepared.row, key: ticket.prepared.key)
        } catch {
            return .failed(error)
        }
    }

    /// How the row ended, from the write's `result` and `sync` events: a sync that
    /// completed the row's key is the final word, else the row's own result.
    private func result(of events: [CustomEvent], row: JSONValue, key: String) async throws(ScreensPipeError) -> ListSessionStateMachine.EditResult {
        let keyValue = try? JSONValue(parsing: Array(key.utf8))
        let syncs = events.filter { $0.name == "sync" && $0.payload["key"] == keyValue }
        let result = events.last { $0.name == "result" }?.payload
        var outcome = result?["outcome"]?.stringValue ?? ""
        if let completed = syncs.last(where: { $0.payload["state"] == "completed" }), let synced = completed.payload["outcome"]?.stringValue {
            outcome = synced
        }
        switch outcome {
        case "created", "updated", "unchanged", "deleted":
            return .written(outcome: outcome, entry: outcome == "deleted" ? nil : await readBack(row, key: key, result: result))
        case "pending":
            let failed = syncs.last { $0.payload["state"] == "failed" || $0.payload["state"] == "conflicted" }?.payload
            return .pending(reason: failed?["error"]?.stringValue ?? failed?["resolution"].map { "conflict: \($0.stringValue ?? "")" })
        case "cancelled":
            return .cancelled
        default:
            let reason = result?["reason"]?.stringValue ?? "the write gave no outcome for the row"
            throw ScreensPipeError(ScreensPipeError.Code("rejected"), "the edit was not written: \(reason)")
        }
    }

    /// The entry the edit wrote, as the portal lists it, read back by the service's own
    /// read (a bookmark's lookup by key, a file entry by the id its upload answered); nil
    /// when it cannot be read now (the row as sent then stands in).
    private func readBack(_ written: JSONValue, key: String, result: JSONValue?) async -> JSONValue? {
        let lease = environment.httpClient()
        let settings = HTTPSourceSettings(source: sink.connection, configuredURL: baseURL, onRetry: nil, logger: environment.logger)
        let transport = JSONWSBookmarkTransport(settings: settings, client: lease.client, baseURL: baseURL)
        let entry: JSONValue?
        do throws(ScreensPipeError) {
            entry = try await service.readBack(written, key: key, result: result, transport: transport)
        } catch {
            environment.logger.warning("the edited entry could not be read back (\(error.message)); the session shows the row as sent")
            entry = nil
        }
        await lease.release()
        return entry
    }

    /// Tells the journal about the entry an update or delete starts from, as the list
    /// showed it, when the journal does not know the entry yet: the write then changes that
    /// entry (by its id) instead of adding a second one, and the outbox keeps an `update`.
    private func know(_ listed: JSONValue, model: BookmarkWriteModel) async throws(ScreensPipeError) {
        guard let row = model.listedRow(listed), let entryId = listed["entryId"]?.int64Value else { return }
        let target = WriteTarget.text(baseURL: baseURL, groupId: sink.groupId)
        // Under the write's lock, so that no write of the same target records the key
        // between the look and the record.
        let lock = try await RunLock.acquire(
            .write(pipeline: spec.name, target: target), at: try RunLock.Place.of(spec.cache, environment: environment.storageVariables),
            wait: spec.cache?.lockWait ?? RunLock.defaultWait, logger: environment.logger)
        do throws(ScreensPipeError) {
            // The journal `write` keeps: in the cache's store (a fleet's PostgreSQL, or SQLite).
            let journal = try await PipelineWrite.openJournal(
                cache: spec.cache, variables: environment.storageVariables, pipeline: spec.name, target: target)
            if try await journal.scoped(to: [row.key]).records()[row.key] == nil {
                try await journal.record([(row: row, state: .unchanged, entryId: entryId)])
            }
        } catch {
            await lock.release()
            throw error
        }
        await lock.release()
    }

    // MARK: - The cache

    /// Edits the cache's pages of the list as the session edited its own, so that a later
    /// run (`cache-only` too) shows the edit. A failure is a warning: the portal (or the
    /// outbox) has the edit, and a refresh stores the list again.
    func editCache(of fetcher: any PageFetcher, _ ticket: ListSessionStateMachine.EditTicket, _ result: ListSessionStateMachine.EditResult) async {
        guard let cached = Self.cacheStage(of: fetcher), let change = ListSessionStateMachine.listChange(ticket, result)?.change else { return }
        do throws(ScreensPipeError) {
            try await edit(cached, change: change, key: ticket.prepared.key)
        } catch {
            environment.logger.warning("the cache's pages of the list were not edited (\(error.message)); a refresh stores them again")
        }
    }

    private func edit(_ cached: CachedPageFetcher, change: ListEdit.Change, key: String) async throws(ScreensPipeError) {
        let pagination = SourceFactory.effectivePagination(for: spec.source)
        var stored: [CachedPage] = []
        while stored.count < pagination.maxPages, let page = try await cached.store.read(key: cached.key.text, page: stored.count) {
            let request = PageRequest(index: stored.count, pagination: pagination)
            guard page.startRow == request.startRow, page.endRow == request.endRow else { break }
            stored.append(page)
        }
        guard !stored.isEmpty else { return }
        let pages = stored.map { $0.fetchedPage(for: PageRequest(index: $0.index, pagination: pagination)) }
        let total = pages.reduce(0) { $0 + $1.rowsInPage }
        let complete: Bool
        if let count = pages[0].rowCount {
            complete = total >= count
        } else if case .endOfList = try await cached.store.lookup(key: cached.key.text, request: PageRequest(index: pages.count, pagination: pagination)) {
            complete = true
        } else {
            complete = false
        }
        // The cache's own pages decide where the row is: found by its key, not by the
        // session's position (the cache may hold another load of the list).
        let rows = pages.flatMap(\.rows)
        let position = rows.firstIndex { service.listKey($0) == key }
        let located: ListEdit.Change
        switch change {
        case .append:
            located = change
        case .replace(_, let row):
            guard let position else { return }
            located = .replace(at: position, with: row)
        case .remove:
            guard let position else { return }
            located = .remove(at: position)
        }
        let edited = ListEdit(change: located, pagination: pagination).apply(to: pages, complete: complete)
        if case .replace(let position, _) = located {
            // One row changed in place: only its page is stored again.
            for (page, before) in zip(edited, stored) where page.request.startRow <= position && position < page.request.startRow + page.rowsInPage {
                try await cached.store.write(key: cached.key.text, pipeline: cached.pipeline, page: page, snapshot: before.snapshot)
            }
            return
        }
        // Rows moved across pages: the key's pages are stored again, each with the load it
        // belongs to, and none is left of another geometry. Not one transaction: a reader
        // in between finds pages missing and says so, never a wrong row.
        _ = try await cached.store.clear(pipeline: nil, keyPrefix: cached.key.text)
        for page in edited {
            let snapshot = page.request.index < stored.count ? stored[page.request.index].snapshot : stored[0].snapshot
            try await cached.store.write(key: cached.key.text, pipeline: cached.pipeline, page: page, snapshot: snapshot)
        }
    }

    /// The cache stage of a session's source, under its metrics.
    static func cacheStage(of fetcher: any PageFetcher) -> CachedPageFetcher? {
        if let cached = fetcher as? CachedPageFetcher { return cached }
        if let instrumented = fetcher as? InstrumentedFetcher { return cacheStage(of: instrumented.base) }
        return nil
    }
}
