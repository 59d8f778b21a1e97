import ScreensBus

/// `type: rest` — any paged JSON API.
public struct RESTSourceSpec: Sendable, Hashable {
    /// The URL of the first page, absolute or relative to `server`.
    public var url: String
    /// Path to the array of rows in the response body (`data.items`); nil when the body is the array.
    public var records: String?
    /// Path to the total row count in the body, when the API reports one.
    public var total: String?
    /// How the API asks for the next page.
    public var paginate: RESTPaginationStyle
    /// The `paginate:` keys beyond the style's parameters (sizes for link styles, a cursor
    /// header, a first offset, paging caps).
    public var paginateOptions = RESTPaginateOptions()
    /// Path to a boolean in the body that says whether more rows follow (`has_more`,
    /// `meta.has_next`): false ends the list; true keeps a short page from ending it.
    public var hasMore: String? = nil
    /// Path to the number of pages in the body (`total_pages`), for APIs that count pages
    /// rather than rows.
    public var totalPages: String? = nil
    /// Extra query parameters sent with every page, before the paging ones.
    public var query: [QueryParameter]
    /// `method: POST` with a `body:` template that carries the page; nil sends GETs with the
    /// page in the query.
    public var requestBody: RESTRequestBody? = nil

    /// Creates a REST source; by default the body is the array of rows and the API reports no total.
    public init(url: String, records: String? = nil, total: String? = nil, paginate: RESTPaginationStyle, query: [QueryParameter] = []) {
        self.url = url
        self.records = records
        self.total = total
        self.paginate = paginate
        self.query = query
    }
}

/// The `paginate:` keys that tune a style beyond its parameters.
public struct RESTPaginateOptions: Sendable, Hashable {
    /// `size-param` of `link-header` and `next-link`: sent with the first request (as
    /// GitHub's `per_page`), whose links carry it on.
    public var sizeParam: String?
    /// `cursor-header` of `cursor`: the response header that names the next cursor
    /// (`X-Next-Cursor`), instead of a path in the body.
    public var cursorHeader: String?
    /// `first-offset` of `offset`: the offset of the list's first row.
    public var firstOffset: Int
    /// `max-offset` of `offset`: no row at or past this offset is asked for (an API that
    /// pages no further, as search APIs cap at 1,000 or 10,000).
    public var maxOffset: Int?
    /// `max-page` of `page`: the last page number asked for.
    public var maxPage: Int?

    /// Creates options; by default none, and the list starts at offset 0.
    public init(sizeParam: String? = nil, cursorHeader: String? = nil, firstOffset: Int = 0, maxOffset: Int? = nil, maxPage: Int? = nil) {
        self.sizeParam = sizeParam
        self.cursorHeader = cursorHeader
        self.firstOffset = firstOffset
        self.maxOffset = maxOffset
        self.maxPage = maxPage
    }

    var isDefault: Bool { self == Self() }
}

/// How a generic REST API pages.
public enum RESTPaginationStyle: Sendable, Hashable {
    /// `?offset=0&limit=25`.
    case offset(offsetParam: String = "offset", limitParam: String = "limit")
    /// `?page=1&per_page=25`; `firstPage` is the number of the first page (usually 1).
    case page(pageParam: String = "page", sizeParam: String = "per_page", firstPage: Int = 1)
    /// A cursor in the body (`cursorPath`) sent back as `cursorParam`.
    case cursor(cursorParam: String = "cursor", cursorPath: String = "next_cursor", sizeParam: String? = "limit")
    /// A next-page URL in the body at `nextPath`.
    case nextLink(nextPath: String = "next")
    /// The `Link: <...>; rel="next"` response header.
    case linkHeader
    /// Decided at run time from the first page (``RESTAutoPagination``).
    case auto

    /// The query parameters the paginator sets on every page.
    var pagingParameters: [String] {
        switch self {
        case .offset(let offsetParam, let limitParam): [offsetParam, limitParam]
        case .page(let pageParam, let sizeParam, _): [pageParam, sizeParam]
        case .cursor(let cursorParam, _, let sizeParam): [cursorParam] + (sizeParam.map { [$0] } ?? [])
        case .nextLink, .linkHeader, .auto: []
        }
    }
}

extension RESTSourceSpec: SourceTypeSettings, QueryParameterized {
    static var typeName: String { "rest" }

    static var ownKeys: [String] { ["url", "records", "total", "total-pages", "has-more", "query", "paginate"] + SpecDecoder.restBodyKeys }

    static var requiredKeys: [String] { ["url", "paginate"] }

    static func decode(_ section: Section, decoder: SpecDecoder, shared: SourceSpec) -> Self? {
        decoder.decodeREST(section, hasServer: shared.server != nil)
    }

    var redactedMembers: [(String, YAMLTextWriter.Value)] {
        var members: [(String, YAMLTextWriter.Value)] = [("url", .string(redactedURL(url, markingUserinfo: true)))]
        if let records { members.append(("records", .string(records))) }
        if let total { members.append(("total", .string(total))) }
        if let totalPages { members.append(("total-pages", .string(totalPages))) }
        if let hasMore { members.append(("has-more", .string(hasMore))) }
        if !query.isEmpty { members.append(("query", query.redactedValue)) }
        members.append(("paginate", .mapping(paginate.describedMembers + paginateOptions.describedMembers)))
        if let requestBody {
            members.append(("method", .raw("POST")))
            members.append(("body", .string(redactedBody(Array(requestBody.template.jsonString.utf8)))))
            members.append(("idempotent", .raw("\(requestBody.idempotent)")))
        }
        return members
    }

    var cacheIdentity: JSONValue {
        var identity: JSONObject = [
            "type": .string(Self.typeName), "url": .string(CacheKey.hashingSecrets(inURL: url)), "query": query.cacheIdentity,
            "records": records.map(JSONValue.string) ?? .null, "total": total.map(JSONValue.string) ?? .null,
            "paginate": .string(paginate.cacheIdentity),
        ]
        // Only sources that use them have these members, so older keys keep their bytes.
        if !paginateOptions.isDefault { identity["paginate-options"] = .string(paginateOptions.cacheIdentity) }
        if let hasMore { identity["has-more"] = .string(hasMore) }
        if let totalPages { identity["total-pages"] = .string(totalPages) }
        // The body selects the rows as a query does; a digest keeps any value in it out.
        // Only POST sources have the member, so the keys of GET sources keep their bytes.
        if let requestBody { identity["body"] = .string(CacheKey.digest(requestBody.template.jsonString)) }
        return .object(identity)
    }

    /// A page-numbered API takes one page size for every page, so the first page has it too;
    /// so does a next-link API (its links repeat the first page's size, or the server picks
    /// one for all), and a Link-header API sent a size. (Kept as it was first written: the
    /// size is part of the cache key, so a change would orphan stored lists.)
    func effectivePagination(_ written: PaginationSpec) -> PaginationSpec {
        var pagination = written
        switch paginate {
        case .page, .nextLink: pagination.firstPageSize = pagination.pageSize
        case .linkHeader where paginateOptions.sizeParam != nil: pagination.firstPageSize = pagination.pageSize
        default: break
        }
        return pagination
    }

    func blueprint(_ build: SourceBuild) throws(ScreensPipeError) -> SourceBlueprint {
        let wire = try RESTWireFormat(spec: self, baseURL: build.baseURL)
        let blueprint = try build.http(wire, url: wire.firstURL)
        // A POST that is not declared safe to repeat is sent once: a retry could act twice.
        guard requestBody?.idempotent == false, case .http(let wire, var settings) = blueprint else { return blueprint }
        settings.retry.attempts = 1
        return .http(wire, settings)
    }
}

extension SourceTypeSpec {
    /// `rest`: any paged JSON API.
    public static func rest(_ spec: RESTSourceSpec) -> Self { Self(spec) }
}

extension RESTPaginateOptions {
    fileprivate var cacheIdentity: String {
        "\(sizeParam ?? "") \(cursorHeader ?? "") \(firstOffset) \(maxOffset.map(String.init) ?? "") \(maxPage.map(String.init) ?? "")"
    }

    fileprivate var describedMembers: [(String, YAMLTextWriter.Value)] {
        var members: [(String, YAMLTextWriter.Value)] = []
        if let sizeParam { members.append(("size-param", .string(sizeParam))) }
        if let cursorHeader { members.append(("cursor-header", .string(cursorHeader))) }
        if firstOffset != 0 { members.append(("first-offset", .raw("\(firstOffset)"))) }
        if let maxOffset { members.append(("max-offset", .raw("\(maxOffset)"))) }
        if let maxPage { members.append(("max-page", .raw("\(maxPage)"))) }
        return members
    }
}

extension RESTPaginationStyle {
    fileprivate var cacheIdentity: String {
        switch self {
        case .offset(let offset, let limit): "offset \(offset) \(limit)"
        case .page(let page, let size, let first): "page \(page) \(size) \(first)"
        case .cursor(let param, let path, let size): "cursor \(param) \(path) \(size ?? "")"
        case .nextLink(let path): "next-link \(path)"
        case .linkHeader: "link-header"
        case .auto: "auto"
        }
    }

    fileprivate var describedMembers: [(String, YAMLTextWriter.Value)] {
        switch self {
        case .offset(let offsetParam, let limitParam):
            [("style", .raw("offset")), ("offset-param", .string(offsetParam)), ("limit-param", .string(limitParam))]
        case .page(let pageParam, let sizeParam, let firstPage):
            [
                ("style", .raw("page")), ("page-param", .string(pageParam)), ("size-param", .string(sizeParam)),
                ("first-page", .raw("\(firstPage)")),
            ]
        case .cursor(let cursorParam, let cursorPath, let sizeParam):
            [
                ("style", .raw("cursor")), ("cursor-param", .string(cursorParam)), ("cursor-path", .string(cursorPath)),
                ("size-param", sizeParam.map { .string($0) } ?? .raw("null")),
            ]
        case .nextLink(let nextPath):
            [("style", .raw("next-link")), ("next-path", .string(nextPath))]
        case .linkHeader:
            [("style", .raw("link-header"))]
        case .auto:
            [("style", .raw("auto"))]
        }
    }
}

extension SpecDecoder {
    fileprivate func decodeREST(_ section: Section, hasServer: Bool) -> RESTSourceSpec? {
        let urlNode = section.required("url", for: "source of type '\(RESTSourceSpec.typeName)'")
        let url = urlNode.flatMap { context.nonEmptyString($0, key: "url") }
        if let url, let urlNode, !hasServer, !["http://", "https://"].contains(where: url.lowercased().hasPrefix) {
            context.fail("'url' is relative ('\(redactedURL(url))'), so the source needs a 'server'", at: urlNode.location)
        }
        let paginateNode = section.required("paginate", for: "source of type '\(RESTSourceSpec.typeName)'")
        let paginate = paginateNode.flatMap(decodePaginate)
        let options = paginateNode.flatMap(decodePaginateOptions) ?? RESTPaginateOptions()
        let querySection = section.section("query")
        let query = querySection.map(decodeQuery) ?? []
        if let paginate, let querySection {
            refusePagingParameters(paginate.pagingParameters, in: querySection, owner: "paginate style")
        }
        let requestBody = decodeRESTRequestBody(section, paginate: paginate)
        guard let url, let paginate else { return nil }
        var spec = RESTSourceSpec(
            url: url, records: section.nonEmptyString("records"), total: section.nonEmptyString("total"),
            paginate: paginate, query: query)
        spec.requestBody = requestBody
        spec.paginateOptions = options
        spec.hasMore = section.nonEmptyString("has-more")
        spec.totalPages = section.nonEmptyString("total-pages")
        return spec
    }

    /// The `paginate` styles and their own keys (also listed by the pipeline JSON Schema).
    enum PaginateStyle: String, CaseIterable {
        case offset, page, cursor
        case nextLink = "next-link"
        case linkHeader = "link-header"
        case auto

        var keys: [String] {
            switch self {
            case .offset: ["offset-param", "limit-param", "first-offset", "max-offset"]
            case .page: ["page-param", "size-param", "first-page", "max-page"]
            case .cursor: ["cursor-param", "cursor-path", "cursor-header", "size-param"]
            case .nextLink: ["next-path", "size-param"]
            case .linkHeader: ["size-param"]
            case .auto: []
            }
        }
    }

    /// `paginate: offset` (defaults) or `paginate: { style: offset, offset-param: skip, ... }`.
    private func decodePaginate(_ node: YAMLNode) -> RESTPaginationStyle? {
        if case .scalar = node {
            return context.choice(node, key: "paginate", PaginateStyle.self).map { Self.defaultPagination($0) }
        }
        guard let section = Section(node, name: "source.paginate", context: context) else { return nil }
        guard let style = section.required("style").flatMap({ context.choice($0, key: "style", PaginateStyle.self) }) else {
            section.checkKeys(["style"] + Array(Set(PaginateStyle.allCases.flatMap(\.keys))).sorted())
            return nil
        }
        let owners = ownersOfPaginateKeys(except: style)
        section.checkKeys(["style"] + style.keys, elsewhere: owners, in: "paginate style '\(style.rawValue)'")
        func param(_ key: String, _ fallback: String) -> String { section.nonEmptyString(key) ?? fallback }
        switch style {
        case .offset:
            return .offset(offsetParam: param("offset-param", "offset"), limitParam: param("limit-param", "limit"))
        case .page:
            return .page(
                pageParam: param("page-param", "page"), sizeParam: param("size-param", "per_page"),
                firstPage: section.int("first-page", atLeast: 0, atMost: ConfigLimits.maximumFirstPage) ?? 1)
        case .cursor:
            // `size-param: null` turns the size parameter off.
            var sizeParam: String? = "limit"
            if let node = section.mapping["size-param"] {
                sizeParam = node.isNull ? nil : context.nonEmptyString(node, key: "size-param")
            }
            return .cursor(
                cursorParam: param("cursor-param", "cursor"), cursorPath: param("cursor-path", "next_cursor"), sizeParam: sizeParam)
        case .nextLink:
            return .nextLink(nextPath: param("next-path", "next"))
        case .linkHeader:
            return .linkHeader
        case .auto:
            return .auto
        }
    }

    /// The keys of ``RESTPaginateOptions``, read after ``decodePaginate(_:)`` checked which
    /// keys the style takes.
    private func decodePaginateOptions(_ node: YAMLNode) -> RESTPaginateOptions? {
        guard case .mapping = node, let section = Section(node, name: "source.paginate", context: context),
            case .scalar(let styleText)? = section.mapping["style"], let style = PaginateStyle(rawValue: styleText.text)
        else { return nil }
        var options = RESTPaginateOptions()
        switch style {
        case .nextLink, .linkHeader: options.sizeParam = section.nonEmptyString("size-param")
        case .cursor:
            options.cursorHeader = section.nonEmptyString("cursor-header")
            if options.cursorHeader != nil, section.mapping["cursor-path"] != nil, let node = section.mapping["cursor-header"] {
                context.fail("'cursor-header' and 'cursor-path' both name where the next cursor is; keep one", at: node.location)
            }
        case .offset:
            options.firstOffset = section.int("first-offset", atLeast: 0, atMost: Int(Int32.max)) ?? 0
            options.maxOffset = section.int("max-offset", atLeast: 1, atMost: Int(Int32.max))
        case .page:
            options.maxPage = section.int("max-page", atLeast: 0, atMost: Int(Int32.max))
        case .auto: break
        }
        return options
    }

    private func ownersOfPaginateKeys(except style: PaginateStyle) -> [String: String] {
        var owners: [String: String] = [:]
        for key in Set(PaginateStyle.allCases.flatMap(\.keys)) where !style.keys.contains(key) {
            let styles = PaginateStyle.allCases.filter { $0.keys.contains(key) }.map(\.rawValue)
            owners[key] = "paginate style\(styles.count == 1 ? "" : "s") \(styles.joined(separator: ", "))"
        }
        return owners
    }

    private static func defaultPagination(_ style: PaginateStyle) -> RESTPaginationStyle {
        switch style {
        case .offset: .offset()
        case .page: .page()
        case .cursor: .cursor()
        case .nextLink: .nextLink()
        case .linkHeader: .linkHeader
        case .auto: .auto
        }
    }
}
