import ScreensJSON

/// One list served as real paged APIs serve theirs, each ending it as its protocol or its
/// documentation says, so that a client is tested against those endings rather than ours:
///
/// - `github`: `?page=&per_page=`, a bare array; the `Link` header carries `next` and `last`
///   while pages follow, `prev` and `first` only on the last page, and is left out when the
///   list fits one page (GitHub REST API docs, "Using pagination in the REST API").
/// - `odata`: server-driven paging (OData v4 Protocol §11.2.5.7): `value` holds the rows,
///   `@odata.nextLink` (with a `$skiptoken`) names the next page and is left out of the last;
///   `Prefer: odata.maxpagesize=N` sets the size, `$count=true` adds `@odata.count`.
/// - `hal`: Spring Data REST: `?page=&size=` from 0, rows in `_embedded.bookmarks`,
///   `_links.next` left out of the last page, `page` with `totalElements` and `totalPages`.
/// - `stripe`: `?limit=&starting_after=<id>` (the last row's `entryId`), `{"object":"list",
///   "data":[...],"has_more":...}` (Stripe API docs, "Pagination").
/// - `has-more`: `?offset=&limit=` with `meta.has_next` and no total; rows hidden by
///   permission (`hide-every`) make short pages mid-list, so only the flag ends the list.
/// - `header-cursor`: `?limit=&cursor=`, a bare array, the next cursor in `X-Next-Cursor`,
///   left out of the last page.
/// - `string-total`: the `offset` shape with the total quoted (`"total":"73"`).
extension RESTEndpoints {
    func github(_ rows: RowList, _ query: QueryString, link: String) throws(InvalidQueryParameter) -> SandboxResponse {
        let (page, perPage, range) = try pageRange(rows, query)
        let lastPage = max(1, (rows.count + perPage - 1) / perPage)
        func url(_ page: Int, _ rel: String) -> String { "<\(link)?per_page=\(perPage)&page=\(page)>; rel=\"\(rel)\"" }
        var links: [String] = []
        if page > 1 { links += [url(page - 1, "prev")] }
        if page < lastPage { links += [url(page + 1, "next"), url(lastPage, "last")] }
        if page > 1 { links += [url(1, "first")] }
        let body = JSONValue.array(rows.page(range, hideEvery: portal.hideEvery))
        return .json(200, body, headers: links.isEmpty ? [] : [("Link", links.joined(separator: ", "))])
    }

    func odata(_ rows: RowList, _ request: SandboxRequest, link: String) throws(InvalidQueryParameter) -> SandboxResponse {
        var size = Self.defaultLimit
        if let prefer = request.headers["prefer"], let range = prefer.range(of: "odata.maxpagesize=") {
            let digits = prefer[range.upperBound...].prefix { $0.isNumber }
            guard let number = Int(digits), (1...Self.maximumLimit).contains(number) else {
                throw InvalidQueryParameter(name: "Prefer", value: prefer)
            }
            size = number
        }
        let start = try cursorOffset(request.query, "$skiptoken")
        let end = min(rows.count, start + size)
        var body: JSONObject = ["@odata.context": .string("\(link)/$metadata#Bookmarks")]
        if request.query["$count"] == "true" { body["@odata.count"] = .int(Int64(rows.count)) }
        body["value"] = .array(rows.page(start..<max(start, end), hideEvery: portal.hideEvery))
        if end < rows.count { body["@odata.nextLink"] = .string("\(link)?$skiptoken=\(Self.encodeCursor(end))") }
        return .json(200, .object(body), headers: [("OData-Version", "4.0")])
    }

    func hal(_ rows: RowList, _ query: QueryString, link: String) throws(InvalidQueryParameter) -> SandboxResponse {
        let number = try nonNegative(query, "page", default: 0)
        let size = try limit(query, "size")
        let (first, overflow) = number.multipliedReportingOverflow(by: size)
        let range = overflow || first >= rows.count ? 0..<0 : first..<min(rows.count, first + size)
        let totalPages = (rows.count + size - 1) / size
        func href(_ page: Int) -> JSONValue { ["href": .string("\(link)?page=\(page)&size=\(size)")] }
        var links: JSONObject = ["first": href(0), "self": href(number)]
        if number > 0 { links["prev"] = href(number - 1) }
        if number + 1 < totalPages { links["next"] = href(number + 1) }
        links["last"] = href(max(0, totalPages - 1))
        return .json(200, [
            "_embedded": ["bookmarks": .array(rows.page(range, hideEvery: portal.hideEvery))],
            "_links": .object(links),
            "page": ["size": .int(Int64(size)), "totalElements": .int(Int64(rows.count)), "totalPages": .int(Int64(totalPages)), "number": .int(Int64(number))],
        ], headers: [("Content-Type", "application/hal+json")])
    }

    func stripe(_ rows: RowList, _ query: QueryString) throws(InvalidQueryParameter) -> SandboxResponse {
        let limit = try self.limit(query, "limit")
        var start = 0
        if let after = query["starting_after"] {
            guard let position = (0..<rows.count).first(where: { rows[$0]["entryId"]?.int64Value.map(String.init) == after }) else {
                return .json(404, ["error": ["type": "invalid_request_error", "message": .string("No such object: '\(after)'")]])
            }
            start = position + 1
        }
        let end = min(rows.count, start + limit)
        return .json(200, [
            "object": "list", "url": "/rest/bookmarks/stripe",
            "has_more": .bool(end < rows.count),
            "data": .array(rows.page(start..<max(start, end), hideEvery: nil)),
        ])
    }

    func hasMore(_ rows: RowList, _ query: QueryString) throws(InvalidQueryParameter) -> SandboxResponse {
        let offset = try nonNegative(query, "offset", default: 0)
        let limit = try self.limit(query, "limit")
        let end = min(rows.count, offset + limit)
        return .json(200, [
            "items": .array(rows.page(offset..<(offset + limit), hideEvery: portal.hideEvery)),
            "meta": ["has_next": .bool(end < rows.count), "offset": .int(Int64(offset)), "limit": .int(Int64(limit))],
        ])
    }

    func headerCursor(_ rows: RowList, _ query: QueryString) throws(InvalidQueryParameter) -> SandboxResponse {
        let limit = try self.limit(query, "limit")
        let start = try cursorOffset(query, "cursor")
        let end = min(rows.count, start + limit)
        let body = JSONValue.array(rows.page(start..<max(start, end), hideEvery: portal.hideEvery))
        return .json(200, body, headers: end < rows.count ? [("X-Next-Cursor", Self.encodeCursor(end))] : [])
    }

    func stringTotal(_ rows: RowList, _ query: QueryString) throws(InvalidQueryParameter) -> SandboxResponse {
        let offset = try nonNegative(query, "offset", default: 0)
        let limit = try self.limit(query, "limit")
        return .json(200, [
            "data": ["records": .array(rows.page(offset..<(offset + limit), hideEvery: portal.hideEvery))],
            "meta": ["total": .string(String(rows.count)), "offset": .int(Int64(offset)), "limit": .int(Int64(limit))],
        ])
    }
}
