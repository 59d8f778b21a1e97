internal import Logging
import ScreensBus

/// `screens-pipe write` with a `write-policy` that keeps pending writes: rows go to the
/// outbox (``OutboxWriter``), then, unless the policy is `cache-only`, are sent from there
/// (`remote-first`: this write's rows; `cache-first`: the whole outbox, older writes first).
/// A portal that cannot be reached leaves them pending, and the write still succeeds.
struct OutboxWrite {
    let spec: PipelineSpec
    let sink: LiferaySinkSpec
    let place: OutboxPlace
    let journal: WriteJournal
    let writer: any RowWriter
    private let keptKeys: () -> [String]

    /// The outbox writer for `sink`'s service, or an error for a pipeline that cannot keep
    /// writes (the bundled sandbox is new every run).
    static func prepare(
        spec: PipelineSpec, environment: PipelineEnvironment, journal: WriteJournal?, bus: EventBus, rejects: RejectsFile, filesDirectory: String
    ) async throws(ScreensPipeError) -> OutboxWrite {
        let place = try await PipelineOutbox.open(spec: spec, environment: environment)
        guard let journal else {
            throw ScreensPipeError.configuration("pipeline '\(spec.name)' keeps pending writes, which needs the write journal")
        }
        let events = WriteEvents(bus: bus, pipeline: spec.name, rejects: rejects)
        func keeping<Model: JSONWSWriteModel>(_ model: Model) async throws(ScreensPipeError) -> OutboxWrite {
            let writer = try await OutboxWriter(model: model, spec: place.sink, outbox: place.outbox, journal: journal, events: events, rejects: rejects)
            return OutboxWrite(spec: spec, sink: place.sink, place: place, journal: journal, writer: writer, keptKeys: { writer.keptKeys })
        }
        let sink = place.sink
        switch sink.service {
        case .bookmark: return try await keeping(BookmarkWriteModel(spec: sink))
        case .webContent: return try await keeping(WebContentWriteModel(spec: sink))
        case .ddlRecord:
            guard let recordSetId = sink.recordSetId else { throw ScreensPipeError.configuration("service: ddl-record needs 'record-set-id'") }
            let records = try await OutboxWriter(
                model: DDLRecordWriteModel(spec: sink, recordSetId: recordSetId, keepsDocuments: true), spec: sink, outbox: place.outbox,
                journal: journal, events: events, rejects: rejects)
            let writer = try await DDLRecordDocumentKeeper(
                spec: sink, records: records, filesDirectory: filesDirectory, spool: try place.uploadSpool(), journal: journal, events: events)
            return OutboxWrite(spec: spec, sink: sink, place: place, journal: journal, writer: writer, keptKeys: { writer.keptKeys })
        case .comment: return try await keeping(CommentWriteModel())
        case .image:
            // The pipeline decoder refuses an outbox for uploads over headless.
            guard let spool = try place.uploadSpool() else { throw ScreensPipeError.configuration("service: image keeps no outbox over headless") }
            let writer = try await ImageOutboxWriter(
                spec: sink, filesDirectory: filesDirectory, outbox: place.outbox, spool: spool, journal: journal, events: events)
            return OutboxWrite(spec: spec, sink: sink, place: place, journal: journal, writer: writer, keptKeys: { writer.keptKeys })
        case .custom:
            guard let declared = sink.declared else { throw ScreensPipeError.configuration("service: custom needs 'command' and 'fields'") }
            return try await keeping(DeclaredServiceModel(spec: sink, service: declared))
        }
    }

    private init(
        spec: PipelineSpec, sink: LiferaySinkSpec, place: OutboxPlace, journal: WriteJournal, writer: any RowWriter,
        keptKeys: @escaping () -> [String]
    ) {
        self.spec = spec
        self.sink = sink
        self.place = place
        self.journal = journal
        self.writer = writer
        self.keptKeys = keptKeys
    }

    /// Sends what the policy sends now and folds the outcomes into `summary`; a portal
    /// that cannot be reached is a warning, not a failure: the writes stay pending.
    func send(_ summary: inout WriteSummary, client: HTTPClient, bus: EventBus, logger: Logger) async throws(ScreensPipeError) {
        // Copies of uploads this write replaced in the outbox go now, under the write's lock.
        try place.uploadSpool()?.sweep(keeping: try await place.outbox.entries())
        let keys: Set<String>?
        switch sink.writePolicy {
        case .remoteOnly, .cacheOnly:
            summary.pending = try await place.outbox.entries().count
            return
        case .remoteFirst: keys = Set(keptKeys())
        case .cacheFirst: keys = nil
        }
        let sync = OutboxSync(
            spec: spec, place: place, journal: journal, client: client, bus: bus,
            rejects: RejectsFile(path: "\(spec.name).outbox-rejects.jsonl"), conflicts: ConflictsFile(path: "\(spec.name).conflicts.jsonl"),
            logger: logger)
        let outcome = try await sync.run(keys: keys)
        summary.created += outcome.created
        summary.updated += outcome.updated
        summary.deleted += outcome.deleted
        summary.unchanged += outcome.unchanged
        summary.pending = outcome.remaining
        if let error = outcome.stoppedBy {
            logger.warning(
                "the portal could not be reached (\(error.message)); \(outcome.remaining) \(outcome.remaining == 1 ? "write stays" : "writes stay") pending: 'screens-pipe outbox sync' sends them")
        }
        if outcome.reported > 0 {
            logger.warning("\(outcome.reported) pending \(outcome.reported == 1 ? "update conflicts" : "updates conflict") with the portal's changes: see \(spec.name).conflicts.jsonl")
        }
        if outcome.failed > 0 {
            logger.warning("the portal refused \(outcome.failed) pending \(outcome.failed == 1 ? "write" : "writes"); 'screens-pipe outbox list' shows why")
        }
    }
}
