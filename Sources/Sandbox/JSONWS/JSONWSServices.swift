import ScreensJSON

/// The JSON-WS actions the sandbox serves, by path.
///
/// Which overload a command invokes is decided before an action runs (``JSONWSActionMatcher``
/// against ``JSONWSSignatures``); an action gets only the parameters of that overload, so a
/// parameter the overload does not declare (a `start` sent to `get-articles(groupId, folderId)`)
/// has no effect, as on a portal. A path listed in the signatures but not here answers like an
/// unknown action.
enum JSONWSServices {
    typealias Action = @Sendable (Portal, ServiceParameters, Account) throws -> JSONValue

    static let actions: [String: Action] = [
        "/bookmarks.bookmarksentry/get-entries": { portal, params, account in
            let rows = try portal.bookmarks(
                groupId: try params.long("groupId"), folderId: try params.long("folderId"), for: account)
            let sorted = try comparatorClass(params).map { try BookmarkComparator(className: $0).sorted(rows) } ?? rows
            return .array(try page(sorted, params, hideEvery: portal.hideEvery))
        },
        "/bookmarks.bookmarksentry/get-entries-count": { portal, params, account in
            let rows = try portal.bookmarks(
                groupId: try params.long("groupId"), folderId: try params.long("folderId"), for: account)
            return .int(Int64(try withStatus(rows, params).count))
        },
        "/bookmarks.bookmarksfolder/get-folders": { portal, params, account in
            let folders = try portal.bookmarkFolders(
                groupId: try params.long("groupId"), parentFolderId: try params.long("parentFolderId", default: -1),
                for: account)
            return .array(try page(try withStatus(.stored(folders), params), params, hideEvery: nil))
        },
        "/bookmarks.bookmarksfolder/get-folders-count": { portal, params, account in
            let folders = try portal.bookmarkFolders(
                groupId: try params.long("groupId"), parentFolderId: try params.long("parentFolderId"), for: account)
            return .int(Int64(try withStatus(.stored(folders), params).count))
        },
        "/journal.journalarticle/get-articles": { portal, params, account in
            let articles = try portal.articles(
                groupId: try params.long("groupId"), folderId: try params.long("folderId"),
                sort: try comparator(params), for: account)
            return .array(try page(.stored(articles.map(\.row)), params, hideEvery: portal.hideEvery))
        },
        "/journal.journalarticle/get-articles-count": { portal, params, account in
            let articles = try portal.articles(
                groupId: try params.long("groupId"), folderId: try params.long("folderId"), sort: nil, for: account)
            return .int(Int64(try withStatus(.stored(articles.map(\.row)), params).count))
        },
        "/screens.screensassetentry/get-asset-entries": { portal, params, account in
            if params.values["portletItemName"] != nil { return try PortletItemService.assetEntries(portal, params, account) }
            let (query, rows) = try assets(portal, params, "assetEntryQuery", account)
            let start = try query.long("start", default: LiferayRange.allPositions)
            let end = try query.long("end", default: LiferayRange.allPositions)
            let range = LiferayRange.range(start: start, end: end, count: rows.count)
            return .array(RowList.stored(rows).page(range, hideEvery: portal.hideEvery))
        },
        "/assetentry/get-entries-count": { portal, params, account in
            .int(Int64(try assets(portal, params, "entryQuery", account).rows.count))
        },
        "/screens.screensddlrecord/get-ddl-records": { portal, params, account in
            let records = try portal.records(
                recordSetId: try params.long("ddlRecordSetId"), userId: try userId(params), for: account)
            return .array(try page(.stored(records), params, hideEvery: portal.hideEvery))
        },
        "/screens.screensddlrecord/get-ddl-records-count": { portal, params, account in
            let records = try portal.records(
                recordSetId: try params.long("ddlRecordSetId"), userId: try userId(params), for: account)
            return .int(Int64(records.count))
        },
    ]

    /// Slices a list by the command's `start`/`end`; an overload without them returns every row.
    private static func page(_ rows: RowList, _ params: ServiceParameters, hideEvery: Int?) throws -> [JSONValue] {
        let start = try params.long("start", default: LiferayRange.allPositions)
        let end = try params.long("end", default: LiferayRange.allPositions)
        return rows.page(LiferayRange.range(start: start, end: end, count: rows.count), hideEvery: hideEvery)
    }

    /// The rows whose workflow `status` is the command's (`-1`, WorkflowConstants.STATUS_ANY,
    /// or an overload without `status`: every row).
    private static func withStatus(_ rows: RowList, _ params: ServiceParameters) throws -> RowList {
        let status = try params.long("status", default: -1)
        guard status != -1, case .stored(let stored) = rows else { return rows }
        return .stored(stored.filter { ($0["status"]?.int64Value ?? 0) == status })
    }

    /// `+obc` (journal 7.0-7.2) or `+orderByComparator` (journal 7.3+, bookmarks): `"<class>"`;
    /// `null` or absent keeps the stored order. Inner parameters (`obc.ascending`) are
    /// accepted and have no effect, as on a portal (see ``ArticleComparator``).
    private static func comparatorClass(_ params: ServiceParameters) -> String? {
        (params.object("obc") ?? params.object("orderByComparator"))?.className
    }

    private static func comparator(_ params: ServiceParameters) throws -> ArticleComparator? {
        try comparatorClass(params).map { try ArticleComparator(className: $0) }
    }

    /// The `AssetEntryQuery` object parameter `name` and the rows it selects.
    private static func assets(
        _ portal: Portal, _ params: ServiceParameters, _ name: String, _ account: Account
    ) throws -> (query: ServiceParameters, rows: [JSONValue]) {
        guard let query = params.object(name) else { throw PortalError.missingParameter(name) }
        let rows = try portal.assets(
            classNameIds: try query.fields.longs("classNameIds"), groupIds: try query.fields.longs("groupIds"),
            visible: try query.fields.bool("visible"), for: account)
        return (query.fields, rows)
    }

    private static func userId(_ params: ServiceParameters) throws -> Int64? {
        let userId = try params.long("userId", default: 0)
        return userId == 0 ? nil : userId
    }
}
