import ScreensBus

/// `paginate: auto`: the paginator is read off the first page, for a user who starts from
/// a bare URL. Page 0 is asked for without paging parameters (the server's first page, of
/// the server's size); its answer decides, in this order of precedence:
///
/// 1. a `Link` header (with or without `rel="next"`): `link-header` (RFC 8288);
/// 2. a protocol's own next link: OData's `@odata.nextLink` (any `@odata.` annotation
///    says OData, whose last page leaves the link out), HAL's `_links.next.href` (any
///    `_links` object says HAL);
/// 3. a next link or cursor under a `next*` key, at the top or one object down (`next`,
///    `next_page`, `links.next`, `links.nextPage`, `next.href`, `paging.cursors.after`,
///    `nextPageToken`...): a link (absolute, `/path` or `?query`) is `next-link`, anything
///    else a `cursor`; a cursor in an `X-Next-Cursor` or `Next-Cursor` header;
/// 4. a `has-more` flag (`has_more`, `hasMore`, `meta.has_next`...): `offset` paging that
///    the flag ends;
/// 5. a page count (`total_pages`, `totalPages`, `pages`, `lastPage`..., at the top or one
///    object down): page numbers from the first page's own number;
/// 6. page numbers with a size and a total (`page`, `per_page`, `total`): `page`;
/// 7. a total row count (`total`, `totalCount`, `meta.total`...): `offset`.
///
/// Two different candidates of the same rank are ambiguous, and a first page with none of
/// them cannot be decided: both stop the run with an error that says what was found, and
/// the user writes the paginator meant. Counts may be numbers or strings of digits. Every
/// later page carries the decision in its continuation, so the list is walked as a chained
/// list (one page at a time) with all of that list's checks.
enum RESTAutoPagination {
    /// The paginator chosen from page 0.
    enum Choice: Equatable {
        case linkHeader
        case nextLink(path: FieldPath)
        case cursor(param: String, path: FieldPath)
        case headerCursor(param: String, header: String)
        case pageCount(pageParam: String, countPath: FieldPath, firstNumber: Int)
        case page(pageParam: String, sizeParam: String, totalPath: FieldPath)
        case offset(totalPath: FieldPath?, hasMorePath: FieldPath?)

        /// How the events and messages name it, as a `paginate:` value the user could write
        /// (with the source keys it needs).
        var name: String {
            switch self {
            case .linkHeader: "link-header"
            case .nextLink(let path): "{ style: next-link, next-path: '\(path)' }"
            case .cursor(let param, let path): "{ style: cursor, cursor-path: '\(path)', cursor-param: \(param), size-param: null }"
            case .headerCursor(let param, let header): "{ style: cursor, cursor-header: \(header), cursor-param: \(param), size-param: null }"
            case .pageCount(let pageParam, let countPath, let first):
                "{ style: page, page-param: \(pageParam), first-page: \(first) } with total-pages: '\(countPath)'"
            case .page(let pageParam, let sizeParam, let total): "{ style: page, page-param: \(pageParam), size-param: \(sizeParam) } with total: '\(total)'"
            case .offset(let total, let hasMore):
                "offset" + (total.map { " with total: '\($0)'" } ?? "") + (hasMore.map { " with has-more: '\($0)'" } ?? "")
            }
        }
    }

    static let recordsKeys = ["items", "data", "results", "records", "entries", "content", "elements", "value", "hits", "rows", "list"]
    /// Cursor keys whose API takes the cursor back under another name.
    static let cursorParams: [String: String] = [
        "next_page_token": "page_token", "nextPageToken": "pageToken", "after": "after", "next_cursor": "cursor",
        "nextCursor": "cursor", "cursor": "cursor", "next": "cursor",
    ]
    static let cursorHeaders = ["X-Next-Cursor", "Next-Cursor"]
    static let hasMoreKeys: Set<String> = ["has_more", "hasMore", "has_next", "hasNext", "has_next_page", "hasNextPage", "more", "has_more_items"]
    static let pageCountKeys: Set<String> = ["total_pages", "totalPages", "pages", "page_count", "pageCount", "lastPage", "last_page", "num_pages", "numPages"]
    static let pageNumberKeys = ["page", "current_page", "currentPage", "page_number", "pageNumber", "number", "current"]
    static let pageSizeKeys = ["per_page", "pageSize", "page_size", "perPage"]
    static let totalKeys = ["total", "totalCount", "total_count", "count", "totalResults", "total_results", "totalItems", "total_items", "totalElements"]

    // MARK: - Rows

    /// The rows of a body: at `records` when given, else the body itself when it is an
    /// array, else an array under a usual name, else the first array of objects at the top,
    /// else the same one object down (`_embedded.items`, `data.records`).
    static func rows(in body: JSONValue, records: FieldPath?) throws(ScreensPipeError) -> (rows: [JSONValue], path: FieldPath?) {
        if let records {
            guard case .array(let rows)? = records.resolve(in: body) else {
                throw .malformedResponse("expected an array of rows at '\(records)'")
            }
            return (rows, records)
        }
        if case .array(let rows) = body { return (rows, nil) }
        if let found = rowsArray(in: body) { return (found.rows, FieldPath(components: found.keys.map { .key($0) })) }
        if case .object(let object) = body {
            for (key, value) in object {
                if let found = rowsArray(in: value) { return (found.rows, FieldPath(components: [.key(key)] + found.keys.map { .key($0) })) }
            }
        }
        throw .malformedResponse(
            "paginate: auto found no array of rows in the first page (the body itself, \(recordsKeys.joined(separator: ", ")), or any array of objects up to two levels down); set 'records' to the path of the rows")
    }

    /// An array of rows one level into `value`: under a usual name (even empty), else the
    /// first non-empty array of objects.
    private static func rowsArray(in value: JSONValue) -> (rows: [JSONValue], keys: [String])? {
        guard case .object(let object) = value else { return nil }
        for key in recordsKeys {
            if case .array(let rows)? = object[key] { return (rows, [key]) }
        }
        for (key, member) in object {
            if case .array(let rows) = member, case .object? = rows.first { return (rows, [key]) }
        }
        return nil
    }

    // MARK: - The decision

    /// Decides the paginator from page 0's answer.
    static func choose(_ body: JSONValue, response: HTTPResponse) throws(ScreensPipeError) -> Choice {
        if !response.headers.values(for: "Link").isEmpty { return .linkHeader }
        let headerCursors = cursorHeaders.filter { !response.headers.values(for: $0).isEmpty }.map { Choice.headerCursor(param: "cursor", header: $0) }
        guard case .object(let object) = body else {
            if headerCursors.count == 1 { return headerCursors[0] }
            throw .malformedResponse(
                "paginate: auto cannot decide: the first page is a bare array with no Link header, so nothing says how to ask for the next page (a one-page result of a Link-header API looks the same); write the paginate style")
        }
        // OData and HAL name their next link where their protocols put it, and leave it out
        // of the last page: their markers decide even on a one-page list.
        if object.keys.contains(where: { $0.hasPrefix("@odata.") }) { return .nextLink(path: FieldPath(components: [.key("@odata.nextLink")])) }
        // OData JSON Format 4.01 ("Control Information") lets a 4.01 payload leave the `odata.` prefix out of
        // its control information: `@context`, `@count`, `@nextLink`.
        if object.keys.contains(where: { ["@context", "@count", "@nextLink"].contains($0) }) {
            return .nextLink(path: FieldPath(components: [.key("@nextLink")]))
        }
        if case .object(let links)? = object["_links"], links["next"] != nil || links["self"] != nil {
            return .nextLink(path: FieldPath(components: [.key("_links"), .key("next"), .key("href")]))
        }
        var markers = nextMarkers(in: object, prefix: [])
        for (key, value) in object {
            if case .object(let inner) = value, !key.lowercased().hasPrefix("next") { markers += nextMarkers(in: inner, prefix: [key]) }
        }
        markers += headerCursors
        // One marker seen twice (`cursors.next` as a cursors object and as a next key) is one.
        markers = markers.reduce(into: []) { kept, marker in if !kept.contains(marker) { kept.append(marker) } }
        if markers.count > 1 { throw ambiguous(markers) }
        if let marker = markers.first { return marker }
        if let hasMore = findPath(in: object, keys: hasMoreKeys, where: { (try? RESTListMarkers.flag($0, path: "", page: 0)) != nil }) {
            return .offset(totalPath: firstTotal(in: object), hasMorePath: hasMore)
        }
        if let count = findPath(in: object, keys: pageCountKeys, where: isCount) {
            // The first page's own number, where it says one (Spring counts from 0), beside
            // the count or at the top; else pages are numbered from 1.
            let container = count.components.dropLast().compactMap { if case .key(let key) = $0 { key } else { nil } }
            let scope = container.isEmpty ? object : (object[container[0]]?.objectValue ?? object)
            let numberKey = pageNumberKeys.first { scope[$0].map(isCount) ?? false } ?? pageNumberKeys.first { object[$0].map(isCount) ?? false }
            let number = numberKey.flatMap { key in (scope[key] ?? object[key]).flatMap { try? RESTListMarkers.count($0, path: key, page: 0) } }
            let pageParam = numberKey.flatMap { ["page", "page_number", "pageNumber", "number"].contains($0) ? ($0 == "number" ? "page" : $0) : nil } ?? "page"
            return .pageCount(pageParam: pageParam, countPath: count, firstNumber: number ?? 1)
        }
        let total = firstTotal(in: object)
        if let total, object["page"].map(isCount) ?? false, let sizeKey = pageSizeKeys.first(where: { object[$0].map(isCount) ?? false }) {
            return .page(pageParam: "page", sizeParam: sizeKey, totalPath: total)
        }
        if let total { return .offset(totalPath: total, hasMorePath: nil) }
        throw .malformedResponse(
            "paginate: auto found nothing that names the next page in the first page: no Link header, no next link or cursor (a 'next*' key, @odata.nextLink, _links.next), no has-more flag (\(hasMoreKeys.sorted().joined(separator: ", "))), no page count (\(pageCountKeys.sorted().joined(separator: ", "))) and no total (\(totalKeys.joined(separator: ", "))); write the paginate style")
    }

    /// Next links and cursors among `object`'s `next*` members: a string that looks like a
    /// link (or null: the last page of a next-link API) is a next link, an object with
    /// `href`/`url` holds one, another string or an integer is a cursor.
    private static func nextMarkers(in object: JSONObject, prefix: [String]) -> [Choice] {
        var markers: [Choice] = []
        for (key, value) in object {
            let lower = key.lowercased()
            let cursorNamed = lower.contains("cursor") || lower.contains("token")
            let path = FieldPath(components: (prefix + [key]).map { .key($0) })
            if lower == "cursors", case .object(let cursors) = value, let after = cursors["next"] ?? cursors["after"] {
                if case .string = after { markers.append(.cursor(param: cursors["next"] != nil ? "cursor" : "after", path: FieldPath(components: (prefix + [key, cursors["next"] != nil ? "next" : "after"]).map { .key($0) }))) }
                continue
            }
            guard lower.hasPrefix("next") || (prefix.last?.lowercased() == "cursors" && lower == "after") else { continue }
            switch value {
            case .string(let text) where looksLikeLink(text) && !cursorNamed:
                markers.append(.nextLink(path: path))
            case .null where !cursorNamed && !["next_id", "nextid"].contains(lower):
                markers.append(.nextLink(path: path))
            case .string, .int, .null:
                markers.append(.cursor(param: cursorParams[key] ?? "cursor", path: path))
            case .object(let inner):
                for linkKey in ["href", "url"] where inner[linkKey] != nil {
                    markers.append(.nextLink(path: FieldPath(components: (prefix + [key, linkKey]).map { .key($0) })))
                    break
                }
            default:
                break
            }
        }
        return markers
    }

    /// The first member named one of `keys` whose value passes `check`, at the top or one
    /// object down.
    private static func findPath(in object: JSONObject, keys: Set<String>, where check: (JSONValue) -> Bool) -> FieldPath? {
        for (key, value) in object where keys.contains(key) && check(value) { return FieldPath(components: [.key(key)]) }
        for (outer, value) in object {
            guard case .object(let inner) = value else { continue }
            for (key, member) in inner where keys.contains(key) && check(member) {
                return FieldPath(components: [.key(outer), .key(key)])
            }
        }
        return nil
    }

    private static func firstTotal(in object: JSONObject) -> FieldPath? {
        findPath(in: object, keys: Set(totalKeys), where: isCount)
    }

    /// A count as ``RESTListMarkers/count(_:path:page:)`` reads one (a negative count is a
    /// count too, refused when the decision is applied, never silently skipped).
    private static func isCount(_ value: JSONValue) -> Bool {
        switch value {
        case .int: true
        case .string(let text): !text.isEmpty && text.utf8.count <= 19 && Int(text) != nil
        default: value.int64Value != nil
        }
    }

    private static func ambiguous(_ candidates: [Choice]) -> ScreensPipeError {
        .malformedResponse(
            "paginate: auto cannot decide: the first page fits \(candidates.count) paginators: \(candidates.map(\.name).joined(separator: "; ")); write the one meant as 'paginate'")
    }

    private static func looksLikeLink(_ text: String) -> Bool {
        text.hasPrefix("http://") || text.hasPrefix("https://") || text.hasPrefix("/") || text.hasPrefix("?")
    }

    // MARK: - The decision, carried from page to page

    /// A later page's request, from the continuation the previous page left: the decision
    /// and where to go, as a JSON array (`[choice, "query", name, value...]`).
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
            if let next = LinkHeader.target(relation: "next", in: response.headers.values(for: "Link")) {
                decoded.continuation = encode(choice, ["link", URLText.resolve(next, against: response.effectiveURL)])
            }
        case .nextLink(let path):
            switch path.resolve(in: body) {
            case .string(let next)? where !next.isEmpty:
                decoded.continuation = encode(choice, ["link", URLText.resolve(next, against: response.effectiveURL)])
            case nil, .null?, .string?:
                break
            case let other?:
                throw ScreensPipeError(.malformedResponse, "expected a link or null at '\(path)', found \(other.typeName)", page: page.index)
            }
        case .cursor(let param, let path):
            switch path.resolve(in: body) {
            case .string(let cursor)? where !cursor.isEmpty: decoded.continuation = encode(choice, ["query", param, cursor])
            case .int(let cursor)?: decoded.continuation = encode(choice, ["query", param, String(cursor)])
            case nil, .null?, .string?, .bool(false)?: break
            case let other?:
                throw ScreensPipeError(.malformedResponse, "expected a cursor or null at '\(path)', found \(other.typeName)", page: page.index)
            }
        case .headerCursor(let param, let header):
            if let cursor = response.headers.values(for: header).first, !cursor.isEmpty {
                decoded.continuation = encode(choice, ["query", param, cursor])
            }
        case .pageCount(let pageParam, let countPath, let firstNumber):
            guard let count = try RESTListMarkers.count(countPath.resolve(in: body), path: "\(countPath)", page: page.index) else {
                throw ScreensPipeError(.pagination, "paginate: auto: the page count '\(countPath)' is missing from this page, so where the list ends is unknown", page: page.index)
            }
            guard count <= Int(Int32.max) else {
                throw ScreensPipeError(.pagination, "paginate: auto: the page count '\(countPath)' is \(count), more than any list has", page: page.index)
            }
            decoded.pageCount = count
            if page.index + 1 < count, !rows.isEmpty {
                decoded.continuation = encode(choice, ["query", pageParam, String(firstNumber + page.index + 1)])
            }
        case .page(let pageParam, let sizeParam, let totalPath):
            let total = try checkedTotal(at: totalPath, in: body, page: page, rows: rows.count)
            let number = body["page"].flatMap { try? RESTListMarkers.count($0, path: "page", page: page.index) } ?? 0
            let size = body[sizeParam].flatMap { try? RESTListMarkers.count($0, path: sizeParam, page: page.index) } ?? rows.count
            if page.startRow + rows.count < total, !rows.isEmpty {
                decoded.continuation = encode(choice, ["query", pageParam, String(number + 1), sizeParam, String(size)])
            }
            decoded.rowCount = total
        case .offset(let totalPath, let hasMorePath):
            let next = page.startRow + rows.count
            // The server chose page 0's size; later pages ask for the same.
            let limit = page.continuation.flatMap(limitOf) ?? rows.count
            var more: Bool
            if let totalPath {
                let total = try checkedTotal(at: totalPath, in: body, page: page, rows: rows.count)
                more = next < total
                decoded.rowCount = total
            } else {
                more = false
            }
            if let hasMorePath {
                // The flag, where the page has one, says whether rows follow; a page without
                // it ends the list (as a has-more API's last page may leave it out).
                more = try RESTListMarkers.flag(hasMorePath.resolve(in: body), path: "\(hasMorePath)", page: page.index) ?? false
            }
            if more, rows.isEmpty {
                throw ScreensPipeError(.pagination, "paginate: auto: the page is empty but says more rows follow; stopping instead of looping", page: page.index)
            }
            if more { decoded.continuation = encode(choice, ["query", "offset", String(next), "limit", String(limit)]) }
        }
        return decoded
    }

    /// The list's total at `path` in a page's body, which decides where the list ends: a
    /// total that is missing, not a whole number, negative or below the rows already received
    /// would end the list early and silently, so it is an error naming the page.
    private static func checkedTotal(at path: FieldPath, in body: JSONValue, page: PageRequest, rows: Int) throws(ScreensPipeError) -> Int {
        let received = page.startRow + rows
        guard let total = try RESTListMarkers.count(path.resolve(in: body), path: "\(path)", page: page.index) else {
            throw .pagination("paginate: auto: the total '\(path)' is missing from this page, so where the list ends is unknown", page: page.index)
        }
        guard total >= received else {
            throw .pagination(
                "paginate: auto: the total '\(path)' is \(total), but \(received) rows were received through this page; the total is wrong, so where the list ends is unknown",
                page: page.index)
        }
        return total
    }

    // The continuation is `[choice, request...]`: the choice travels with every page.
    private static func encode(_ choice: Choice, _ request: [String]) -> String {
        JSONValue.array([choiceValue(choice)] + request.map(JSONValue.string)).jsonString
    }

    private static func choiceValue(_ choice: Choice) -> JSONValue {
        func text(_ path: FieldPath?) -> JSONValue { path.map { .string("\($0)") } ?? .null }
        return switch choice {
        case .linkHeader: ["link-header"]
        case .nextLink(let path): ["next-link", text(path)]
        case .cursor(let param, let path): ["cursor", .string(param), text(path)]
        case .headerCursor(let param, let header): ["header-cursor", .string(param), .string(header)]
        case .pageCount(let pageParam, let countPath, let first): ["page-count", .string(pageParam), text(countPath), .string(String(first))]
        case .page(let pageParam, let sizeParam, let total): ["page", .string(pageParam), .string(sizeParam), text(total)]
        case .offset(let total, let hasMore): ["offset", text(total), text(hasMore)]
        }
    }

    private static func decision(in continuation: String) -> Choice? {
        guard let parts = try? JSONValue(parsing: Array(continuation.utf8)).arrayValue,
            let choice = parts.first?.arrayValue, let kind = choice.first?.stringValue
        else { return nil }
        let text = choice.dropFirst().map(\.stringValue)
        func path(_ index: Int) -> FieldPath? { text[index].flatMap { try? FieldPath($0) } }
        switch (kind, text.count) {
        case ("link-header", 0): return .linkHeader
        case ("next-link", 1): return path(0).map { .nextLink(path: $0) }
        case ("cursor", 2): return text[0].flatMap { param in path(1).map { .cursor(param: param, path: $0) } }
        case ("header-cursor", 2): return text[0].flatMap { param in text[1].map { .headerCursor(param: param, header: $0) } }
        case ("page-count", 3):
            guard let pageParam = text[0], let count = path(1), let first = text[2].flatMap({ Int($0) }) else { return nil }
            return .pageCount(pageParam: pageParam, countPath: count, firstNumber: first)
        case ("page", 3): return text[0].flatMap { pageParam in text[1].flatMap { size in path(2).map { .page(pageParam: pageParam, sizeParam: size, totalPath: $0) } } }
        case ("offset", 2): return .offset(totalPath: path(0), hasMorePath: path(1))
        default: return nil
        }
    }

    private static func limitOf(_ continuation: String) -> Int? {
        guard let parts = try? JSONValue(parsing: Array(continuation.utf8)).arrayValue else { return nil }
        let text = parts.compactMap(\.stringValue)
        guard let index = text.firstIndex(of: "limit"), index + 1 < text.count else { return nil }
        return Int(text[index + 1])
    }
}
