import ScreensBus

/// The JSON-WS actions the sandbox serves, by path.
enum JSONWSServices {
    typealias Action = @Sendable (Portal, ServiceParameters, Account) throws -> JSONValue

    static let actions: [String: Action] = [
        "/bookmarks.bookmarksentry/get-entries": { portal, params, account in
            let rows = try portal.bookmarks(
                groupId: try params.long("groupId"), folderId: try params.long("folderId"), for: account)
            return .array(try page(rows, params, hideEvery: portal.hideEvery))
        },
        "/bookmarks.bookmarksentry/get-entries-count": { portal, params, account in
            let rows = try portal.bookmarks(
                groupId: try params.long("groupId"), folderId: try params.long("folderId"), for: account)
            return .int(Int64(rows.count))
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
            return .int(Int64(articles.count))
        },
        "/screens.screensassetentry/get-asset-entries": { portal, params, account in
            if params.values["portletItemName"] != nil { return try PortletItemService.assetEntries(portal, params, account) }
            let (query, rows) = try assets(portal, params, account)
            let start = try query.long("start", default: try params.long("start", default: LiferayRange.allPositions))
            let end = try query.long("end", default: try params.long("end", default: LiferayRange.allPositions))
            let range = LiferayRange.range(start: start, end: end, count: rows.count)
            return .array(RowList.stored(rows).page(range, hideEvery: portal.hideEvery))
        },
        "/assetentry/get-entries-count": { portal, params, account in
            .int(Int64(try assets(portal, params, account).rows.count))
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

    /// Slices a list by the command's `start`/`end` (default: all rows).
    private static func page(_ rows: RowList, _ params: ServiceParameters, hideEvery: Int?) throws -> [JSONValue] {
        let start = try params.long("start", default: LiferayRange.allPositions)
        let end = try params.long("end", default: LiferayRange.allPositions)
        return rows.page(LiferayRange.range(start: start, end: end, count: rows.count), hideEvery: hideEvery)
    }

    /// `+obc: "<class>"` (with optional `obc.ascending`), or `obc: null` / absent for the stored order.
    private static func comparator(_ params: ServiceParameters) throws -> ArticleComparator? {
        guard let obc = params.object("obc"), let className = obc.className else { return nil }
        return try ArticleComparator(className: className, ascending: try obc.fields.bool("ascending") ?? true)
    }

    /// The entry query of the screens asset service (`entryQuery` or `assetEntryQuery`) and its rows.
    private static func assets(
        _ portal: Portal, _ params: ServiceParameters, _ account: Account
    ) throws -> (query: ServiceParameters, rows: [JSONValue]) {
        guard let query = params.object("entryQuery") ?? params.object("assetEntryQuery") else {
            throw PortalError.missingParameter("entryQuery")
        }
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
