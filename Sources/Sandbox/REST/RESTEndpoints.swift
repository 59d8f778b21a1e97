// A plain import: SwiftPM's generated resource accessor imports Foundation publicly.
import Foundation
import ScreensJSON

/// The generic REST family: one list served with each pagination style a `rest` source knows.
///
/// `GET /rest/{dataset}/{style}` where dataset is `bookmarks` (group 20143, folder 0, as
/// test@liferay.com sees it), `bookmarks-with-trash` (the same, then the tombstones of the
/// rows `POST /_sandbox/changes` deleted) or `generated` (the generator's rows), and style is one of
/// `offset`, `pages`, `cursor`, `next-link` and `link-header`, or one of the shapes of
/// real paged APIs, each ending its list as its protocol says (RESTProtocolShapes.swift):
/// `github`, `odata`, `hal`, `stripe`, `has-more`, `header-cursor` and `string-total`.
struct RESTEndpoints: Sendable {
    static let pathPrefix = "/rest/"
    static let defaultLimit = 25
    static let maximumLimit = 10_000

    let portal: Portal
    /// Tombstones of deleted bookmarks, served after the live rows by `bookmarks-with-trash`.
    var trash: [JSONValue] = []

    func respond(to request: SandboxRequest, baseURL: String) -> SandboxResponse {
        let parts = request.path.dropFirst(Self.pathPrefix.count).split(separator: "/")
        guard parts.count == 2, var rows = dataset(parts[0]) else {
            return .json(404, ["error": .string("No REST collection at \(request.path)")])
        }
        if let since = request.query["modified-since"] {
            switch ModifiedSince.filter(rows, since: since) {
            case .success(let kept): rows = kept
            case .failure(let error): return .json(400, ["error": .string(error.message)])
            }
        }
        let style = parts[1]
        let link = "\(baseURL)\(Self.pathPrefix)\(parts[0])/\(style)"
        do throws(InvalidQueryParameter) {
            switch style {
            case "offset": return try offset(rows, request.query)
            case "pages": return try pages(rows, request.query)
            case "cursor": return try cursor(rows, request.query)
            case "next-link": return try nextLink(rows, request.query, link: link)
            case "link-header": return try linkHeader(rows, request.query, link: link)
            case "github": return try github(rows, request.query, link: link)
            case "odata": return try odata(rows, request, link: link)
            case "hal": return try hal(rows, request.query, link: link)
            case "stripe": return try stripe(rows, request.query)
            case "has-more": return try hasMore(rows, request.query)
            case "header-cursor": return try headerCursor(rows, request.query)
            case "string-total": return try stringTotal(rows, request.query)
            default: return .json(404, ["error": .string("No REST pagination style \(style)")])
            }
        } catch {
            return .json(400, ["error": .string("Invalid value \"\(error.value)\" for query parameter \(error.name)")])
        }
    }

    func dataset(_ name: Substring) -> RowList? {
        switch name {
        case "bookmarks": return .stored(portal.entries.rows(groupId: 20143, folderId: 0))
        case TrashedBookmarks.dataset: return .stored(portal.entries.rows(groupId: 20143, folderId: 0) + trash)
        case "generated": return portal.generated.map(RowList.generated)
        default: return nil
        }
    }

    /// `?offset=0&limit=25` -> `{"data":{"records":[...]},"meta":{"total":73,"offset":0,"limit":25}}`.
    private func offset(_ rows: RowList, _ query: QueryString) throws(InvalidQueryParameter) -> SandboxResponse {
        let offset = try nonNegative(query, "offset", default: 0)
        let limit = try self.limit(query, "limit")
        let records = rows.page(offset..<(offset + limit), hideEvery: portal.hideEvery)
        return .json(200, [
            "data": ["records": .array(records)],
            "meta": ["total": .int(Int64(rows.count)), "offset": .int(Int64(offset)), "limit": .int(Int64(limit))],
        ])
    }

    /// `?page=1&per_page=25` -> `{"items":[...],"page":1,"per_page":25,"total":73,"total_pages":3}`.
    private func pages(_ rows: RowList, _ query: QueryString) throws(InvalidQueryParameter) -> SandboxResponse {
        let (page, perPage, range) = try pageRange(rows, query)
        return .json(200, [
            "items": .array(rows.page(range, hideEvery: portal.hideEvery)),
            "page": .int(Int64(page)),
            "per_page": .int(Int64(perPage)),
            "total": .int(Int64(rows.count)),
            "total_pages": .int(Int64((rows.count + perPage - 1) / perPage)),
        ])
    }

    /// `?limit=25&cursor=...` -> `{"results":[...],"next_cursor":"..."}`; `next_cursor` is null on the last page.
    private func cursor(_ rows: RowList, _ query: QueryString) throws(InvalidQueryParameter) -> SandboxResponse {
        let limit = try self.limit(query, "limit")
        let offset = try cursorOffset(query, "cursor")
        let end = min(rows.count, offset + limit)
        return .json(200, [
            "results": .array(rows.page(offset..<end, hideEvery: portal.hideEvery)),
            "next_cursor": end < rows.count ? .string(Self.encodeCursor(end)) : .null,
        ])
    }

    /// `?limit=25&after=50` -> `{"items":[...],"next":"http://.../next-link?limit=25&after=75"}`; `next` is null at the end.
    private func nextLink(_ rows: RowList, _ query: QueryString, link: String) throws(InvalidQueryParameter) -> SandboxResponse {
        let limit = try self.limit(query, "limit")
        let after = try nonNegative(query, "after", default: 0)
        let end = min(rows.count, after + limit)
        return .json(200, [
            "items": .array(rows.page(after..<end, hideEvery: portal.hideEvery)),
            "next": end < rows.count ? .string("\(link)?limit=\(limit)&after=\(end)") : .null,
        ])
    }

    /// `?page=1&per_page=25` -> a bare array, with `Link: <...>; rel="next"` (and first/prev/last) and `X-Total-Count`.
    private func linkHeader(_ rows: RowList, _ query: QueryString, link: String) throws(InvalidQueryParameter) -> SandboxResponse {
        let (page, perPage, range) = try pageRange(rows, query)
        let lastPage = max(1, (rows.count + perPage - 1) / perPage)
        func url(_ page: Int) -> String { "<\(link)?page=\(page)&per_page=\(perPage)>" }
        var links = ["\(url(1)); rel=\"first\""]
        if page > 1 { links.append("\(url(page - 1)); rel=\"prev\"") }
        if page < lastPage { links.append("\(url(page + 1)); rel=\"next\"") }
        links.append("\(url(lastPage)); rel=\"last\"")
        return .json(
            200, .array(rows.page(range, hideEvery: portal.hideEvery)),
            headers: [("Link", links.joined(separator: ", ")), ("X-Total-Count", String(rows.count))])
    }

    func pageRange(_ rows: RowList, _ query: QueryString) throws(InvalidQueryParameter) -> (Int, Int, Range<Int>) {
        let page = try nonNegative(query, "page", default: 1)
        guard page >= 1 else { throw InvalidQueryParameter(name: "page", value: String(page)) }
        let perPage = try limit(query, "per_page")
        let (first, overflow) = (page - 1).multipliedReportingOverflow(by: perPage)
        let range = overflow || first >= rows.count ? 0..<0 : first..<min(rows.count, first + perPage)
        return (page, perPage, range)
    }

    func limit(_ query: QueryString, _ name: String) throws(InvalidQueryParameter) -> Int {
        let limit = try query.integer(name) ?? Self.defaultLimit
        guard (1...Self.maximumLimit).contains(limit) else { throw InvalidQueryParameter(name: name, value: String(limit)) }
        return limit
    }

    func nonNegative(_ query: QueryString, _ name: String, default defaultValue: Int) throws(InvalidQueryParameter) -> Int {
        let value = try query.integer(name) ?? defaultValue
        guard value >= 0, value <= Int(Int32.max) else { throw InvalidQueryParameter(name: name, value: String(value)) }
        return value
    }

    /// The offset an opaque cursor parameter stands for; 0 without one.
    func cursorOffset(_ query: QueryString, _ name: String) throws(InvalidQueryParameter) -> Int {
        guard let cursor = query[name] else { return 0 }
        guard let offset = Self.decodeCursor(cursor) else { throw InvalidQueryParameter(name: name, value: cursor) }
        return offset
    }

    /// Cursors are opaque to clients (base64 of `offset:N`), as real cursor APIs make them.
    static func encodeCursor(_ offset: Int) -> String {
        Data("offset:\(offset)".utf8).base64EncodedString()
    }

    static func decodeCursor(_ cursor: String) -> Int? {
        guard let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8),
            text.hasPrefix("offset:"), let offset = Int(text.dropFirst(7)), offset >= 0
        else { return nil }
        return offset
    }
}
