import ScreensBus

/// A row a poll read: its key, the digest of its content, and its text when it differs from
/// the snapshot's (only changed rows keep their text, so a poll of a large list that
/// changed little holds little).
struct ObservedRow: Sendable {
    var key: String
    var keyObject: JSONValue
    var digest: String
    var text: String?
}

/// Compares one poll with the snapshot before it (docs/architecture.md, "Following a list").
///
/// - A key the snapshot lacks is `added`; one it holds with another digest is `updated`;
///   the same digest is no change. Both in the order the poll read the rows.
/// - Only reads of the whole list (`complete`) can say a row is gone, and only two in a row:
///   offset paging has no snapshot, so a row deleted while a poll pages moves the rows
///   behind it back, and one of them can slip past a page boundary unread. A key the first
///   read misses stays in the snapshot as *missing*; when the next complete read misses it
///   too it is `deleted` (after the poll's other changes, in the snapshot's order), and
///   when it reads it, nothing happened. A cursor poll (incremental) reads only changed
///   rows and deletes nothing.
/// - A key read twice in one poll (a row that moved across a page boundary while the list
///   was paged) counts once, with the content read last.
enum ChangeDetection {
    struct Outcome: Sendable {
        var changes: [ListChange]
        var snapshot: ListSnapshot
    }

    static func compare(
        _ rows: [ObservedRow], with previous: ListSnapshot, complete: Bool, keyFields: [String], after sequence: Int64
    ) -> Outcome {
        // The last read of each key wins; its place is the first read's.
        var order: [String] = []
        var latest: [String: ObservedRow] = [:]
        for row in rows {
            if latest.updateValue(row, forKey: row.key) == nil { order.append(row.key) }
        }
        var changes: [ListChange] = []
        var next = complete ? ListSnapshot() : previous
        var number = sequence
        for key in order {
            guard let row = latest[key] else { continue }
            next.set(key, digest: row.digest)
            let before = previous.digest(of: key)
            guard before != row.digest else { continue }
            number += 1
            changes.append(ListChange(kind: before == nil ? .added : .updated, sequence: number, key: row.keyObject, itemText: row.text))
        }
        if complete {
            for key in previous.keys where latest[key] == nil {
                guard previous.missing.contains(key) else {
                    next.set(key, digest: previous.digest(of: key) ?? "", missing: true)
                    continue
                }
                number += 1
                changes.append(ListChange(kind: .deleted, sequence: number, key: keyObject(key, fields: keyFields), itemText: nil))
            }
        }
        return Outcome(changes: changes, snapshot: next)
    }

    /// The key object of a stored key text (`[30001]` with fields `entryId`: `{"entryId":30001}`).
    static func keyObject(_ key: String, fields: [String]) -> JSONValue {
        guard let values = (try? JSONValue(parsing: key))?.arrayValue, values.count == fields.count else { return .string(key) }
        var object = JSONObject(minimumCapacity: fields.count)
        for (field, value) in zip(fields, values) { object[field] = value }
        return .object(object)
    }
}
