internal import Foundation
import ScreensBus
import Synchronization

/// One poll of a followed list: an ordinary run of the pipeline (its source, cache, convert
/// and filter, every rule of a run) whose selected rows are read off the bus as keys and
/// digests instead of being written.
struct ListPoll: Sendable {
    /// What a poll read.
    struct Result: Sendable {
        var rows: [ObservedRow]
        var keyFields: [String]?
        /// The incremental cursor's state after the poll (unchanged when nothing moved it).
        var cursor: String?
    }

    /// The pipeline each poll runs: its sink writes nothing, and no `limit` cuts the list.
    let spec: PipelineSpec
    let environment: PipelineEnvironment
    /// Whether only the rows' keys matter (a key sweep): no digest or text is kept.
    var readsKeysOnly = false
    /// The fields tried, in order, when no key is configured: the first one the first row has.
    static let keyCandidates = ["entryId", "resourcePrimKey", "recordId", "id"]

    init(following spec: PipelineSpec, environment: PipelineEnvironment) {
        var poll = spec
        poll.sink = SinkSpec(destination: .discard)
        poll.filter?.limit = nil
        self.spec = poll
        var pollEnvironment = environment
        // Every poll asks the server: a fresh cached page would hide the changes.
        pollEnvironment.refresh = spec.cache != nil && spec.cache?.policy != .cacheOnly
        pollEnvironment.fullRefresh = false
        pollEnvironment.resume = false
        self.environment = pollEnvironment
    }

    /// Runs one poll against `previous`; `started` is handed the poll's pipeline at once (so
    /// a stop can interrupt it). Throws the run's first failure when the poll did not read
    /// the whole list (or, with a cursor, every change), so nothing of it counts.
    func run(
        previous: ListSnapshot, keyFields: [String]?, cursor: String?, started: @Sendable (Pipeline) -> Void
    ) async throws(ScreensPipeError) -> Result {
        var environment = self.environment
        let cursorStore = spec.incremental == nil ? nil : OneRecordStateStore(document: cursor)
        if let cursorStore { environment.stateStore = cursorStore }
        let pipeline = Pipeline(spec: spec, environment: environment)
        let subscription = pipeline.subscribe()
        let keysOnly = readsKeysOnly
        let observer = Task { await Self.observe(subscription, previous: previous, keyFields: keyFields, keysOnly: keysOnly) }
        started(pipeline)
        let summary: RunSummary
        do throws(ScreensPipeError) {
            summary = try await pipeline.runReturningFailures()
        } catch {
            _ = await observer.value
            throw error
        }
        let observed = await observer.value
        if let failure = summary.failures.first { throw failure }
        if summary.failureCount > 0 { throw ScreensPipeError(.pagination, "the poll had \(summary.failureCount) errors") }
        guard summary.ending.reason == .completed else {
            if summary.ending.reason == .interrupted { throw ScreensPipeError.cancelled("the poll was interrupted") }
            throw ScreensPipeError.pagination("the poll stopped before the end of the list (\(summary.ending.reason?.rawValue ?? "unknown"))")
        }
        let rows = try observed.get()
        return Result(rows: rows.rows, keyFields: rows.keyFields, cursor: cursorStore?.document ?? cursor)
    }

    /// Reads every selected row of the run as a key and a digest (and its text when it
    /// changed), draining the whole subscription even after a failure so the run never waits.
    private static func observe(
        _ subscription: EventSubscription, previous: ListSnapshot, keyFields: [String]?, keysOnly: Bool
    ) async -> Swift.Result<(rows: [ObservedRow], keyFields: [String]?), ScreensPipeError> {
        var reader = RowKeyReader(fields: keyFields)
        var rows: [ObservedRow] = []
        var failure: ScreensPipeError?
        for await message in subscription.messages {
            guard failure == nil else { continue }
            let selected: [(page: Int, row: Int, item: JSONValue, text: ArraySlice<UInt8>?)]
            switch message {
            case .page(let page):
                selected = (0..<page.outcomeCount).compactMap { index -> (page: Int, row: Int, item: JSONValue, text: ArraySlice<UInt8>?)? in
                    guard case .selected(let row, let item) = page.outcome(at: index) else { return nil }
                    return (page.response.page, row, item, page.text(ofOutcome: index))
                }
            case .event(.selected(let event)):
                selected = [(event.page, event.row, event.item, nil)]
            case .event:
                continue
            }
            for entry in selected {
                do throws(ScreensPipeError) {
                    let (key, keyObject) = try reader.key(of: entry.item, page: entry.page, row: entry.row)
                    if keysOnly {
                        rows.append(ObservedRow(key: key, keyObject: keyObject, digest: "", text: nil))
                        continue
                    }
                    let text = entry.text.map { String(decoding: $0, as: UTF8.self) } ?? entry.item.jsonString
                    let digest = SHA256.hexDigest(text, characters: 32)
                    rows.append(ObservedRow(key: key, keyObject: keyObject, digest: digest, text: previous.digest(of: key) == digest ? nil : text))
                } catch {
                    failure = error
                    break
                }
            }
        }
        if let failure { return .failure(failure) }
        return .success((rows, reader.fields))
    }
}

/// Reads a row's key: the configured fields, or the first of ``ListPoll/keyCandidates``
/// the first row holds, kept for every later row.
struct RowKeyReader: Sendable {
    private(set) var fields: [String]?
    private var paths: [FieldPath] = []

    init(fields: [String]?) {
        self.fields = fields
        paths = fields?.compactMap { try? FieldPath($0) } ?? []
    }

    mutating func key(of item: JSONValue, page: Int, row: Int) throws(ScreensPipeError) -> (String, JSONValue) {
        if fields == nil {
            guard let found = ListPoll.keyCandidates.first(where: { item[$0].map { !$0.isNull } ?? false }) else {
                throw ScreensPipeError.configuration(
                    "cannot tell the rows of this list apart: row \(row) has none of \(ListPoll.keyCandidates.joined(separator: ", ")); name its key with --key FIELD[,FIELD]")
            }
            fields = [found]
            paths = [FieldPath(components: [.key(found)])]
        }
        var values: [JSONValue] = []
        var object = JSONObject(minimumCapacity: paths.count)
        for (name, path) in zip(fields ?? [], paths) {
            guard let value = path.resolve(in: item), !value.isNull else {
                var error = ScreensPipeError(.conversion, "the row has no key field '\(name)' (a followed list needs every row's key)")
                error.page = page
                error.row = row
                throw error
            }
            switch value {
            case .object, .array:
                throw ScreensPipeError(.conversion, "the key field '\(name)' of row \(row) is \(value.typeName), not a string or a number", page: page, row: row)
            default:
                values.append(value)
                object[name] = value
            }
        }
        return (JSONValue.array(values).jsonString, .object(object))
    }
}

/// The list state store a poll's incremental run reads its cursor from and commits it to:
/// one record in memory, which the follow state keeps with its snapshot (so both move together).
final class OneRecordStateStore: ListStateStore {
    private let stored: Mutex<String?>

    init(document: String?) {
        stored = Mutex(document)
    }

    var document: String? { stored.withLock { $0 } }

    func record(for key: StateKey) async throws(ScreensPipeError) -> ListStateRecord? {
        document.map { ListStateRecord(document: $0, committedAt: Date()) }
    }

    func commit(_ record: ListStateRecord, for key: StateKey) async throws(ScreensPipeError) {
        stored.withLock { $0 = record.document }
    }

    func reset(_ key: StateKey) async throws(ScreensPipeError) -> Bool {
        stored.withLock { state in
            defer { state = nil }
            return state != nil
        }
    }

    func records(pipeline: String?) async throws(ScreensPipeError) -> [(key: StateKey, record: ListStateRecord)] { [] }
}
