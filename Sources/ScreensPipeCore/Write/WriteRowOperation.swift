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

/// The command that removes an entry (`/bookmarks.bookmarksentry/delete-entry` with
/// `entryId`): what a row that deletes by key is sent as, once its entry is found.
struct EntryRemoval: Sendable, Hashable {
    var service: String
    /// The parameter the entry's id goes in; nil when the command names the entry otherwise
    /// (an article by its `articleId`).
    var idParameter: String?
    /// Parameters every such command carries (an article's `groupId`).
    var parameters: JSONObject = [:]
    /// Parameters taken from what a lookup found of the entry (``FoundEntry/updateParameters``).
    var entryParameters: [String] = []

    /// Whether the entry must be looked up before it is removed: the journal keeps only its id.
    var needsLookup: Bool { !entryParameters.isEmpty }

    func command(_ entry: FoundEntry) -> JSONWSCommand {
        var params = parameters
        if let idParameter { params[idParameter] = .int(entry.id) }
        for name in entryParameters { params[name] = entry.updateParameters[name] ?? .null }
        return (service, params)
    }
}
