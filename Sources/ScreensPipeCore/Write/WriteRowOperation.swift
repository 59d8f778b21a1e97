import ScreensBus

/// What an input row asks for with its `op` field: the one rule every JSON-WS service
/// reads it by (`{"op":"delete","commentId":80004}`, `{"op":"delete","url":"https://..."}`).
///
/// Screens names the same three actions for a list's rows (`BaseListView`'s add, update and
/// delete, and the comment interactors). A row without `op` (or with `op` null) says nothing,
/// and the service decides from the row (a comment with a `commentId` is an update; a
/// bookmark is added or updated as the journal and its key say).
enum WriteRowOperation: String, Sendable, Hashable, CaseIterable {
    case add, update, delete
}

extension WriteRowParsing {
    /// The row's `op`: nil when it has none, else `add`, `update` or `delete`, or a rejection
    /// that names what it found.
    static func operation(_ row: JSONValue) throws(RowRejection) -> WriteRowOperation? {
        guard let given = row["op"], !given.isNull else { return nil }
        guard let name = given.stringValue, let operation = WriteRowOperation(rawValue: name) else {
            throw RowRejection(message: "'op' is add, update or delete, found \(given.jsonString.prefix(100))")
        }
        return operation
    }
}

/// The command that removes an entry by its id (`/bookmarks.bookmarksentry/delete-entry`
/// with `entryId`): what a row that deletes by key is sent as, once its entry is found.
struct EntryRemoval: Sendable, Hashable {
    var service: String
    var idParameter: String

    func command(entryId: Int64) -> JSONWSCommand {
        (service, [idParameter: .int(entryId)])
    }
}

extension WriteRowParsing {
    /// Refuses a row that asks to be deleted (`"op":"delete"`) from a service that cannot
    /// delete: written as it is, it would create or change the entry it meant to remove.
    /// Only `delete` is looked at, so a record whose own field is named `op` still writes.
    static func refuseDelete(_ row: JSONValue, service: String) throws(RowRejection) {
        guard row["op"]?.stringValue == WriteRowOperation.delete.rawValue else { return }
        throw RowRejection(message: "\(service) rows cannot delete over JSON-WS in this version (with `transport: headless` they can): the row has \"op\":\"delete\"")
    }
}
