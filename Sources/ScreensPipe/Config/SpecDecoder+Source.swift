import ScreensBus

/// The `source:` section: the keys every type shares, then the type's own.
extension SpecDecoder {
    enum SourceType: String, CaseIterable {
        case liferayJSONWS = "liferay-jsonws"
        case liferayHeadless = "liferay-headless"
        case rest
        case file

        var ownKeys: [String] {
            switch self {
            case .liferayJSONWS: ["rows", "count", "sort", "start-param", "end-param"]
            case .liferayHeadless: ["path", "query"]
            case .rest: ["url", "records", "total", "query", "paginate"]
            case .file: ["path", "records"]
            }
        }

        /// A local file has no server, so none of the network settings apply to it.
        var isNetworked: Bool { self != .file }

        var allowedKeys: [String] {
            SpecDecoder.sharedSourceKeys + (isNetworked ? SpecDecoder.networkSourceKeys : []) + ownKeys
        }
    }

    static let sharedSourceKeys = ["type", "pagination"]
    static let networkSourceKeys = [
        "server", "auth", "timeout", "connect-timeout", "retry", "max-response-size", "allow-insecure-auth",
        "follow-other-origins", "ca-file", "insecure-skip-tls-verify", "headers",
    ]

    /// A relative path of the file read from a pipeline file, resolved against that file's
    /// directory, so a pipeline runs the same from any working directory. Pipelines from
    /// standard input or text keep it relative to the working directory.
    func relativeToPipelineFile(_ path: String) -> String {
        guard !path.hasPrefix("/"), let file, let slash = file.lastIndex(of: "/") else { return path }
        return String(file[...slash]) + path
    }

    func decodeSource(_ section: Section) -> SourceSpec? {
        let type = section.required("type").flatMap { context.choice($0, key: "type", SourceType.self) }
        guard let type else {
            // Without a known type, only keys no type accepts are worth reporting.
            section.checkKeys(Array(Set(SourceType.allCases.flatMap(\.allowedKeys))).sorted())
            return nil
        }
        var owners: [String: String] = [:]
        for key in Set(SourceType.allCases.flatMap(\.allowedKeys)) where !type.allowedKeys.contains(key) {
            let types = SourceType.allCases.filter { $0.allowedKeys.contains(key) }.map(\.rawValue)
            owners[key] = "source type\(types.count == 1 ? "" : "s") \(types.joined(separator: ", "))"
        }
        section.checkKeys(type.allowedKeys, elsewhere: owners, in: "source type '\(type.rawValue)'")

        var spec = SourceSpec(protocolSpec: .file(FileSourceSpec(path: "")))
        if let pagination = section.section("pagination") { spec.pagination = decodePagination(pagination) }
        if type.isNetworked { decodeNetwork(section, into: &spec) }
        let server = spec.server
        let protocolSpec: SourceProtocol?
        switch type {
        case .liferayJSONWS:
            if server == nil { _ = section.required("server", for: "source of type 'liferay-jsonws'") }
            protocolSpec = decodeJSONWS(section).map(SourceProtocol.liferayJSONWS)
        case .liferayHeadless:
            if server == nil { _ = section.required("server", for: "source of type 'liferay-headless'") }
            protocolSpec = decodeHeadless(section).map(SourceProtocol.liferayHeadless)
        case .rest:
            protocolSpec = decodeREST(section, hasServer: server != nil).map(SourceProtocol.rest)
        case .file:
            let path = section.required("path", for: "source of type 'file'").flatMap { context.nonEmptyString($0, key: "path") }
            protocolSpec = path.map { .file(FileSourceSpec(path: relativeToPipelineFile($0), records: section.nonEmptyString("records"))) }
        }
        guard let protocolSpec else { return nil }
        spec.protocolSpec = protocolSpec
        return spec
    }

    private func decodePagination(_ section: Section) -> PaginationSpec {
        section.checkKeys(SpecKeys.pagination)
        var spec = PaginationSpec()
        if let value = section.int("first-page-size", atLeast: 1, atMost: ConfigLimits.maximumPageSize) { spec.firstPageSize = value }
        if let value = section.int("page-size", atLeast: 1, atMost: ConfigLimits.maximumPageSize) { spec.pageSize = value }
        if let value = section.int("prefetch", atLeast: 1, atMost: 64) { spec.prefetch = value }
        if let value = section.int("max-pages", atLeast: 1, atMost: ConfigLimits.maximumPages) { spec.maxPages = value }
        return spec
    }

    private func decodeNetwork(_ section: Section, into spec: inout SourceSpec) {
        if let node = section["server"], let text = context.nonEmptyString(node, key: "server") {
            spec.server = decodeServer(text, at: node.location)
        }
        spec.auth = section.section("auth").flatMap(decodeAuth)
        if let value = section.duration("timeout", atMost: ConfigLimits.maximumTimeout) { spec.timeout = value }
        if let value = section.duration("connect-timeout", atMost: ConfigLimits.maximumTimeout) { spec.connectTimeout = value }
        if let retry = section.section("retry") { spec.retry = decodeRetry(retry) }
        if let value = section.size("max-response-size") { spec.maxResponseSize = value }
        if let value = section.bool("allow-insecure-auth") { spec.allowInsecureAuth = value }
        if let value = section.bool("follow-other-origins") { spec.followOtherOrigins = value }
        spec.caFile = section.nonEmptyString("ca-file")
        if let value = section.bool("insecure-skip-tls-verify") { spec.insecureSkipTLSVerify = value }
        if let headers = section.section("headers") { spec.headers = decodeHeaders(headers) }
    }

    /// `sandbox`, or an http(s) base URL (a trailing `/` is dropped so paths join cleanly).
    private func decodeServer(_ text: String, at location: SourceLocation) -> ServerAddress? {
        if text == "sandbox" { return .sandbox }
        let lowered = text.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lowered.hasPrefix($0) }),
            text.count > scheme.count, !text.contains(where: \.isWhitespace)
        else {
            context.fail("expected an http:// or https:// URL or 'sandbox' for 'server', found '\(Self.redactedServerText(text))'", at: location)
            return nil
        }
        var url = text
        while url.hasSuffix("/") { url.removeLast() }
        return .url(url)
    }

    /// A `server` value that is not a URL, for its error: anything before an `@` may be a
    /// user and password (`htp://alice:p/w@host`), so it is not shown.
    private static func redactedServerText(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return redactedURL(text, markingUserinfo: true) }
        let scheme = text.range(of: "://").map { String(text[..<$0.upperBound]) } ?? ""
        return scheme + redactedPlaceholder + String(text[at...])
    }

    private func decodeAuth(_ section: Section) -> AuthSpec? {
        section.checkKeys(SpecKeys.auth)
        let hasBasic = section.mapping["basic"] != nil
        let hasBearer = section.mapping["bearer"] != nil
        switch (hasBasic, hasBearer) {
        case (true, true):
            context.fail("auth takes one of 'basic' or 'bearer', not both", at: section.location)
            return nil
        case (false, false):
            context.fail("auth needs 'basic' (username, password) or 'bearer' (a token)", at: section.location)
            return nil
        case (true, false):
            guard let basic = Section(section.mapping["basic"]!, name: "\(section.name).basic", context: context) else { return nil }
            basic.checkKeys(SpecKeys.basicAuth)
            let username = basic.required("username").flatMap { context.nonEmptyString($0, key: "username") }
            let password = basic.required("password").flatMap { context.string($0, key: "password") }
            guard let username, let password else { return nil }
            return .basic(username: username, password: Secret(password))
        case (false, true):
            let token = section.required("bearer").flatMap { context.nonEmptyString($0, key: "bearer") }
            return token.map { .bearer(token: Secret($0)) }
        }
    }

    private func decodeRetry(_ section: Section) -> RetrySpec {
        section.checkKeys(SpecKeys.retry)
        var spec = RetrySpec()
        if let value = section.int("attempts", atLeast: 1, atMost: ConfigLimits.maximumAttempts) { spec.attempts = value }
        if let value = section.duration("backoff", atMost: ConfigLimits.maximumTimeout) { spec.backoff = value }
        if let value = section.duration("max-backoff", atMost: ConfigLimits.maximumTimeout) { spec.maxBackoff = value }
        if spec.maxBackoff < spec.backoff, let node = section["max-backoff"] ?? section["backoff"] {
            context.fail("'max-backoff' must not be shorter than 'backoff'", at: node.location)
        }
        return spec
    }

    /// Header names are HTTP tokens; values may not break the header line.
    private func decodeHeaders(_ section: Section) -> [(name: String, value: SensitiveText)] {
        var headers: [(name: String, value: SensitiveText)] = []
        let tokenPunctuation = Set("!#$%&'*+-.^_`|~")
        for pair in section.mapping.pairs {
            let name = pair.key.text
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || tokenPunctuation.contains($0)) }) else {
                context.fail("'\(name)' is not a valid HTTP header name", at: pair.key.location)
                continue
            }
            guard let (value, explicitSecret) = sensitiveString(pair.value, key: name) else { continue }
            if value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                context.fail("the value of header '\(name)' must be one line", at: pair.value.location)
                continue
            }
            headers.append((name, explicitSecret ? .secret(Secret(value)) : SensitiveText(value, named: name)))
        }
        return headers
    }

    // MARK: Protocols

    private func decodeJSONWS(_ section: Section) -> JSONWSSourceSpec? {
        let rows = section.required("rows", for: "source of type 'liferay-jsonws'")
            .flatMap { Section($0, name: "source.rows", context: context) }.flatMap(decodeServiceCall)
        var count = section.section("count").flatMap(decodeServiceCall)
        // A count command without `params` takes the rows command's: the same list, counted.
        if var call = count, let rows, case .mapping(let countMapping)? = section["count"], countMapping["params"] == nil {
            call.params = rows.params
            call.secrets = rows.secrets
            count = call
        }
        let sort = section.nonEmptyString("sort")
        let startParam = section.nonEmptyString("start-param") ?? "start"
        let endParam = section.nonEmptyString("end-param") ?? "end"
        if case .mapping(let rowsMapping)? = section["rows"], case .mapping(let params)? = rowsMapping["params"] {
            refusePagingParameters([startParam, endParam], in: params, named: "source.rows.params", owner: "liferay-jsonws source")
        }
        return rows.map { JSONWSSourceSpec(rows: $0, count: count, sort: sort, startParam: startParam, endParam: endParam) }
    }

    private func decodeServiceCall(_ section: Section) -> ServiceCall? {
        section.checkKeys(SpecKeys.serviceCall)
        var params = JSONObject()
        var markedSecrets: [String: Secret] = [:]
        if let node = section["params"] {
            if case .mapping(var mapping) = node {
                // `name: { secret: value }` marks a secret whose name does not say so.
                mapping.pairs.removeAll { pair in
                    guard case .mapping(let inner) = pair.value, inner.pairs.count == 1, inner.pairs[0].key.text == "secret",
                        case .scalar(let scalar) = inner.pairs[0].value
                    else { return false }
                    markedSecrets[pair.key.text] = Secret(scalar.text)
                    return true
                }
                params = context.jsonObject(mapping, key: "\(section.name).params")
            } else {
                context.fail("expected a mapping for 'params', found \(node.foundDescription)", at: node.location)
            }
        }
        guard let node = section.required("service"), let service = context.nonEmptyString(node, key: "service") else { return nil }
        guard service.hasPrefix("/") else {
            context.fail(
                "a JSON-WS service starts with '/' (such as /bookmarks.bookmarksentry/get-entries), found '\(service)'",
                at: node.location)
            return nil
        }
        var call = ServiceCall(service: service, params: params)
        call.secrets.merge(markedSecrets) { _, marked in marked }
        return call
    }

    private func decodeHeadless(_ section: Section) -> HeadlessSourceSpec? {
        let pathNode = section.required("path", for: "source of type 'liferay-headless'")
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

    /// A string value, or `{ secret: value }` for a secret whose name does not say so;
    /// returns the text and whether it was marked secret.
    private func sensitiveString(_ node: YAMLNode, key: String) -> (String, Bool)? {
        if case .mapping(let mapping) = node {
            guard mapping.pairs.count == 1, let pair = mapping.pairs.first, pair.key.text == "secret" else {
                context.fail("expected a string or { secret: value } for '\(key)', found a mapping", at: node.location)
                return nil
            }
            return context.string(pair.value, key: key).map { ($0, true) }
        }
        return context.string(node, key: key).map { ($0, false) }
    }

    /// The paging parameters belong to the paginator: a `query` (or `params`) entry of the
    /// same name would be overridden on every page, or fight it. Refused, with the position.
    private func refusePagingParameters(_ names: [String], in section: Section, owner: String) {
        refusePagingParameters(names, in: section.mapping, named: section.name, owner: owner)
    }

    private func refusePagingParameters(_ names: [String], in mapping: YAMLMapping, named name: String, owner: String) {
        for pair in mapping.pairs where names.contains(pair.key.text) {
            context.fail(
                "'\(pair.key.text)' is a paging parameter: the \(owner) sets it on every page; remove it from \(name)",
                at: pair.key.location)
        }
    }

    private func decodeQuery(_ section: Section) -> [QueryParameter] {
        section.mapping.pairs.compactMap { pair in
            sensitiveString(pair.value, key: pair.key.text).map { value, explicitSecret in
                explicitSecret
                    ? QueryParameter(name: pair.key.text, text: .secret(Secret(value)))
                    : QueryParameter(name: pair.key.text, value: value)
            }
        }
    }

    private func decodeREST(_ section: Section, hasServer: Bool) -> RESTSourceSpec? {
        let urlNode = section.required("url", for: "source of type 'rest'")
        let url = urlNode.flatMap { context.nonEmptyString($0, key: "url") }
        if let url, let urlNode, !hasServer, !["http://", "https://"].contains(where: url.lowercased().hasPrefix) {
            context.fail("'url' is relative ('\(redactedURL(url))'), so the source needs a 'server'", at: urlNode.location)
        }
        let paginate = section.required("paginate", for: "source of type 'rest'").flatMap(decodePaginate)
        let querySection = section.section("query")
        let query = querySection.map(decodeQuery) ?? []
        if let paginate, let querySection {
            refusePagingParameters(paginate.pagingParameters, in: querySection, owner: "paginate style")
        }
        guard let url, let paginate else { return nil }
        return RESTSourceSpec(
            url: url, records: section.nonEmptyString("records"), total: section.nonEmptyString("total"),
            paginate: paginate, query: query)
    }

    enum PaginateStyle: String, CaseIterable {
        case offset, page, cursor
        case nextLink = "next-link"
        case linkHeader = "link-header"

        var keys: [String] {
            switch self {
            case .offset: ["offset-param", "limit-param"]
            case .page: ["page-param", "size-param", "first-page"]
            case .cursor: ["cursor-param", "cursor-path", "size-param"]
            case .nextLink: ["next-path"]
            case .linkHeader: []
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
        }
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
        }
    }
}
