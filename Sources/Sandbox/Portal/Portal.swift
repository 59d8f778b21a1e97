import ScreensJSON

/// The portal's queries, shared by the JSON-WS, headless and REST endpoints, with Liferay's
/// existence and permission checks.
struct Portal: Sendable {
    let data: PortalData
    /// The generated bookmarks folder, when the generator is on.
    let generated: GeneratedBookmarks?
    let hideEvery: Int?
    /// Bookmarks as they stand now: the data files' plus what writes changed.
    let entries: BookmarkEntries
    /// Web content as writes left it, over the data files' articles.
    var written = WrittenArticles()
    /// DDL records as writes left them, over the data files' records.
    var writtenRecords = WrittenRecords()

    /// Every article: the data files' with the written changes, then the written ones.
    var allArticles: [Article] { written.merged(data.articles) }

    /// Checks that the site exists (404) and that `account` may see it (403).
    func checkGroup(_ groupId: Int64, for account: Account) throws {
        guard data.sites[groupId] != nil else { throw PortalError.noSuchGroup(groupId) }
        guard account.canView(groupId: groupId) else {
            throw PortalError.mustHaveViewPermission(userId: account.userId, groupId: groupId)
        }
    }

    /// The bookmarks of a folder (`0` is the site's root folder) that `account` may view.
    func bookmarks(groupId: Int64, folderId: Int64, for account: Account) throws -> RowList {
        try checkGroup(groupId, for: account)
        if let generated, groupId == GeneratedBookmarks.groupId, folderId == GeneratedBookmarks.folderId {
            return .generated(generated)
        }
        if folderId != 0 {
            guard let folder = data.bookmarkFolders[folderId], folder.groupId == groupId else {
                throw PortalError.noSuchBookmarksFolder(folderId)
            }
        }
        let rows = entries.rows(groupId: groupId, folderId: folderId)
        if account.hiddenEntryIds.isEmpty { return .stored(rows) }
        return .stored(rows.filter { row in !account.hiddenEntryIds.contains(row["entryId"]?.int64Value ?? 0) })
    }

    /// The bookmark folders of a site: the children of `parentFolderId`, or every folder when it is -1.
    func bookmarkFolders(groupId: Int64, parentFolderId: Int64, for account: Account) throws -> [JSONValue] {
        try checkGroup(groupId, for: account)
        return data.bookmarkFolderList.filter { folder in
            folder.groupId == groupId && (parentFolderId == -1 || folder.parentFolderId == parentFolderId)
        }.map(\.row)
    }

    /// The web content articles of a folder, optionally sorted.
    func articles(groupId: Int64, folderId: Int64, sort: ArticleComparator?, for account: Account) throws -> [Article] {
        try checkGroup(groupId, for: account)
        if folderId != 0 {
            guard let folder = data.journalFolders[folderId], folder.groupId == groupId else {
                throw PortalError.noSuchJournalFolder(folderId)
            }
        }
        let articles = allArticles.filter { $0.groupId == groupId && $0.folderId == folderId }
        return sort.map { articles.sorted(by: $0.areInIncreasingOrder) } ?? articles
    }

    /// Every article of a site, in every folder (headless structured contents).
    func articles(siteId: Int64, for account: Account) throws -> [Article] {
        try checkGroup(siteId, for: account)
        return allArticles.filter { $0.groupId == siteId }
    }

    /// The asset entries an `AssetEntryQuery` selects; without `groupIds`, all sites the user sees.
    func assets(classNameIds: [Int64]?, groupIds: [Int64]?, visible: Bool?, for account: Account) throws -> [JSONValue] {
        for groupId in groupIds ?? [] { try checkGroup(groupId, for: account) }
        let groups = groupIds.map(Set.init) ?? account.groupIds
        let classes = classNameIds.map(Set.init)
        return data.assets.filter { asset in
            groups.contains(asset.groupId) && (classes?.contains(asset.classNameId) ?? true)
                && (visible.map { $0 == asset.visible } ?? true)
        }.map(\.row)
    }

    /// The records of a dynamic data list, optionally only those a user created.
    func records(recordSetId: Int64, userId: Int64?, for account: Account) throws -> [JSONValue] {
        guard let set = data.recordSets[recordSetId] else { throw PortalError.noSuchRecordSet(recordSetId) }
        try checkGroup(set.groupId, for: account)
        let records = writtenRecords.merged(recordSetId: recordSetId, data.records[recordSetId] ?? [])
        guard let userId else { return records }
        return records.filter { $0["modelAttributes"]?["userId"]?.int64Value == userId }
    }
}
