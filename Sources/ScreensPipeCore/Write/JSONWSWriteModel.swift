import ScreensBus

/// One JSON-WS command: a service path and its parameters.
typealias JSONWSCommand = (service: String, params: JSONObject)

/// An entry found on the portal by key, with what an update of it needs.
struct FoundEntry: Sendable {
    /// The id the service's results carry (`entryId`, `resourcePrimKey`, `recordId`).
    var id: Int64
    /// The stored values, in the form of ``JournaledRow/content``.
    var content: String
    /// What the update command needs besides the id (an article's `articleId` and `version`).
    var updateParameters: JSONObject = [:]
    /// The entry as the portal lists it, where the lookup reads whole entries (bookmarks):
    /// what a sync compares a pending update with (Outbox/OutboxConflicts.swift).
    var remote: JSONValue?
}

/// A service a `liferay` sink writes through JSON-WS batches: how a row is checked, which
/// commands create and update its entry, and how entries are found by key.
protocol JSONWSWriteModel: Sendable {
    associatedtype Row: JournaledRow

    /// The service's name in messages (`bookmark`, `web-content`, `/foo.bar/add-thing`).
    var serviceName: String { get }
    /// The result field that names a written entry (`entryId`), in `result` events.
    var idField: String { get }
    /// Whether an update needs what only a lookup tells (an article's version), rather
    /// than the id the journal kept.
    var updatesNeedLookup: Bool { get }
    /// Whether the service can change an entry it wrote (a declared command cannot).
    var canUpdate: Bool { get }

    /// Checks one row against the service's parameters (the `validateData` of a Screenlet).
    func row(_ value: JSONValue, line: Int) throws(RowRejection) -> Row
    /// The command that creates the row's entry (or, for a service whose rows say what
    /// they do, the row's own command: ``outcome(ofFirstCommand:)``).
    func addCommand(_ row: Row) -> JSONWSCommand
    /// What the row's entry is once ``addCommand(_:)`` is carried out: `created`, unless the
    /// row itself names an entry to change or delete (a comment's `commentId`).
    func outcome(ofFirstCommand row: Row) -> WriteJournal.State
    /// Whether the row goes in a request of its own: the portal's refusal of it is then
    /// its own, never settled by a lookup that cannot tell "done" from "never there" (a
    /// delete of a comment that does not exist).
    func sendsAlone(_ row: Row) -> Bool
    /// The command that changes `found` to hold the row's values.
    func updateCommand(_ row: Row, _ found: FoundEntry) -> JSONWSCommand
    /// How the row removes the entry its key names (a bookmark's `"op":"delete"`), or nil
    /// when it does not: the writer finds the entry by the journal's id, else by lookup.
    func removal(_ row: Row) -> EntryRemoval?
    /// The id in an add or update command's result.
    func id(ofResult result: JSONValue) -> Int64?
    /// The entries of `rows`' lists by key; nil when the service has no way to look them up.
    func lookup(_ rows: [Row], transport: JSONWSBookmarkTransport) async throws(ScreensPipeError) -> [String: FoundEntry]?
    /// What a `result` event shows of the row besides its line and outcome.
    func details(_ row: Row) -> JSONObject
    /// The row as a rejects file shows it when its input line is not at hand.
    func inputText(_ row: Row) -> String
}

extension JSONWSWriteModel {
    var canUpdate: Bool { true }
    func outcome(ofFirstCommand row: Row) -> WriteJournal.State { .created }
    func sendsAlone(_ row: Row) -> Bool { false }
    func removal(_ row: Row) -> EntryRemoval? { nil }
}

extension ScreensPipeError {
    /// Whether this is the portal refusing a read (a list that does not exist, or that the
    /// user may not see): nothing was created in it.
    var isRefusedRead: Bool {
        code == .http && status.map { (400..<500).contains($0) } == true
    }
}

/// `service: bookmark`: `/bookmarks.bookmarksentry/add-entry` and `update-entry`, as Add
/// Bookmark Screenlet's interactor calls them; a folder's `get-entries` is the lookup.
struct BookmarkWriteModel: JSONWSWriteModel {
    let spec: LiferaySinkSpec

    var serviceName: String { "bookmark" }
    var idField: String { "entryId" }
    var updatesNeedLookup: Bool { false }

    func row(_ value: JSONValue, line: Int) throws(RowRejection) -> BookmarkRow {
        try BookmarkRowValidator.row(value, line: line, spec: spec)
    }

    func addCommand(_ row: BookmarkRow) -> JSONWSCommand {
        ("/bookmarks.bookmarksentry/add-entry", row.parameters())
    }

    func updateCommand(_ row: BookmarkRow, _ found: FoundEntry) -> JSONWSCommand {
        ("/bookmarks.bookmarksentry/update-entry", row.parameters(entryId: found.id))
    }

    func id(ofResult result: JSONValue) -> Int64? { result["entryId"]?.int64Value }

    /// A delete goes in a request of its own: the portal's refusal (NoSuchEntryException
    /// for an entry deleted meanwhile) is then its own, never read as "done" by a lookup.
    func sendsAlone(_ row: BookmarkRow) -> Bool { row.deletes }

    /// `delete-entry(entryId)` (the Mobile SDK's `BookmarksEntryService.deleteEntry`).
    func removal(_ row: BookmarkRow) -> EntryRemoval? {
        row.deletes ? EntryRemoval(service: "/bookmarks.bookmarksentry/delete-entry", idParameter: "entryId") : nil
    }

    /// One `get-entries` per folder of `rows`.
    func lookup(_ rows: [BookmarkRow], transport: JSONWSBookmarkTransport) async throws(ScreensPipeError) -> [String: FoundEntry]? {
        var found: [String: FoundEntry] = [:]
        var folders: Set<Int64> = []
        for row in rows where folders.insert(row.folderId).inserted {
            var params = JSONObject()
            params["groupId"] = .int(row.groupId)
            params["folderId"] = .int(row.folderId)
            params["start"] = .int(-1)
            params["end"] = .int(-1)
            let entries: [JSONValue]
            do throws(ScreensPipeError) {
                entries = try await transport.read(("/bookmarks.bookmarksentry/get-entries", params), what: "the entries of folder \(row.folderId)").arrayValue ?? []
            } catch where error.isRefusedRead {
                // The portal refuses to list the folder (it does not exist, or the user may
                // not see it): nothing was created in it. Sent alone, each row gets the
                // portal's own reason.
                continue
            }
            for entry in entries {
                guard let entryId = entry["entryId"]?.int64Value else { continue }
                let stored = BookmarkRow(
                    line: 0, groupId: row.groupId, folderId: entry["folderId"]?.int64Value ?? row.folderId,
                    name: entry["name"]?.stringValue ?? "", url: entry["url"]?.stringValue ?? "",
                    description: entry["description"]?.stringValue ?? "", key: "", legacyKey: "")
                // The first entry with a key wins, as a portal lists the oldest first.
                let key = BookmarkRowValidator.key(of: stored, fields: spec.key)
                if found[key] == nil { found[key] = FoundEntry(id: entryId, content: stored.content, remote: entry) }
            }
        }
        return found
    }

    func details(_ row: BookmarkRow) -> JSONObject {
        var details: JSONObject = ["url": .string(row.url), "folderId": .int(row.folderId)]
        if row.deletes { details["op"] = "delete" }
        return details
    }

    func inputText(_ row: BookmarkRow) -> String {
        if row.deletes { return JSONValue.object(["op": "delete", "url": .string(row.url), "folderId": .int(row.folderId)]).jsonString }
        return JSONValue.object(["name": .string(row.name), "url": .string(row.url), "description": .string(row.description), "folderId": .int(row.folderId)]).jsonString
    }
}
