internal import Logging
import ScreensBus

/// How a sync of the outbox ended.
public struct OutboxSyncSummary: Sendable {
    /// Pending writes the portal now holds (created, updated, or found already there).
    public var completed = 0
    /// Of ``completed``: created, updated, and found already written (by the journal or a
    /// lookup after a lost answer).
    public var created = 0
    public var updated = 0
    public var unchanged = 0
    /// Of ``completed``: pending deletes that removed their entry.
    public var deleted = 0
    /// Pending updates (and deletes) whose entry changed on the portal since their row was read, however
    /// the `conflict-policy` settled them; ``reported`` of them were left pending.
    public var conflicts = 0
    public var reported = 0
    /// Pending writes the portal refused: they stay pending with the reason.
    public var failed = 0
    /// Pending writes still in the outbox after the sync.
    public var remaining = 0
    /// Why the sync stopped early (the portal could not be reached), if it did.
    public var stoppedBy: ScreensPipeError?

    public init() {}
}

/// The outbox of a pipeline whose `liferay` sink keeps pending writes (`write-policy`
/// `remote-first`, `cache-first` or `cache-only`): `screens-pipe outbox list|sync|discard|clear`.
///
/// The outbox lives in the cache database, next to the write journal, and belongs to one
/// pipeline and target (server and site). A sync replays it in order, one write at a time
/// as Screens' `SyncManager` does, through the journaled writer: a write whose answer was
/// lost (the portal went away mid-request, the process was killed) is looked up by key
/// before it is ever sent again, so each is applied exactly once.
public enum PipelineOutbox {
    /// The pending writes, in replay order.
    public static func list(spec: PipelineSpec, environment: PipelineEnvironment) async throws(ScreensPipeError) -> [OutboxEntry] {
        try await open(spec: spec, environment: environment).outbox.entries()
    }

    /// Forgets the pending write of `key` (the JSON array `outbox list` shows); whether
    /// there was one.
    public static func discard(key: String, spec: PipelineSpec, environment: PipelineEnvironment) async throws(ScreensPipeError) -> Bool {
        let place = try await open(spec: spec, environment: environment)
        let lock = try await place.lock(spec: spec, environment: environment)
        do throws(ScreensPipeError) {
            let result = try await place.outbox.discard(key: key)
            try place.uploadSpool()?.sweep(keeping: try await place.outbox.entries())
            await lock.release()
            return result
        } catch {
            await lock.release()
            throw error
        }
    }

    /// Forgets every pending write; how many there were.
    public static func clear(spec: PipelineSpec, environment: PipelineEnvironment) async throws(ScreensPipeError) -> Int {
        let place = try await open(spec: spec, environment: environment)
        let lock = try await place.lock(spec: spec, environment: environment)
        do throws(ScreensPipeError) {
            let result = try await place.outbox.clear()
            try place.uploadSpool()?.sweep(keeping: [])
            await lock.release()
            return result
        } catch {
            await lock.release()
            throw error
        }
    }

    /// Replays the pending writes in order. Each is a `sync` event with `state` `started`,
    /// then `completed` (with the journal's outcome), `failed` (the portal refused it: it
    /// stays pending with the reason) or, when the portal cannot be reached, `failed` and
    /// the end of the sync: the rest stay pending, and the error is thrown after the bus
    /// saw `finished`.
    public static func sync(
        spec: PipelineSpec, environment: PipelineEnvironment, bus: EventBus, rejectsPath: String, conflictsPath: String
    ) async throws(ScreensPipeError) -> OutboxSyncSummary
    {
        defer { bus.finish() }
        let place = try await open(spec: spec, environment: environment)
        // A shared outbox is synced by many replicas at once, each write claimed by one of
        // them (row locks); a local one by one process holding the write lock throughout.
        let lock = place.outbox.isShared ? nil : try await place.lock(spec: spec, environment: environment)
        let lease = environment.httpClient()
        let client = lease.client
        let outcome: Result<OutboxSyncSummary, ScreensPipeError>
        do throws(ScreensPipeError) {
            await bus.publish(.started(RunStarted(pipeline: spec.name, source: "outbox sync to \(place.target)")))
            let journal = try await place.journal()
            let summary = try await OutboxSync(
                spec: spec, place: place, journal: journal, client: client, bus: bus, rejects: RejectsFile(path: rejectsPath),
                conflicts: ConflictsFile(path: conflictsPath), logger: environment.logger
            ).run(keys: nil)
            var finished = RunFinished(
                pipeline: spec.name, pages: 0, rows: summary.completed + summary.failed, selected: summary.completed,
                errors: summary.failed + summary.reported, succeeded: summary.stoppedBy == nil && summary.failed == 0 && summary.reported == 0)
            finished.skipped = summary.remaining
            if let error = summary.stoppedBy { await bus.publish(.error(error.event(pipeline: spec.name))) }
            await bus.publish(.finished(finished))
            outcome = summary.stoppedBy.map { .failure($0) } ?? .success(summary)
        } catch {
            await bus.publish(.error(error.event(pipeline: spec.name)))
            outcome = .failure(error)
        }
        await lock?.release()
        await lease.release()
        return try outcome.get()
    }

    /// The sink, target and database of a pipeline's outbox.
    static func open(spec: PipelineSpec, environment: PipelineEnvironment) async throws(ScreensPipeError) -> OutboxPlace {
        guard let sink = spec.sink.liferay else {
            throw ScreensPipeError.configuration("pipeline '\(spec.name)' has no sink of type liferay, so it has no outbox")
        }
        guard sink.writePolicy.usesOutbox else {
            throw ScreensPipeError.configuration(
                "pipeline '\(spec.name)' writes with 'write-policy: remote-only', which keeps no outbox: give the sink 'write-policy: remote-first', 'cache-first' or 'cache-only'")
        }
        let baseURL: String
        switch sink.connection.server {
        case .url(let url)?: baseURL = url
        case .sandbox?, nil:
            throw ScreensPipeError.configuration(
                "an outbox keeps writes for a portal that outlives the run; the bundled sandbox (server: sandbox) is new every run: start one with 'screens-pipe sandbox --port 8080' and name it in 'server'")
        }
        let target = WriteTarget.text(baseURL: baseURL, groupId: sink.groupId)
        // Beside the write journal, in the cache's store: a fleet sharing a PostgreSQL cache
        // shares one outbox.
        let kind = StorageKind.of(spec.cache)
        let storage = try BackendRegistry.storage(kind)
        guard let outbox = try await storage.openOutbox(spec: spec.cache, environment: environment.storageVariables, pipeline: spec.name, target: target) else {
            throw ScreensPipeError.configuration("the \(kind.displayName) store registered no outbox")
        }
        return OutboxPlace(sink: sink, baseURL: baseURL, target: target, cache: spec.cache, variables: environment.storageVariables, outbox: outbox)
    }
}

/// Where a pipeline's outbox and journal are.
struct OutboxPlace: Sendable {
    var sink: LiferaySinkSpec
    var baseURL: String
    /// Server (redacted) and site, as the journal names a target.
    var target: String
    /// The cache section and variables the journal beside the outbox is opened with.
    var cache: CacheSpec?
    var variables: [String: String]
    var outbox: Outbox

    /// The write lock of this pipeline and target: a sync and a write never interleave.
    func lock(spec: PipelineSpec, environment: PipelineEnvironment) async throws(ScreensPipeError) -> RunLock {
        try await RunLock.acquire(
            .write(pipeline: spec.name, target: target), at: RunLock.Place.of(spec.cache, environment: environment.storageVariables),
            wait: spec.cache?.lockWait ?? RunLock.defaultWait, logger: environment.logger)
    }

    /// Where the outbox keeps the files of its uploads (``UploadSpool``); nil for a sink
    /// that uploads nothing, and for DDL records in a PostgreSQL outbox (whose records
    /// without documents are kept as usual). Images in a PostgreSQL outbox are an error.
    func uploadSpool() throws(ScreensPipeError) -> UploadSpool? {
        let place = try RunLock.Place.of(cache, environment: variables)
        switch sink.service {
        case .image:
            return try UploadSpool(place: place, pipeline: outbox.pipeline, target: target)
        case .ddlRecord:
            if case .postgres = place { return nil }
            return try UploadSpool(place: place, pipeline: outbox.pipeline, target: target)
        case .bookmark, .webContent, .comment, .custom:
            return nil
        }
    }

    func journal() async throws(ScreensPipeError) -> WriteJournal {
        try await PipelineWrite.openJournal(cache: cache, variables: variables, pipeline: outbox.pipeline, target: target)
    }
}

/// One replay of the outbox, write by write, through the journaled writer.
struct OutboxSync {
    let spec: PipelineSpec
    let place: OutboxPlace
    let journal: WriteJournal
    let client: HTTPClient
    let bus: EventBus
    let rejects: RejectsFile
    let conflicts: ConflictsFile
    let logger: Logger

    /// Replays the pending writes (those of `keys` only, when given), in order.
    ///
    /// Each write is claimed before it is sent (``OutboxStorage/claimNext(after:keys:)``):
    /// with the outbox in PostgreSQL, replicas syncing at once each take the next write no
    /// other holds, and a write is settled (removed, or failed with its reason) by the
    /// replica that sent it. Every write then gets a writer of its own over a journal read
    /// afresh for its key, since other replicas record outcomes meanwhile and may have
    /// written the same key since this sync began.
    func run(keys: Set<String>?) async throws(ScreensPipeError) -> OutboxSyncSummary {
        var summary = OutboxSyncSummary()
        var sink = place.sink
        // One write per request: each pending write's outcome is known (and recorded in the
        // journal) before the next is sent, so the outbox can drop it.
        sink.batchSize = 1
        let settings = HTTPSourceSettings(source: sink.connection, configuredURL: place.baseURL, onRetry: nil, logger: logger)
        try sink.connection.checkTransportRoute()
        // The writer's own `result` events would number rows by their place in the outbox;
        // the `sync` events say the same per pending write, so only its requests' `response`
        // events are passed on, each before the `sync` event of its write (``SyncRelay``).
        let relay = SyncRelay(to: bus)
        let spool = try place.uploadSpool()
        try spool?.ensureExists()
        let tools = WriteTools(
            spec: spec, sink: sink, settings: settings, client: client, baseURL: place.baseURL, relay: relay, rejects: rejects, spool: spool)
        do throws(ScreensPipeError) {
            let shared = place.outbox.isShared ? nil : try await tools.make(journal)
            summary = try await replay(keys: keys, tools: tools, shared: shared)
            _ = try rejects.close()
            await relay.finish()
        } catch {
            await relay.finish()
            throw error
        }
        let left = try await place.outbox.entries()
        summary.remaining = left.count
        // A shared outbox keeps no uploads (``UploadSpool``); a local one is synced under
        // the write lock, so no write is copying a file into the spool meanwhile.
        if !place.outbox.isShared { try place.uploadSpool()?.sweep(keeping: left) }
        return summary
    }

    /// What sends one pending write: the journaled writer of the sink's service, and the
    /// conflict checker of its updates.
    private struct WriteTools {
        let spec: PipelineSpec
        let sink: LiferaySinkSpec
        let settings: HTTPSourceSettings
        let client: HTTPClient
        let baseURL: String
        let relay: SyncRelay
        let rejects: RejectsFile
        let spool: UploadSpool?

        func make(_ journal: WriteJournal) async throws(ScreensPipeError) -> (writer: any RowWriter, checker: (any PendingUpdateChecker)?) {
            // Kept uploads name their copies in the spool, relative to it.
            let writer = try await PipelineWrite.makeWriter(
                sink: sink, pipeline: spec.name, settings: settings, client: client, baseURL: baseURL, journal: journal,
                bus: relay.writerBus, rejects: rejects, dryRun: false, filesDirectory: spool?.directory ?? ".", keptRows: spool != nil)
            let checker = ModelUpdateChecker<BookmarkWriteModel>.make(
                sink: sink, transport: JSONWSBookmarkTransport(settings: settings, client: client, baseURL: baseURL), journal: journal)
            return (writer, checker)
        }
    }

    /// Claims and settles the pending writes one by one, through `shared` (one writer for
    /// the whole sync, under the write lock) or a writer of each write's own.
    private func replay(
        keys: Set<String>?, tools: WriteTools, shared: (writer: any RowWriter, checker: (any PendingUpdateChecker)?)?
    ) async throws(ScreensPipeError) -> OutboxSyncSummary {
        var summary = OutboxSyncSummary()
        var after: Int64 = 0
        while let claim = try await place.outbox.claimNext(after: after, keys: keys) {
            after = claim.entry.sequence
            do throws(ScreensPipeError) {
                let sending: (writer: any RowWriter, checker: (any PendingUpdateChecker)?)
                if let shared { sending = shared } else { sending = try await tools.make(journal.scoped(to: [claim.entry.key])) }
                let stop = try await settle(claim, writer: sending.writer, checker: sending.checker, relay: tools.relay, summary: &summary)
                await claim.release()
                if stop { break }
            } catch {
                await claim.release()
                throw error
            }
        }
        return summary
    }

    /// Sends one claimed write and settles it; returns whether the sync stops (the portal
    /// could not be reached).
    private func settle(
        _ claim: any OutboxClaim, writer: any RowWriter, checker: (any PendingUpdateChecker)?, relay: SyncRelay,
        summary: inout OutboxSyncSummary
    ) async throws(ScreensPipeError) -> Bool {
        let entry = claim.entry
        await publish(entry, "started")
        let value: JSONValue
        do {
            value = try JSONValue(parsing: Array(entry.row.utf8))
        } catch {
            let reason = "the kept row is not JSON (\(error)); discard it"
            try await claim.recordFailure(reason: reason)
            summary.failed += 1
            await publish(entry, "failed", ["error": .string(reason)])
            return false
        }
        let before = writer.summary
        do throws(ScreensPipeError) {
            if let checker, try await settleConflict(claim, value, checker: checker, summary: &summary) { return false }
            try await writer.take(row: value, number: Int(entry.sequence))
            await relay.drain()
        } catch {
            await relay.drain()
            // The portal could not be reached (or answered nothing): this write and the
            // rest stay pending; the journal keeps an unanswered one pending too, so the
            // next sync looks it up before sending it again.
            try await claim.recordFailure(reason: error.message)
            await publish(entry, "failed", ["error": .string(error.message)])
            summary.stoppedBy = error
            return true
        }
        let after = writer.summary
        if after.rejected > before.rejected {
            let reason = rejects.lastReason ?? "the portal refused it"
            try await claim.recordFailure(reason: reason)
            summary.failed += 1
            await publish(entry, "failed", ["error": .string(reason)])
            return false
        }
        let outcome =
            after.created > before.created
            ? "created" : after.updated > before.updated ? "updated" : after.deleted > before.deleted ? "deleted" : "unchanged"
        switch outcome {
        case "created": summary.created += 1
        case "updated": summary.updated += 1
        case "deleted": summary.deleted += 1
        default: summary.unchanged += 1
        }
        try await claim.remove()
        summary.completed += 1
        await publish(entry, "completed", ["outcome": .string(outcome)])
        return false
    }

    /// Compares a pending update's (or delete's) base version with the portal's entry; on a conflict the
    /// sink's `conflict-policy` decides. Returns whether the write is settled (not to be sent).
    private func settleConflict(
        _ claim: any OutboxClaim, _ value: JSONValue, checker: any PendingUpdateChecker, summary: inout OutboxSyncSummary
    ) async throws(ScreensPipeError) -> Bool {
        let entry = claim.entry
        guard entry.operation != .add, let base = entry.baseVersion else { return false }
        let field = place.sink.versionField
        let baseValue = (try? JSONValue(parsing: Array(base.utf8))) ?? .string(base)
        let remote = try await checker.remoteEntry(for: value)
        let remoteRow: JSONValue?
        switch remote {
        case .unknown: return false
        case .missing: remoteRow = nil
        case .found(let row, _):
            if row[field] == baseValue { return false }
            remoteRow = row
        }
        summary.conflicts += 1
        let policy = place.sink.conflictPolicy
        let details: JSONObject = [
            "resolution": .string(policy.rawValue), "baseVersion": baseValue, "remoteVersion": remoteRow?[field] ?? .null,
        ]
        switch policy {
        case .keepLocal:
            await publish(entry, "conflicted", details)
            return false
        case .keepRemote, .discard:
            if policy == .keepRemote, case .found(let row, let id) = remote { try await checker.adoptRemote(row, id: id) }
            try await claim.remove()
            await publish(entry, "conflicted", details)
            return true
        case .report:
            let local = (try? JSONValue(parsing: Array(entry.row.utf8))) ?? .string(entry.row)
            try conflicts.append([
                "pipeline": .string(spec.name), "sequence": .int(entry.sequence),
                "key": (try? JSONValue(parsing: Array(entry.key.utf8))) ?? .string(entry.key),
                "operation": .string(entry.operation.rawValue), "versionField": .string(field), "baseVersion": baseValue,
                "remoteVersion": remoteRow?[field] ?? .null, "local": local, "remote": remoteRow ?? .null,
            ])
            let reason = remoteRow == nil
                ? "conflict: the entry is gone from the portal; see \(conflicts.path)"
                : "conflict: the portal's \(field) is \((remoteRow?[field] ?? .null).jsonString), the write was based on \(base); see \(conflicts.path)"
            try await claim.recordFailure(reason: reason)
            summary.reported += 1
            var reported = details
            reported["conflicts"] = .string(conflicts.path)
            await publish(entry, "conflicted", reported)
            return true
        }
    }

    /// A `sync` event: Screens' `onItemSyncScreenlet` started, completed, failed or conflicted.
    func publish(_ entry: OutboxEntry, _ state: String, _ details: JSONObject = [:]) async {
        var payload: JSONObject = [
            "state": .string(state), "sequence": .int(entry.sequence),
            "key": (try? JSONValue(parsing: Array(entry.key.utf8))) ?? .string(entry.key),
            "operation": .string(entry.operation.rawValue),
        ]
        for (name, value) in details { payload[name] = value }
        await bus.publish(custom: "sync", pipeline: spec.name, payload: .object(payload))
    }
}

/// Passes the `response` events of the sync's writer on to the sync's bus, and lets the
/// sync wait until every event published so far has been passed on, so a write's
/// `response` comes before its `completed`.
final class SyncRelay: @unchecked Sendable {  // used by the one task that runs the sync
    let writerBus: EventBus
    private static let marker = "outbox.drained"
    private let forwarding: Task<Void, Never>
    private var drained: AsyncStream<Void>.Iterator

    init(to bus: EventBus) {
        let writerBus = EventBus()
        self.writerBus = writerBus
        let events = writerBus.subscribe()
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        drained = stream.makeAsyncIterator()
        forwarding = Task {
            for await event in events {
                switch event {
                case .response: await bus.publish(event)
                case .custom(let custom) where custom.name == Self.marker: continuation.yield()
                default: continue
                }
            }
            continuation.finish()
        }
    }

    /// Returns once the events the writer published so far are passed on.
    func drain() async {
        await writerBus.publish(custom: Self.marker, pipeline: "")
        _ = await drained.next()
    }

    func finish() async {
        writerBus.finish()
        await forwarding.value
    }
}
