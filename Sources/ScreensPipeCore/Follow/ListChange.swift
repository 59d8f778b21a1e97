import ScreensBus

/// What happened to a row between two complete polls of a followed list.
public enum ChangeKind: String, Sendable, Hashable, CaseIterable {
    /// A key the previous snapshot did not hold.
    case added
    /// A key the previous snapshot held with another content digest.
    case updated
    /// A key the previous snapshot held that a complete read no longer finds.
    case deleted
}

/// One change of a followed list: its kind, its key, the row as it is now (none for a
/// deletion) and its sequence number.
///
/// Sequence numbers count the changes of one followed list from 1, across restarts: a
/// change written once keeps its number, so a reader that sees a number again (after a
/// restart whose output is a stream, see <doc:FollowingAList>) knows it already has it.
public struct ListChange: Sendable, Hashable {
    /// Added, updated or deleted.
    public var kind: ChangeKind
    /// The change's number among the list's changes, from 1.
    public var sequence: Int64
    /// The row's key fields and their values (`{"entryId":30001}`).
    public var key: JSONValue
    /// The row as the pipeline's convert and filter made it, as compact JSON text (numbers
    /// and member order as received, as `run` writes it); nil for a deletion.
    public var itemText: String?

    /// A change.
    public init(kind: ChangeKind, sequence: Int64, key: JSONValue, itemText: String?) {
        self.kind = kind
        self.sequence = sequence
        self.key = key
        self.itemText = itemText
    }

    /// The row as a value; nil for a deletion.
    public var item: JSONValue? { itemText.flatMap { try? JSONValue(parsing: $0) } }

    /// The change as one line of text (compact JSON, no newline):
    /// `{"change":"added","seq":1,"key":{"entryId":30001},"item":{...}}`, the item written
    /// from its text so no number is rewritten.
    public var line: String {
        var line = #"{"change":"# + JSONValue.string(kind.rawValue).jsonString + #","seq":\#(sequence),"key":"# + key.jsonString
        if let itemText { line += #","item":"# + itemText }
        return line + "}"
    }

    /// The change as a `changed` event line of `run --follow --events` (compact JSON, no
    /// newline): ``line``'s members after `"event":"changed"` and the pipeline's name, so
    /// ``init(line:)`` reads it too.
    public func eventLine(pipeline: String) -> String {
        #"{"event":"changed","pipeline":"# + JSONValue.string(pipeline).jsonString + "," + line.dropFirst()
    }

    /// Reads a line ``line`` or ``eventLine(pipeline:)`` wrote; nil when it is not one.
    public init?(line: String) {
        guard let value = try? JSONValue(parsing: line), let kindText = value["change"]?.stringValue,
            let kind = ChangeKind(rawValue: kindText), let sequence = value["seq"]?.int64Value, let key = value["key"]
        else { return nil }
        self.init(kind: kind, sequence: sequence, key: key, itemText: value["item"]?.jsonString)
    }
}
