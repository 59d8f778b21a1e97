import ScreensBus

/// `paginate: auto`: the paginator is read off the first page, for a user who starts from
/// a bare URL. Page 0 is asked for without paging parameters (the server's first page, of
/// the server's size); its answer decides, in this order of precedence:
///
/// 1. a `Link` header (with or without `rel="next"`): `link-header`;
/// 2. a next link or cursor field in the body (`next`, `next_url`, `links.next`,
///    `@odata.nextLink`...; `next_cursor`, `nextPageToken`...): `next-link` or `cursor`;
/// 3. page numbers with a page size (`page` with `per_page`/`pageSize`/`page_size`): `page`;
/// 4. a total row count (`total`, `totalCount`, `meta.total`...): `offset` with `offset`
///    and `limit` parameters.
///
/// Two different candidates of the same rank are ambiguous: the run stops with an error that
/// lists them, and the user writes the one meant. Every later page carries the decision in
/// its continuation, so the list is walked as a chained list (one page at a time) with all
/// of that list's checks.
enum RESTAutoPagination {
    /// The paginator chosen from page 0.
    enum Choice: Equatable {
        case linkHeader
        case nextLink(path: String)
        case cursor(param: String, path: String)
        case page(pageParam: String, sizeParam: String, lastPagePath: String?, totalPath: String?)
        case offset(totalPath: String)

        /// How the events and messages name it, as a `paginate:` value the user could write.
        var name: String {
            switch self {
            case .linkHeader: "link-header"
            case .nextLink(let path): "{ style: next-link, next-path: \(path) }"
            case .cursor(let param, let path): "{ style: cursor, cursor-path: \(path), cursor-param: \(param), size-param: null }"
            case .page(let pageParam, let sizeParam, _, _): "{ style: page, page-param: \(pageParam), size-param: \(sizeParam) }"
            case .offset: "offset"
            }
        }
    }

    static let recordsKeys = ["items", "data", "results", "records", "entries", "content", "elements", "value", "hits", "rows", "list"]
    static let nextLinkPaths = ["next", "next_url", "nextUrl", "nextLink", "next_page_url", "links.next", "_links.next.href", "paging.next", "[\"@odata.nextLink\"]"]
    /// Cursor fields and the parameter that sends each back, by the usual naming.
    static let cursorPaths: [(path: String, param: String)] = [
        ("next_cursor", "cursor"), ("nextCursor", "cursor"), ("cursor", "cursor"), ("meta.next_cursor", "cursor"),
        ("next_page_token", "page_token"), ("nextPageToken", "pageToken"), ("paging.cursors.after", "after"),
    ]
    static let pageSizeKeys = ["per_page", "pageSize", "page_size", "perPage"]
    static let lastPagePaths = ["lastPage", "last_page", "total_pages", "totalPages"]
    static let totalPaths = ["total", "totalCount", "total_count", "count", "totalResults", "total_results", "meta.total", "meta.total_count"]

    /// The rows of a body: at `records` when given, else the body itself when it is an
    /// array, else the one array under a usual name (at the top, or under `data`).
    static func rows(in body: JSONValue, records: FieldPath?) throws(ScreensPipeError) -> (rows: [JSONValue], path: String?) {
        if let records {
            guard case .array(let rows)? = records.resolve(in: body) else {
                throw .malformedResponse("expected an array of rows at '\(records)'")
            }
            return (rows, "\(records)")
        }
        if case .array(let rows) = body { return (rows, nil) }
        for key in recordsKeys {
            if case .array(let rows)? = body[key] { return (rows, key) }
        }
        if let data = body["data"], case .object = data {
            for key in recordsKeys {
                if case .array(let rows)? = data[key] { return (rows, "data.\(key)") }
            }
        }
        throw .malformedResponse(
            "paginate: auto found no array of rows in the first page (looked for the body itself and \(recordsKeys.joined(separator: ", "))); set 'records' to the path of the rows")
    }

    /// Decides the paginator from page 0's answer.
    static func choose(_ body: JSONValue, response: HTTPResponse) throws(ScreensPipeError) -> Choice {
        if !response.headers.values(for: "Link").isEmpty { return .linkHeader }
        var markers: [Choice] = []
        for path in nextLinkPaths {
            guard let value = resolve(path, in: body) else { continue }
            switch value {
            case .string(let text) where looksLikeLink(text): markers.append(.nextLink(path: path))
            case .null: markers.append(.nextLink(path: path))
            default: break
            }
        }
        for (path, param) in cursorPaths {
            guard let value = resolve(path, in: body) else { continue }
            switch value {
            case .string(let text) where !looksLikeLink(text): markers.append(.cursor(param: param, path: path))
            case .null, .int: markers.append(.cursor(param: param, path: path))
            default: break
            }
        }
        if markers.count > 1 { throw ambiguous(markers) }
        if let marker = markers.first { return marker }
        let totals = totalPaths.filter { resolve($0, in: body)?.int64Value != nil }
        if body["page"]?.int64Value != nil, let sizeKey = pageSizeKeys.first(where: { body[$0]?.int64Value != nil }) {
            let last = lastPagePaths.first { resolve($0, in: body)?.int64Value != nil }
            guard last != nil || !totals.isEmpty else {
                throw .malformedResponse(
                    "paginate: auto found page numbers (page, \(sizeKey)) but nothing that says where the list ends (\((lastPagePaths + totalPaths).joined(separator: ", "))); write the paginate style")
            }
            return .page(pageParam: "page", sizeParam: sizeKey, lastPagePath: last, totalPath: totals.first)
        }
        if totals.count > 1 { throw ambiguous(totals.map { .offset(totalPath: $0) }) }
        if let total = totals.first { return .offset(totalPath: total) }
        throw .malformedResponse(
            "paginate: auto found nothing that names the next page in the first page: no Link header, no next link (\(nextLinkPaths.joined(separator: ", "))), no cursor (\(cursorPaths.map(\.path).joined(separator: ", "))), no page numbers and no total (\(totalPaths.joined(separator: ", "))); write the paginate style")
    }

    private static func ambiguous(_ candidates: [Choice]) -> ScreensPipeError {
        let names = candidates.map { choice -> String in
            switch choice {
            case .offset(let total): "offset (total: \(total))"
            default: choice.name
            }
        }
        return .malformedResponse(
            "paginate: auto cannot decide: the first page fits \(candidates.count) paginators: \(names.joined(separator: "; ")); write the one meant as 'paginate'")
    }

    private static func looksLikeLink(_ text: String) -> Bool {
        text.hasPrefix("http://") || text.hasPrefix("https://") || text.hasPrefix("/") || text.hasPrefix("?")
    }

    static func resolve(_ path: String, in body: JSONValue) -> JSONValue? {
        guard let parsed = try? FieldPath(path) else { return nil }
        return parsed.resolve(in: body)
    }

    // MARK: - The decision, carried from page to page

    /// A later page's request, from the continuation the previous page left: the decision
    /// and where to go, as a JSON array (`["cursor", param, value]`...).
    static func request(continuation: String, firstURL: String, query: [QueryParameter]) throws(ScreensPipeError) -> HTTPRequest {
        // `[choice, kind, values...]`: the choice is for decoding; the rest is the request.
        guard let all = try? JSONValue(parsing: Array(continuation.utf8)).arrayValue, all.count >= 2,
            let kind = all[1].stringValue
        else {
            throw .configuration("paginate: auto needs the first page to decide the paginator")
        }
        let text = all.dropFirst(2).map { $0.stringValue ?? "" }
        switch (kind, text.count) {
        case ("link", 1):
            return HTTPRequest(url: URLText.resolve(text[0], against: firstURL))
        case ("query", let count) where count >= 2 && count % 2 == 0:
            var parameters = query
            for index in stride(from: 0, to: count, by: 2) { parameters.append(QueryParameter(name: text[index], value: text[index + 1])) }
            return HTTPRequest(url: URLText.appending(query: parameters, to: firstURL))
        default:
            throw .configuration("paginate: auto met a continuation it did not make")
        }
    }

    /// Page 0 (deciding) or a later page (following the decision in its continuation).
    static func decode(
        _ body: JSONValue, response: HTTPResponse, page: PageRequest, records: FieldPath?
    ) throws(ScreensPipeError) -> DecodedPage {
        let (rows, _) = try Self.rows(in: body, records: records)
        let choice: Choice
        if let previous = page.continuation, let decided = decision(in: previous) {
            choice = decided
        } else {
            choice = try choose(body, response: response)
        }
        var decoded = DecodedPage(rows: rows)
        decoded.paginator = choice.name
        switch choice {
        case .linkHeader:
            let fields = response.headers.values(for: "Link")
            if let next = LinkHeader.target(relation: "next", in: fields) {
                decoded.continuation = encode(choice, ["link", URLText.resolve(next, against: response.effectiveURL)])
            }
            if fields.isEmpty { decoded.missingContinuation = "no Link header" }
        case .nextLink(let path):
            switch resolve(path, in: body) {
            case .string(let next)? where !next.isEmpty:
                decoded.continuation = encode(choice, ["link", URLText.resolve(next, against: response.effectiveURL)])
            case nil: decoded.missingContinuation = "no '\(path)' in the body"
            default: break
            }
        case .cursor(let param, let path):
            switch resolve(path, in: body) {
            case .string(let cursor)? where !cursor.isEmpty: decoded.continuation = encode(choice, ["query", param, cursor])
            case .int(let cursor)?: decoded.continuation = encode(choice, ["query", param, String(cursor)])
            case nil: decoded.missingContinuation = "no '\(path)' in the body"
            default: break
            }
        case .page(let pageParam, let sizeParam, let lastPagePath, let totalPath):
            let number = body["page"]?.int64Value ?? 0
            let size = body[sizeParam]?.int64Value ?? Int64(rows.count)
            var more: Bool
            let total = try totalPath.map { path throws(ScreensPipeError) in try checkedTotal(at: path, in: body, page: page, rows: rows.count) }
            if let lastPagePath, let last = resolve(lastPagePath, in: body)?.int64Value {
                guard last >= 0 else {
                    throw ScreensPipeError.pagination("paginate: auto: the last page number '\(lastPagePath)' is \(last), which is negative", page: page.index)
                }
                more = number < last
            } else {
                more = Int64(page.startRow + rows.count) < (total ?? 0)
            }
            if rows.isEmpty { more = false }
            if more { decoded.continuation = encode(choice, ["query", pageParam, String(number + 1), sizeParam, String(size)]) }
            decoded.rowCount = total.map { Int($0) }
        case .offset(let totalPath):
            let total = try checkedTotal(at: totalPath, in: body, page: page, rows: rows.count)
            let next = Int64(page.startRow + rows.count)
            // The server chose page 0's size; later pages ask for the same.
            let limit = page.continuation.flatMap(limitOf) ?? Int64(rows.count)
            if next < total, !rows.isEmpty { decoded.continuation = encode(choice, ["query", "offset", String(next), "limit", String(limit)]) }
            decoded.rowCount = Int(total)
        }
        return decoded
    }

    /// The list's total at `path` in a page's body, which decides where the list ends: a
    /// total that is missing, not a whole number, negative or below the rows already received
    /// would end the list early and silently, so it is a pagination error naming the page.
    private static func checkedTotal(at path: String, in body: JSONValue, page: PageRequest, rows: Int) throws(ScreensPipeError) -> Int64 {
        let received = Int64(page.startRow + rows)
        func refuse(_ why: String) -> ScreensPipeError {
            .pagination("paginate: auto: the total '\(path)' \(why), so where the list ends is unknown", page: page.index)
        }
        guard let value = resolve(path, in: body) else { throw refuse("is missing from this page") }
        guard let total = value.int64Value else { throw refuse("is \(sanitizedServerText(value.jsonString, limit: 40)), not a whole number") }
        guard total >= 0 else { throw refuse("is \(total), which is negative") }
        guard total >= received else { throw refuse("is \(total), but \(received) rows were received through this page") }
        return total
    }

    // The continuation is `[choice, request...]`: the choice travels with every page.
    private static func encode(_ choice: Choice, _ request: [String]) -> String {
        JSONValue.array([choiceValue(choice)] + request.map(JSONValue.string)).jsonString
    }

    private static func choiceValue(_ choice: Choice) -> JSONValue {
        switch choice {
        case .linkHeader: ["link-header"]
        case .nextLink(let path): ["next-link", .string(path)]
        case .cursor(let param, let path): ["cursor", .string(param), .string(path)]
        case .page(let pageParam, let sizeParam, let last, let total):
            ["page", .string(pageParam), .string(sizeParam), last.map(JSONValue.string) ?? .null, total.map(JSONValue.string) ?? .null]
        case .offset(let total): ["offset", .string(total)]
        }
    }

    private static func decision(in continuation: String) -> Choice? {
        guard let parts = try? JSONValue(parsing: Array(continuation.utf8)).arrayValue,
            let choice = parts.first?.arrayValue, let kind = choice.first?.stringValue
        else { return nil }
        let text = choice.dropFirst().map(\.stringValue)
        switch (kind, text.count) {
        case ("link-header", 0): return .linkHeader
        case ("next-link", 1): return text[0].map { .nextLink(path: $0) }
        case ("cursor", 2): return text[0].flatMap { param in text[1].map { .cursor(param: param, path: $0) } }
        case ("page", 4): return text[0].flatMap { pageParam in text[1].map { .page(pageParam: pageParam, sizeParam: $0, lastPagePath: text[2], totalPath: text[3]) } }
        case ("offset", 1): return text[0].map { .offset(totalPath: $0) }
        default: return nil
        }
    }

    private static func limitOf(_ continuation: String) -> Int64? {
        guard let parts = try? JSONValue(parsing: Array(continuation.utf8)).arrayValue else { return nil }
        let text = parts.compactMap(\.stringValue)
        guard let index = text.firstIndex(of: "limit"), index + 1 < text.count else { return nil }
        return Int64(text[index + 1])
    }
}
