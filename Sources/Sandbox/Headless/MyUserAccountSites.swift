import ScreensJSON

/// `GET /o/headless-admin-user/v1.0/my-user-account/sites?page=1&pageSize=20`: the sites the
/// signed-in user is a member of, as a page of headless-admin-user `Site` items (7.2+).
struct MyUserAccountSites: Sendable {
    static let path = "/o/headless-admin-user/v1.0/my-user-account/sites"

    let portal: Portal

    func page(query: QueryString, account: Account) throws -> JSONValue {
        let page = try HeadlessPaging.positive(query, "page", default: 1)
        let pageSize = try HeadlessPaging.positive(query, "pageSize", default: 20)
        let sites = portal.data.sites.values.filter { account.canView(groupId: $0.groupId) }.sorted { $0.groupId < $1.groupId }
        let items = HeadlessPaging.range(page: page, pageSize: pageSize, count: sites.count).map { index -> JSONValue in
            let site = sites[index]
            return [
                "availableLanguages": ["en-US", "es-ES"],
                "description": "",
                "descriptiveName": .string(site.name),
                "friendlyUrlPath": .string(site.friendlyURL),
                "id": .int(site.groupId),
                "key": .string(site.name),
                "membershipType": "open",
                "name": .string(site.name),
                "parentSiteId": 0,
                "sites": [],
            ]
        }
        return HeadlessPaging.body(items: items, page: page, pageSize: pageSize, totalCount: sites.count)
    }
}
