import ScreensBus
internal import Foundation

/// Any paged JSON API: offset/limit and page/per-page are indexed (prefetch works);
/// a cursor in the body, a next link in the body and the `Link` header are chained.
struct RESTWireFormat: WireFormat {
    let spec: RESTSourceSpec
    /// The URL of the first page: `url`, resolved against `server` when it is relative.
    let firstURL: String
    private let records: FieldPath?
    private let total: FieldPath?
    private let totalPages: FieldPath?
    private let hasMore: FieldPath?
    /// Where the body names the next page (cursor and next-link styles).
    private let continuation: FieldPath?

    /// Parses the body paths once; a path that does not parse is a configuration error.
    init(spec: RESTSourceSpec, baseURL: String?) throws(ScreensPipeError) {
        self.spec = spec
        if let baseURL, !(spec.url.hasPrefix("http://") || spec.url.hasPrefix("https://")) {
            firstURL = URLText.resolve(spec.url, against: baseURL.trimmingSuffix("/") + "/")
        } else {
            firstURL = spec.url
        }
        records = try Self.path(spec.records)
        total = try Self.path(spec.total)
        totalPages = try Self.path(spec.totalPages)
        hasMore = try Self.path(spec.hasMore)
        switch spec.paginate {
        case .cursor(_, let cursorPath, _): continuation = spec.paginateOptions.cursorHeader == nil ? try Self.path(cursorPath) : nil
        case .nextLink(let nextPath): continuation = try Self.path(nextPath)
        case .offset, .page, .linkHeader, .auto: continuation = nil
        }
    }

    private static func path(_ text: String?) throws(ScreensPipeError) -> FieldPath? {
        try text.map { (text) throws(ScreensPipeError) in try FieldPath(text) }
    }

    var chaining: PageChaining {
        switch spec.paginate {
        case .offset, .page: .indexed
        case .cursor, .nextLink, .linkHeader, .auto: .chained
        }
    }

    var requestsPageSize: Bool {
        switch spec.paginate {
        case .offset, .page: true
        case .cursor(_, _, let sizeParam): spec.requestBody.map(\.carriesPageSize) ?? (sizeParam != nil)
        case .nextLink, .linkHeader, .auto: spec.requestBody?.carriesPageSize ?? false
        }
    }

    var summary: String {
        if case .auto = spec.paginate { return "rest \(redactedURL(firstURL)) (paginate: auto, decided at run time from the first page)" }
        return "rest \(redactedURL(firstURL))"
    }

    func request(for page: PageRequest) throws(ScreensPipeError) -> HTTPRequest {
        if let body = spec.requestBody { return postRequest(for: page, body: body) }
        let size = page.endRow - page.startRow
        var query = spec.query
        switch spec.paginate {
        case .offset(let offsetParam, let limitParam):
            query.append(QueryParameter(name: offsetParam, value: String(page.startRow + spec.paginateOptions.firstOffset)))
            query.append(QueryParameter(name: limitParam, value: String(size)))
        case .page(let pageParam, let sizeParam, let firstPage):
            let number = (size > 0 ? page.startRow / size : 0) + firstPage
            query.append(QueryParameter(name: pageParam, value: String(number)))
            query.append(QueryParameter(name: sizeParam, value: String(size)))
        case .cursor(let cursorParam, _, let sizeParam):
            if let sizeParam { query.append(QueryParameter(name: sizeParam, value: String(size))) }
            if let cursor = page.continuation { query.append(QueryParameter(name: cursorParam, value: cursor)) }
        case .nextLink, .linkHeader:
            // The next page's URL is complete as the server gave it.
            if let next = page.continuation {
                // The server may repeat a `{ secret: }` value in its link: redacted like ours.
                var request = HTTPRequest(url: URLText.resolve(next, against: firstURL))
                request.secretValues = spec.query.filter(\.text.isSecret).map(\.value)
                return request
            }
            // The first page: the size the user names (`per_page`), which the links carry on.
            if let sizeParam = spec.paginateOptions.sizeParam { query.append(QueryParameter(name: sizeParam, value: String(size))) }
        case .auto:
            // Page 0 as written (the server's first page); later pages as page 0 decided.
            if let next = page.continuation {
                var request = try RESTAutoPagination.request(continuation: next, firstURL: firstURL, query: spec.query)
                request.secretValues = spec.query.filter(\.text.isSecret).map(\.value)
                return request
            }
        }
        var request = HTTPRequest(url: URLText.appending(query: query, to: firstURL))
        request.secretValues = spec.query.filter(\.text.isSecret).map(\.value)
        return request
    }

    /// A search-style POST: the page is in the body, the query carries only `query:`, and a
    /// next link (next-link and link-header styles) is posted to with the same body.
    private func postRequest(for page: PageRequest, body: RESTRequestBody) -> HTTPRequest {
        let size = page.endRow - page.startRow
        var pageNumber = size > 0 ? page.startRow / size : 0
        if case .page(_, _, let firstPage) = spec.paginate { pageNumber += firstPage }
        var url = URLText.appending(query: spec.query, to: firstURL)
        var cursor: String?
        switch spec.paginate {
        case .cursor: cursor = page.continuation
        case .nextLink, .linkHeader: if let next = page.continuation { url = URLText.resolve(next, against: firstURL) }
        case .offset, .page, .auto: break
        }
        let json = body.body(offset: page.startRow, size: size, page: pageNumber, cursor: cursor)
        var request = HTTPRequest(method: "POST", url: url, headers: ["Content-Type": "application/json"], body: json.jsonBytes)
        request.secretValues = spec.query.filter(\.text.isSecret).map(\.value)
        return request
    }

    func rowsPath(for page: PageRequest) -> [JSONPathStep]? {
        if case .auto = spec.paginate { return nil }
        // A cursor read off a row (Stripe's `starting_after` is the last row's id:
        // `data[-1].id`) needs the rows parsed, not only kept as texts.
        if let continuation, continuation.components.starts(with: records?.components ?? []),
            continuation.components.count > (records?.components.count ?? 0)
        {
            return nil
        }
        guard let records else { return [] }
        var steps: [JSONPathStep] = []
        for component in records.components {
            switch component {
            case .key(let key): steps.append(.key(key))
            case .index(let position) where position >= 0: steps.append(.index(position))
            case .index: return nil
            }
        }
        return steps
    }

    func decode(_ body: JSONValue, response: HTTPResponse, page: PageRequest) throws(ScreensPipeError) -> DecodedPage {
        if case .auto = spec.paginate { return try RESTAutoPagination.decode(body, response: response, page: page, records: records) }
        let target = records.map { $0.resolve(in: body) } ?? body
        guard case .array(let rows)? = target else {
            throw ScreensPipeError(
                .malformedResponse,
                "expected an array of rows\(spec.records.map { " at '\($0)'" } ?? ""), found \(target?.typeName ?? "nothing")")
        }
        var decoded = DecodedPage(rows: rows)
        var missing: [String] = []
        if let total {
            let value = total.resolve(in: body)
            if value == nil { missing.append("no '\(total)' (total) in the body") }
            // Page 0's count decides; a later page's is read so that a broken one is still noticed.
            let count = try RESTListMarkers.count(value, path: "\(total)", page: page.index)
            if page.index == 0 { decoded.rowCount = count }
        }
        if let totalPages {
            let value = totalPages.resolve(in: body)
            if value == nil { missing.append("no '\(totalPages)' (total-pages) in the body") }
            decoded.pageCount = try RESTListMarkers.count(value, path: "\(totalPages)", page: page.index)
        }
        var more: Bool?
        if let hasMore {
            let value = hasMore.resolve(in: body)
            if value == nil { missing.append("no '\(hasMore)' (has-more) in the body") }
            more = try RESTListMarkers.flag(value, path: "\(hasMore)", page: page.index)
        }
        switch spec.paginate {
        case .offset, .page, .auto:
            if more == false {
                decoded.pageCount = page.index + 1
                decoded.endsList = .hasMore
            } else if reachesCap(page, rows: rows.count) {
                decoded.pageCount = page.index + 1
                decoded.endsList = .pagingCap
            } else if more == true {
                decoded.continuation = FetchedPage.moreRowsFollow
            }
            decoded.missingContinuation = missing.isEmpty ? nil : missing.joined(separator: " and ")
            return decoded
        case .cursor(_, let cursorPath, _):
            if let header = spec.paginateOptions.cursorHeader {
                let values = response.headers.values(for: header)
                decoded.continuation = values.first.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
                if values.isEmpty { missing.append("no '\(header)' header (cursor-header)") }
            } else {
                let marker = continuation?.resolve(in: body)
                decoded.continuation = try Self.text(marker, path: cursorPath)
                if marker == nil { missing.append("no '\(cursorPath)' (cursor-path) in the body") }
            }
        case .nextLink(let nextPath):
            let marker = continuation?.resolve(in: body)
            decoded.continuation = try Self.text(marker, path: nextPath).map { URLText.resolve($0, against: response.effectiveURL) }
            if marker == nil { missing.append("no '\(nextPath)' (next-path) in the body") }
        case .linkHeader:
            // No `rel="next"` is the end (RFC 8288), with or without any Link header: GitHub
            // sends none on a one-page list, and first/prev only on its last page.
            let fields = response.headers.values(for: "Link")
            decoded.continuation = LinkHeader.target(relation: "next", in: fields).map { URLText.resolve($0, against: response.effectiveURL) }
        }
        if more == false {
            // The flag wins over a marker some APIs keep sending on the last page.
            decoded.continuation = nil
            decoded.endsList = .hasMore
        } else if more == true, decoded.continuation == nil {
            throw ScreensPipeError(
                .pagination,
                "'\(spec.hasMore ?? "")' (has-more) says more rows follow, but the page names no next page; stopping instead of guessing",
                page: page.index)
        }
        decoded.missingContinuation = missing.isEmpty ? nil : missing.joined(separator: " and ")
        return decoded
    }

    /// Whether `page` is the last the pipeline's `max-offset` or `max-page` lets the API
    /// be asked for. A short page is not: it ends the list by itself.
    private func reachesCap(_ page: PageRequest, rows: Int) -> Bool {
        let size = page.endRow - page.startRow
        guard rows >= size else { return false }
        switch spec.paginate {
        case .offset:
            guard let maxOffset = spec.paginateOptions.maxOffset else { return false }
            return page.endRow + spec.paginateOptions.firstOffset >= maxOffset
        case .page(_, _, let firstPage):
            guard let maxPage = spec.paginateOptions.maxPage, size > 0 else { return false }
            return page.startRow / size + firstPage >= maxPage
        default:
            return false
        }
    }


    /// A cursor or link value: null, `false` and an empty string mark the last page; a
    /// string or an integer names the next one; anything else (an object, an array) is an
    /// error rather than a silent end of the list.
    private static func text(_ value: JSONValue?, path: String) throws(ScreensPipeError) -> String? {
        switch value {
        case nil, .null?, .bool(false)?: return nil
        case .string(let text)?: return text.isEmpty ? nil : text
        case .int(let number)?: return String(number)
        case .number(let digits)?: return digits
        case let other?:
            throw ScreensPipeError(
                .malformedResponse, "expected a string, an integer or null at '\(path)', found \(other.typeName)")
        }
    }
}
