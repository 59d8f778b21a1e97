public import ScreensBus

/// An edit of a session's list, written through the pipeline's `liferay` sink: what a list
/// Screenlet's user does to a row (add one, change one, delete one).
public enum SessionEdit: Sendable, Hashable {
    /// `{"op":"add","row":{...}}`: a new entry, the row as `screens-pipe write` takes it.
    case add(row: JSONValue)
    /// `{"op":"update","row":{...}}`: the entry the row's key fields name, on a page loaded
    /// in the session, changed to the row's values.
    case update(row: JSONValue)
    /// `{"op":"delete","key":{...}}`: the entry these key fields name, on a page loaded in
    /// the session, deleted.
    case delete(key: JSONValue)

    /// The command's `op`.
    public var name: String {
        switch self {
        case .add: "add"
        case .update: "update"
        case .delete: "delete"
        }
    }
}

/// The answer to an edit: how the write ended and where the row is in the list now.
///
/// On the wire: `{"event":"edited","pipeline":"p","op":"add","outcome":"created","page":2,
/// "row":5,"item":{...},"rowCount":6,"id":"a1"}`.
public struct SessionEdited: Sendable, Hashable {
    /// The pipeline's name.
    public var pipeline: String
    /// What the command asked: `add`, `update` or `delete`.
    public var op: String
    /// How the write ended, as `screens-pipe write` says it: `created`, `updated`,
    /// `deleted`, `unchanged` (written before, per the journal), `pending` (kept in the
    /// outbox for `screens-pipe outbox sync`) or `cancelled` (a delete of an entry whose add
    /// was still pending).
    public var outcome: String
    /// The page the row is on now (a delete: was on); nil when it is on no page at hand
    /// (an add to a list whose last page is not loaded).
    public var page: Int?
    /// The row's index in the whole list now (a delete: before it was removed).
    public var row: Int?
    /// The row converted and filtered like every row of the list (a delete: the row as it
    /// was shown); nil when it does not pass the filter or does not convert.
    public var item: JSONValue?
    /// The list's row count after the edit, when the source reports one.
    public var rowCount: Int?
    /// Why the write is pending (the portal could not be reached...), when it is.
    public var reason: String?

    /// Creates an answer.
    public init(
        pipeline: String, op: String, outcome: String, page: Int? = nil, row: Int? = nil, item: JSONValue? = nil,
        rowCount: Int? = nil, reason: String? = nil
    ) {
        self.pipeline = pipeline
        self.op = op
        self.outcome = outcome
        self.page = page
        self.row = row
        self.item = item
        self.rowCount = rowCount
        self.reason = reason
    }

    /// The event as one JSON object (without the command's `id`).
    public var envelope: JSONObject {
        var object: JSONObject = ["event": "edited", "pipeline": .string(pipeline), "op": .string(op), "outcome": .string(outcome)]
        if let page { object["page"] = .int(Int64(page)) }
        if let row { object["row"] = .int(Int64(row)) }
        if let item { object["item"] = item }
        if let rowCount { object["rowCount"] = .int(Int64(rowCount)) }
        if let reason { object["reason"] = .string(reason) }
        return object
    }
}

extension SessionRequest {
    /// The most members a key of a `delete` names: a sink's key has a few fields.
    static let maximumKeyFields = 16

    /// `add` and `update`: the `row` object.
    static func editRow(in object: JSONObject, op: String) throws(SessionCommandError) -> JSONValue {
        guard let row = object["row"] else {
            throw SessionCommandError(message: "the \(op) command needs \"row\", an object such as {\"name\":\"Liferay\",\"url\":\"https://www.liferay.com\"}")
        }
        guard case .object(let members) = row else {
            throw SessionCommandError(message: "\"row\" must be an object, found \(row.typeName)")
        }
        guard !members.isEmpty else { throw SessionCommandError(message: "\"row\" is empty: give the entry's fields") }
        return row
    }

    /// `delete`: the `key` object of the sink's key fields (`{"url":"https://..."}`).
    static func editKey(in object: JSONObject) throws(SessionCommandError) -> JSONValue {
        guard let key = object["key"] else {
            throw SessionCommandError(message: "the delete command needs \"key\", an object of the sink's key fields such as {\"url\":\"https://www.liferay.com\"}")
        }
        guard case .object(let members) = key else {
            throw SessionCommandError(message: "\"key\" must be an object of the sink's key fields, found \(key.typeName)")
        }
        guard !members.isEmpty, members.count <= maximumKeyFields else {
            throw SessionCommandError(message: "\"key\" must name from 1 to \(maximumKeyFields) key fields, found \(members.count)")
        }
        for (name, value) in members where value.objectValue != nil || value.arrayValue != nil {
            throw SessionCommandError(message: "key field '\(name.count <= 64 ? name : String(name.prefix(64)) + "...")' must be a string or a number, found \(value.typeName)")
        }
        return key
    }
}

/// Why a command line is no command.
struct SessionCommandError: Error {
    var message: String
}
