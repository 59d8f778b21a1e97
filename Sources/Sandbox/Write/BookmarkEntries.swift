import ScreensJSON
import Synchronization

/// The portal's bookmarks as they change: the data directory's entries, plus those that
/// `add-entry` created and `update-entry` changed while the sandbox runs.
///
/// Every list request reads from here, so a written entry is in the next `get-entries`
/// page and counted by `get-entries-count`. One lock holds the whole table: entries are a
/// few hundred rows of sample data plus what a test writes.
final class BookmarkEntries: Sendable {
    /// A folder of a site.
    private struct FolderKey: Hashable, Sendable {
        var groupId: Int64
        var folderId: Int64
    }

    private struct Table: Sendable {
        /// Entries by folder, in creation order. One level of dictionary, so appending to a
        /// folder's array happens in place rather than copying it for every write.
        var byFolder: [FolderKey: [JSONValue]]
        /// Where each entry lives, for `update-entry`.
        var location: [Int64: (groupId: Int64, folderId: Int64)]
        var nextEntryId: Int64
        /// The last modified date handed out, so two writes in one millisecond still differ.
        var lastModified: Int64
    }

    /// Ids of written entries start here, far above the sample data's.
    static let firstWrittenEntryId: Int64 = 5_000_000
    private let table: Mutex<Table>

    init(_ stored: [Int64: [Int64: [JSONValue]]]) {
        var location: [Int64: (groupId: Int64, folderId: Int64)] = [:]
        var byFolder: [FolderKey: [JSONValue]] = [:]
        for (groupId, folders) in stored {
            for (folderId, rows) in folders {
                byFolder[FolderKey(groupId: groupId, folderId: folderId)] = rows
                for row in rows { if let id = row["entryId"]?.int64Value { location[id] = (groupId, folderId) } }
            }
        }
        table = Mutex(Table(byFolder: byFolder, location: location, nextEntryId: Self.firstWrittenEntryId, lastModified: 0))
    }

    /// The entries of one folder, in creation order.
    func rows(groupId: Int64, folderId: Int64) -> [JSONValue] {
        table.withLock { $0.byFolder[FolderKey(groupId: groupId, folderId: folderId)] ?? [] }
    }

    /// Replaces a folder's entries with `rows` (the changes endpoint edits a folder as a
    /// whole), keeping what writes did to other folders.
    func replaceRows(groupId: Int64, folderId: Int64, with rows: [JSONValue]) {
        table.withLock { table in
            let key = FolderKey(groupId: groupId, folderId: folderId)
            for row in table.byFolder[key] ?? [] { if let id = row["entryId"]?.int64Value { table.location[id] = nil } }
            table.byFolder[key] = rows
            for row in rows { if let id = row["entryId"]?.int64Value { table.location[id] = (groupId, folderId) } }
        }
    }

    /// Creates an entry from validated values and returns it as JSON-WS serves it.
    func add(_ values: BookmarkValues, account: Account, now: Int64) -> JSONValue {
        table.withLock { table in
            let entryId = table.nextEntryId
            table.nextEntryId += 1
            let date = Self.nextDate(&table, now: now)
            let row = Self.row(entryId: entryId, values: values, account: account, created: date, modified: date, visits: 0)
            table.byFolder[FolderKey(groupId: values.groupId, folderId: values.folderId), default: []].append(row)
            table.location[entryId] = (values.groupId, values.folderId)
            return row
        }
    }

    /// Changes an existing entry (moving it when the folder changes); nil when no entry has `entryId`.
    func update(entryId: Int64, _ values: BookmarkValues, account: Account, now: Int64) -> JSONValue? {
        table.withLock { table in
            guard let old = table.location[entryId] else { return nil }
            let oldKey = FolderKey(groupId: old.groupId, folderId: old.folderId)
            guard let index = table.byFolder[oldKey]?.firstIndex(where: { $0["entryId"]?.int64Value == entryId }),
                let previous = table.byFolder[oldKey]?[index]
            else { return nil }
            let date = Self.nextDate(&table, now: now)
            let row = Self.row(
                entryId: entryId, values: values, account: account, created: previous["createDate"]?.int64Value ?? date,
                modified: date, visits: previous["visits"]?.int64Value ?? 0, uuid: previous["uuid"]?.stringValue)
            if old.groupId == values.groupId, old.folderId == values.folderId {
                table.byFolder[oldKey]?[index] = row
            } else {
                table.byFolder[oldKey]?.remove(at: index)
                table.byFolder[FolderKey(groupId: values.groupId, folderId: values.folderId), default: []].append(row)
                table.location[entryId] = (values.groupId, values.folderId)
            }
            return row
        }
    }

    /// Renames an entry as another user of the portal would, with a new modified date;
    /// nil when no entry has `entryId` (``SandboxEntryEdit``).
    func rename(entryId: Int64, to name: String, now: Int64) -> JSONValue? {
        table.withLock { table in
            guard let place = table.location[entryId] else { return nil }
            let key = FolderKey(groupId: place.groupId, folderId: place.folderId)
            guard let index = table.byFolder[key]?.firstIndex(where: { $0["entryId"]?.int64Value == entryId }),
                case .object(var row)? = table.byFolder[key]?[index]
            else { return nil }
            let date = Self.nextDate(&table, now: now)
            row["name"] = .string(name)
            row["modifiedDate"] = .int(date)
            table.byFolder[key]?[index] = .object(row)
            return .object(row)
        }
    }

    /// Removes an entry (`delete-entry`); false when no entry has `entryId`.
    func delete(entryId: Int64) -> Bool {
        table.withLock { table in
            guard let place = table.location.removeValue(forKey: entryId) else { return false }
            table.byFolder[FolderKey(groupId: place.groupId, folderId: place.folderId)]?.removeAll { $0["entryId"]?.int64Value == entryId }
            return true
        }
    }

    /// The group an entry belongs to, for the permission check before `update-entry`.
    func groupId(ofEntry entryId: Int64) -> Int64? {
        table.withLock { $0.location[entryId]?.groupId }
    }

    private static func nextDate(_ table: inout Table, now: Int64) -> Int64 {
        table.lastModified = max(now, table.lastModified + 1)
        return table.lastModified
    }

    /// Every BookmarksEntry column, in the order the data files and the generator use.
    private static func row(
        entryId: Int64, values: BookmarkValues, account: Account, created: Int64, modified: Int64, visits: Int64,
        uuid: String? = nil
    ) -> JSONValue {
        var row = JSONObject(minimumCapacity: 21)
        row.appendUnchecked(key: "uuid", value: .string(uuid ?? WrittenUUID.make(entryId, kind: "9000")))
        row.appendUnchecked(key: "entryId", value: .int(entryId))
        row.appendUnchecked(key: "groupId", value: .int(values.groupId))
        row.appendUnchecked(key: "companyId", value: .int(20099))
        row.appendUnchecked(key: "userId", value: .int(account.userId))
        row.appendUnchecked(key: "userName", value: .string(account.emailAddress))
        row.appendUnchecked(key: "createDate", value: .int(created))
        row.appendUnchecked(key: "modifiedDate", value: .int(modified))
        row.appendUnchecked(key: "resourceBlockId", value: .int(0))
        row.appendUnchecked(key: "folderId", value: .int(values.folderId))
        row.appendUnchecked(key: "treePath", value: .string(values.folderId == 0 ? "/" : "/\(values.folderId)/"))
        row.appendUnchecked(key: "name", value: .string(values.name))
        row.appendUnchecked(key: "url", value: .string(values.url))
        row.appendUnchecked(key: "description", value: .string(values.description))
        row.appendUnchecked(key: "visits", value: .int(visits))
        row.appendUnchecked(key: "priority", value: .int(0))
        row.appendUnchecked(key: "lastPublishDate", value: .null)
        row.appendUnchecked(key: "status", value: .int(0))
        row.appendUnchecked(key: "statusByUserId", value: .int(account.userId))
        row.appendUnchecked(key: "statusByUserName", value: .string(account.emailAddress))
        row.appendUnchecked(key: "statusDate", value: .int(modified))
        return .object(row)
    }

}

/// The values `add-entry` and `update-entry` store, after the portal's checks.
struct BookmarkValues: Sendable {
    var groupId: Int64
    var folderId: Int64
    var name: String
    var url: String
    var description: String
}
