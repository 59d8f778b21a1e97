import ScreensBus

/// `type: liferay-headless`.
public struct HeadlessSourceSpec: Sendable, Hashable {
    /// The collection path, e.g. `/o/headless-delivery/v1.0/sites/20143/structured-contents`.
    public var path: String
    /// Extra query parameters (`filter`, `sort`, `fields`...), in order.
    public var query: [QueryParameter]

    /// Creates a headless source for the collection at `path`, with no extra query by default.
    public init(path: String, query: [QueryParameter] = []) {
        self.path = path
        self.query = query
    }
}

extension HeadlessSourceSpec: SourceTypeSettings, QueryParameterized {
    static var typeName: String { "liferay-headless" }

    static var ownKeys: [String] { ["path", "query"] }

    /// Headless delivery takes one `pageSize` for every page.
    static var takesOnePageSize: Bool { true }

    static var requiredKeys: [String] { ["path"] }

    static func decode(_ section: Section, decoder: SpecDecoder, shared: SourceSpec) -> Self? {
        if shared.server == nil { _ = section.required("server", for: "source of type '\(typeName)'") }
        return decoder.decodeHeadless(section)
    }

    var redactedMembers: [(String, YAMLTextWriter.Value)] {
        var members: [(String, YAMLTextWriter.Value)] = [("path", .string(redactedURL(path, markingUserinfo: true)))]
        if !query.isEmpty { members.append(("query", query.redactedValue)) }
        return members
    }

    var cacheIdentity: JSONValue {
        ["type": .string(Self.typeName), "path": .string(CacheKey.hashingSecrets(inURL: path)), "query": query.cacheIdentity]
    }

    /// The server takes one page size for every page, so the first page has it too.
    func effectivePagination(_ written: PaginationSpec) -> PaginationSpec {
        var pagination = written
        pagination.firstPageSize = pagination.pageSize
        return pagination
    }

    func blueprint(_ build: SourceBuild) throws(ScreensPipeError) -> SourceBlueprint {
        let base = try build.requireServer(type: Self.typeName)
        return try build.http(HeadlessWireFormat(spec: self, baseURL: base, locale: build.locale), url: base)
    }
}

extension SourceTypeSpec {
    /// `liferay-headless`: a headless delivery collection (7.1+), paged by 1-based `page` and `pageSize`.
    public static func liferayHeadless(_ spec: HeadlessSourceSpec) -> Self { Self(spec) }
}

extension SpecDecoder {
    fileprivate func decodeHeadless(_ section: Section) -> HeadlessSourceSpec? {
        let pathNode = section.required("path", for: "source of type '\(HeadlessSourceSpec.typeName)'")
        var path = pathNode.flatMap { context.nonEmptyString($0, key: "path") }
        // The path is joined to `server`: anything but a path would move the request (and its
        // credentials) to another host (`@other-host/o/...`, `//other-host/...`, `http://...`).
        if let text = path, let node = pathNode, !(text.hasPrefix("/") && !text.hasPrefix("//") && !text.contains("://")) {
            context.fail("'path' must be a path on the server starting with a single '/', found '\(redactedURL(text))'", at: node.location)
            path = nil
        }
        // One Section per mapping: making a second would report its duplicate keys again.
        let querySection = section.section("query")
        if let querySection {
            refusePagingParameters(["page", "pageSize"], in: querySection, owner: "liferay-headless source")
        }
        let query = querySection.map(decodeQuery) ?? []
        return path.map { HeadlessSourceSpec(path: $0, query: query) }
    }
}
