import ScreensBus

/// The `source:` section: the keys every type shares, then the type's own.
extension SpecDecoder {
    /// A relative path of the file read from a pipeline file, resolved against that file's
    /// directory, so a pipeline runs the same from any working directory. Pipelines from
    /// standard input or text keep it relative to the working directory.
    func relativeToPipelineFile(_ path: String) -> String {
        RelativePath.resolve(path, againstDirectoryOf: file)
    }

    func decodeSource(_ section: Section) -> SourceSpec? {
        let types = SourceRegistry.types
        let type = section.required("type").flatMap { node in
            context.choice(node, key: "type", names: types.map { $0.typeName }) { name in types.first { $0.typeName == name } }
        }
        guard let type else {
            // Without a known type, only keys no type accepts are worth reporting.
            section.checkKeys(Array(Set(types.flatMap { $0.allowedKeys })).sorted())
            return nil
        }
        var owners: [String: String] = [:]
        for key in Set(types.flatMap { $0.allowedKeys }) where !type.allowedKeys.contains(key) {
            let names = types.filter { $0.allowedKeys.contains(key) }.map { $0.typeName }
            owners[key] = "source type\(names.count == 1 ? "" : "s") \(names.joined(separator: ", "))"
        }
        section.checkKeys(type.allowedKeys, elsewhere: owners, in: "source type '\(type.typeName)'")

        var spec = SourceSpec(type: .file(FileSourceSpec(path: "")))
        if let pagination = section.section("pagination") {
            spec.pagination = decodePagination(pagination)
            if type.takesOnePageSize { refuseFirstPageSize(pagination, spec.pagination, type: type.typeName) }
        }
        if type.isNetworked { decodeNetwork(section, into: &spec) }
        guard let settings = type.decodeSettings(section, decoder: self, shared: spec) else { return nil }
        spec.type = SourceTypeSpec(settings)
        decodeFanOut(section, into: &spec)
        return spec
    }

    /// A server that takes one page size for every page cannot honour a different first
    /// page size: said here rather than ignored.
    private func refuseFirstPageSize(_ section: Section, _ pagination: PaginationSpec, type: String) {
        guard let pair = section.mapping.pairs.first(where: { $0.key.text == "first-page-size" }),
            pagination.firstPageSize != pagination.pageSize
        else { return }
        context.fail(
            "'first-page-size' does not apply to source type '\(type)': the server takes one pageSize for every page, so page 0 has page-size (\(pagination.pageSize)) rows too; remove it, or set page-size",
            at: pair.key.location)
    }

    private func decodePagination(_ section: Section) -> PaginationSpec {
        section.checkKeys(SpecKeys.pagination)
        var spec = PaginationSpec()
        if let value = section.int("first-page-size", atLeast: 1, atMost: ConfigLimits.maximumPageSize) { spec.firstPageSize = value }
        if let value = section.int("page-size", atLeast: 1, atMost: ConfigLimits.maximumPageSize) { spec.pageSize = value }
        if let node = section["prefetch"], case .scalar(let scalar) = node, scalar.text == "auto" {
            spec.adaptivePrefetch = true
            spec.prefetch = section.int("max-prefetch", atLeast: 1, atMost: 64) ?? PaginationSpec.defaultPrefetchCeiling
        } else {
            if let value = section.int("prefetch", atLeast: 1, atMost: 64) { spec.prefetch = value }
            if let node = section["max-prefetch"] {
                context.fail("'max-prefetch' is the ceiling of 'prefetch: auto'; with a fixed prefetch, remove it", at: node.location)
            }
        }
        if let value = section.int("max-pages", atLeast: 1, atMost: ConfigLimits.maximumPages) { spec.maxPages = value }
        return spec
    }

    func decodeNetwork(_ section: Section, into spec: inout SourceSpec) {
        if let node = section["server"] {
            if case .mapping = node {
                decodeServerContext(node, into: &spec)
            } else if let text = context.nonEmptyString(node, key: "server") {
                spec.server = decodeServer(text, at: node.location)
            }
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
        decodeTransportRoute(section, into: &spec)
        if let headers = section.section("headers") { spec.headers = decodeHeaders(headers) }
        spec.rateLimit = section.section("rate-limit").flatMap(decodeRateLimit)
        if let node = section["on-response"] { spec.onResponse = decodeResponseRules(node) }
    }

    /// `server: { url: URL, company-id: N, group-id: N }`: the server and its context, as
    /// Liferay Screens' `LiferayServerContext` (server, companyId, groupId).
    private func decodeServerContext(_ node: YAMLNode, into spec: inout SourceSpec) {
        guard let section = Section(node, name: "source.server", context: context) else { return }
        section.checkKeys(["url", "company-id", "group-id"])
        if let urlNode = section.required("url", for: "source.server"), let text = context.nonEmptyString(urlNode, key: "url") {
            spec.server = decodeServer(text, at: urlNode.location)
        }
        let companyId = section.int("company-id", atLeast: 1, atMost: Int.max).map(Int64.init)
        let groupId = section.int("group-id", atLeast: 1, atMost: Int.max).map(Int64.init)
        spec.serverContext = ServerContext(companyId: companyId, groupId: groupId)
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
        let kinds = SpecKeys.auth.filter { section.mapping[$0] != nil }
        guard kinds.count == 1, let kind = kinds.first else {
            context.fail(
                kinds.isEmpty
                    ? "auth needs 'basic' (username, password), 'bearer' (a token), 'oauth2' (a token endpoint and a client) or 'cookie' (username, password)"
                    : "auth takes one of 'basic', 'bearer', 'oauth2' or 'cookie', not \(kinds.map { "'\($0)'" }.joined(separator: " and "))",
                at: section.location)
            return nil
        }
        switch kind {
        case "basic":
            guard let basic = Section(section.mapping["basic"]!, name: "\(section.name).basic", context: context) else { return nil }
            basic.checkKeys(SpecKeys.basicAuth)
            let username = basic.required("username").flatMap { context.nonEmptyString($0, key: "username") }
            let password = basic.required("password").flatMap { context.string($0, key: "password") }
            guard let username, let password else { return nil }
            return .basic(username: username, password: Secret(password))
        case "bearer":
            let token = section.required("bearer").flatMap { context.nonEmptyString($0, key: "bearer") }
            return token.map { .bearer(token: Secret($0)) }
        case "cookie":
            guard let cookie = Section(section.mapping["cookie"]!, name: "\(section.name).cookie", context: context) else { return nil }
            return decodeCookieSignIn(cookie).map(AuthSpec.cookie)
        default:
            guard let oauth2 = Section(section.mapping["oauth2"]!, name: "\(section.name).oauth2", context: context) else { return nil }
            return decodeOAuth2(oauth2).map(AuthSpec.oauth2)
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

    /// Header names are HTTP tokens; values may not break the header line (``ValueDestination/header``).
    private func decodeHeaders(_ section: Section) -> [HeaderSpec] {
        var headers: [HeaderSpec] = []
        let tokenPunctuation = Set("!#$%&'*+-.^_`|~")
        for pair in section.mapping.pairs {
            let name = pair.key.text
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || tokenPunctuation.contains($0)) }) else {
                context.fail("'\(name)' is not a valid HTTP header name", at: pair.key.location)
                continue
            }
            guard let (value, explicitSecret) = sensitiveString(pair.value, key: name) else { continue }
            do throws(ValueDestination.Refusal) {
                _ = try ValueDestination.header.admit(value)
            } catch {
                context.fail("the value of header '\(name)' must be one line: it \(error.reason)", at: pair.value.location)
                continue
            }
            headers.append(HeaderSpec(name: name, value: explicitSecret ? .secret(Secret(value)) : SensitiveText(value, named: name)))
        }
        return headers
    }

    // MARK: Shared by the source types

    /// A string value, or `{ secret: value }` for a secret whose name does not say so;
    /// returns the text and whether it was marked secret.
    func sensitiveString(_ node: YAMLNode, key: String) -> (String, Bool)? {
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
    func refusePagingParameters(_ names: [String], in section: Section, owner: String) {
        refusePagingParameters(names, in: section.mapping, named: section.name, owner: owner)
    }

    func refusePagingParameters(_ names: [String], in mapping: YAMLMapping, named name: String, owner: String) {
        for pair in mapping.pairs where names.contains(pair.key.text) {
            context.fail(
                "'\(pair.key.text)' is a paging parameter: the \(owner) sets it on every page; remove it from \(name)",
                at: pair.key.location)
        }
    }
}
