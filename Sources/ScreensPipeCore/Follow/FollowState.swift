import ScreensBus

/// The keys and content digests of a followed list's last complete read, in list order.
///
/// A key is the compact JSON of the row's key values (`[30001]`), a digest the first 32 hex
/// digits of the SHA-256 of the row's compact JSON as written: a row whose digest is the
/// one stored did not change, whatever the server's dates say.
struct ListSnapshot: Sendable, Hashable {
    /// Keys in the order of the read that stored them (new keys of a cursor poll go last).
    private(set) var keys: [String] = []
    /// Each key's digest.
    private(set) var digests: [String: String] = [:]
    /// Keys the last complete read did not find: one more read without them deletes them.
    private(set) var missing: Set<String> = []

    var count: Int { keys.count }

    func digest(of key: String) -> String? { digests[key] }

    /// Sets `key`'s digest, appending a key that is new; a key set is not missing.
    mutating func set(_ key: String, digest: String, missing isMissing: Bool = false) {
        if digests.updateValue(digest, forKey: key) == nil { keys.append(key) }
        if isMissing { missing.insert(key) } else { missing.remove(key) }
    }
}

/// What a followed list keeps between polls and across restarts, as one document in the
/// list state store (SQLite beside the cache, or PostgreSQL when the cache is there), so
/// the snapshot, the cursor, the change numbers and the batch being written are replaced
/// together, atomically: a reader sees one complete poll's state or the next one's.
struct FollowState: Sendable, Hashable {
    static let version: Int64 = 1
    /// The key fields the snapshot's keys are made of (fixed by the first poll that saw a row).
    var keyFields: [String]?
    /// The last change number given out (the pending batch's included).
    var sequence: Int64 = 0
    /// Complete polls so far.
    var polls: Int64 = 0
    /// The incremental cursor's state document, for a pipeline with `incremental:`.
    var cursor: String?
    var snapshot = ListSnapshot()
    /// The lines of the batch committed but maybe not all written: a restart writes those
    /// its output does not hold yet.
    var pending: [String] = []
    /// The poll count when the last key sweep completed (0: none yet, counted from the first poll).
    var sweptAtPoll: Int64 = 0
    /// When the last key sweep completed, in milliseconds since 1970; nil: none yet.
    var sweptAt: Int64?

    init() {}

    var document: String {
        var object: JSONObject = [
            "version": .int(Self.version), "sequence": .int(sequence), "polls": .int(polls),
            "keyFields": keyFields.map { JSONValue.array($0.map(JSONValue.string)) } ?? JSONValue.null,
            "cursor": cursor.map(JSONValue.string) ?? JSONValue.null,
        ]
        // A key a complete read missed once carries a third element.
        object["rows"] = .array(
            snapshot.keys.map { key in
                var row: [JSONValue] = [.string(key), .string(snapshot.digest(of: key) ?? "")]
                if snapshot.missing.contains(key) { row.append(.bool(true)) }
                return .array(row)
            })
        object["pending"] = .array(pending.map(JSONValue.string))
        if sweptAtPoll > 0 { object["sweptAtPoll"] = .int(sweptAtPoll) }
        if let sweptAt { object["sweptAt"] = .int(sweptAt) }
        return JSONValue.object(object).jsonString
    }

    /// Reads a document ``document`` wrote; a `state` error naming `key` when it is not one.
    init(document: String, key: StateKey) throws(ScreensPipeError) {
        func invalid(_ reason: String) -> ScreensPipeError {
            .state("the follow state of \(key.pipeline) cannot be read: \(reason); remove it with 'screens-pipe state reset FILE'")
        }
        guard let value = try? JSONValue(parsing: document), case .object(let object) = value else { throw invalid("it is not a JSON object") }
        guard object["version"]?.int64Value == Self.version else { throw invalid("it was written by another version (\(object["version"]?.jsonString ?? "none"))") }
        guard let sequence = object["sequence"]?.int64Value, sequence >= 0, let polls = object["polls"]?.int64Value else {
            throw invalid("its sequence or poll count is missing")
        }
        self.sequence = sequence
        self.polls = polls
        switch object["keyFields"] {
        case .array(let fields)?:
            let names = fields.compactMap(\.stringValue)
            guard names.count == fields.count, !names.isEmpty else { throw invalid("its key fields are not names") }
            keyFields = names
        case .null?, nil: keyFields = nil
        default: throw invalid("its key fields are not a list")
        }
        cursor = object["cursor"]?.stringValue
        guard case .array(let rows)? = object["rows"], case .array(let lines)? = object["pending"] else { throw invalid("its rows or pending lines are missing") }
        for row in rows {
            guard let key = row[0]?.stringValue, let digest = row[1]?.stringValue else { throw invalid("a row is not a key and a digest") }
            snapshot.set(key, digest: digest, missing: row[2]?.boolValue ?? false)
        }
        pending = lines.compactMap(\.stringValue)
        // Absent from a state no sweep has touched yet.
        sweptAtPoll = object["sweptAtPoll"]?.int64Value ?? 0
        sweptAt = object["sweptAt"]?.int64Value
        guard pending.count == lines.count else { throw invalid("a pending line is not text") }
    }
}
