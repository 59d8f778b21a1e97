import ScreensBus

/// The key a pipeline's pages are cached under (the page index is stored beside it).
///
/// It holds everything that changes the answer: the server, the user, the configured `key`
/// (else the source's request: service and params, path or URL and query), the locale, the
/// sort and the page sizes. Liferay Screens left locale and sort out of its key, so a
/// changed locale served stale text; here they are always part of it.
///
/// The text is a canonical JSON object with its fields in a fixed order, so it is readable
/// in `cache list`, one line, and unambiguous: no value can forge another field. It never
/// holds a secret: a bearer token or custom headers appear as a SHA-256 prefix.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    /// The full key text.
    public var text: String

    /// Creates a key from its text as given, without checking it; ``init(spec:)`` derives one.
    public init(text: String) {
        self.text = text
    }

    /// The key text.
    public var description: String { text }

    /// The key of `spec`'s list.
    ///
    /// Throws a `.configuration` error when `cache.key` names a placeholder the source does
    /// not have, or has an unbalanced brace.
    public init(spec: PipelineSpec) throws(ScreensPipeError) {
        let source = spec.source
        var fields = JSONObject()
        fields["server"] = .string(Self.server(source.server))
        fields["user"] = .string(Self.user(source.auth))
        if !source.headers.isEmpty {
            fields["headers"] = .string(Self.headers(source.headers))
        }
        if let template = spec.cache?.key {
            fields["key"] = .string(try Self.expand(template, source: source.protocolSpec))
        } else {
            fields["request"] = Self.request(source.protocolSpec)
        }
        fields["locale"] = spec.convert?.locale.map(JSONValue.string) ?? .null
        fields["sort"] = Self.sort(source.protocolSpec).map(JSONValue.string) ?? .null
        fields["firstPageSize"] = .int(Int64(source.pagination.firstPageSize))
        fields["pageSize"] = .int(Int64(source.pagination.pageSize))
        text = JSONValue.object(fields).jsonString
    }

    // MARK: - Fields

    /// The sandbox's port changes every run, so it is named, not addressed.
    static func server(_ address: ServerAddress?) -> String {
        switch address {
        case .sandbox: return "sandbox"
        case .url(let url):
            var trimmed = Substring(url)
            while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
            return hashingSecrets(inURL: String(trimmed))
        case nil: return "none"
        }
    }

    private static func user(_ auth: AuthSpec?) -> String {
        switch auth {
        case .basic(let username, _): return username
        // 64 bits of the digest tell tokens apart without making the token recoverable.
        case .bearer(let token): return "bearer:sha256:" + SHA256.hexDigest(token.revealed, characters: 16)
        case nil: return "anonymous"
        }
    }

    /// Custom headers may carry credentials (cookies, API keys): they separate entries like
    /// a user does, and are named only by a digest.
    private static func headers(_ headers: [(name: String, value: SensitiveText)]) -> String {
        let lines = headers.map { "\($0.name.lowercased()): \($0.value.revealed)" }.sorted()
        return "sha256:" + SHA256.hexDigest(lines.joined(separator: "\n"), characters: 16)
    }

    /// A secret's value as a digest: entries stay apart per secret, the secret stays out.
    static func digest(_ secret: some StringProtocol) -> String {
        "sha256:" + SHA256.hexDigest(String(secret), characters: 16)
    }

    /// `url` with userinfo and secret-named query values as digests.
    static func hashingSecrets(inURL url: String) -> String {
        replacingSecrets(in: url, userinfo: { digest($0) + "@" }, value: { digest($0) })
    }

    /// Secret-named members (`p_auth`, `password`, `api_key`...) at any depth as digests.
    static func hashingSecretMembers(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            return .object(
                JSONObject(
                    object.map { member in
                        (member.key, isSecretParameterName(member.key) ? .string(digest(member.value.jsonString)) : hashingSecretMembers(member.value))
                    }))
        case .array(let array):
            return .array(array.map(hashingSecretMembers))
        default:
            return value
        }
    }

    private static func request(_ source: SourceProtocol) -> JSONValue {
        var request = JSONObject()
        request["type"] = .string(source.typeName)
        switch source {
        case .liferayJSONWS(let spec):
            request["rows"] = call(spec.rows)
            if let count = spec.count { request["count"] = call(count) }
        case .liferayHeadless(let spec):
            request["path"] = .string(hashingSecrets(inURL: spec.path))
            request["query"] = query(spec.query)
        case .rest(let spec):
            request["url"] = .string(hashingSecrets(inURL: spec.url))
            request["query"] = query(spec.query)
            request["records"] = spec.records.map(JSONValue.string) ?? .null
            request["total"] = spec.total.map(JSONValue.string) ?? .null
            request["paginate"] = .string(paginate(spec.paginate))
        case .file(let spec):
            request["path"] = .string(spec.path)
            request["records"] = spec.records.map(JSONValue.string) ?? .null
        case .custom(let fetcher):
            // The fetcher's identity never holds a secret (PageFetcher's contract); hashed
            // anyway, as a code-built source's text is not reviewed by the loader.
            request["identity"] = .string(digest(fetcher.identity))
        }
        return .object(request)
    }

    private static func call(_ call: ServiceCall) -> JSONValue {
        var params = call.params
        for (name, secret) in call.secrets { params[name] = .string(digest(secret.revealed)) }
        return ["service": .string(call.service), "params": canonical(hashingSecretMembers(.object(params)))]
    }

    /// Query parameters keep their order: an API may read a repeated name in order.
    private static func query(_ parameters: [QueryParameter]) -> JSONValue {
        .array(
            parameters.map {
                .array([.string($0.name), .string($0.text.isSecret || isSecretParameterName($0.name) ? digest($0.value) : $0.value)])
            })
    }

    private static func paginate(_ style: RESTPaginationStyle) -> String {
        switch style {
        case .offset(let offset, let limit): "offset \(offset) \(limit)"
        case .page(let page, let size, let first): "page \(page) \(size) \(first)"
        case .cursor(let param, let path, let size): "cursor \(param) \(path) \(size ?? "")"
        case .nextLink(let path): "next-link \(path)"
        case .linkHeader: "link-header"
        }
    }

    /// JSON-WS sorts with `obc`; the other protocols with a `sort` query parameter.
    private static func sort(_ source: SourceProtocol) -> String? {
        switch source {
        case .liferayJSONWS(let spec): spec.sort
        case .liferayHeadless(let spec): spec.query.last { $0.name == "sort" }?.value
        case .rest(let spec): spec.query.last { $0.name == "sort" }?.value
        case .file, .custom: nil
        }
    }

    /// Object members sorted by key at every level, so the order params were written in
    /// does not split one list into two keys.
    private static func canonical(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            let members = object.map { ($0.key, canonical($0.value)) }
                .sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
            return .object(JSONObject(members))
        case .array(let array):
            return .array(array.map(canonical))
        default:
            return value
        }
    }

    // MARK: - Templates

    /// Expands `{name}` placeholders from the source's parameters: the rows params, then the
    /// count params (JSON-WS; `{a.b}` reaches into an object param), or the query parameters.
    static func expand(_ template: String, source: SourceProtocol) throws(ScreensPipeError) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{", let close = rest[open...].firstIndex(of: "}") else {
                throw ScreensPipeError(.configuration, "cache.key \"\(template)\": unbalanced brace")
            }
            result += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            guard let value = parameter(name, in: source) else {
                let known = parameterNames(in: source)
                let hint = known.isEmpty ? "the source has no parameters" : "known: \(known.joined(separator: ", "))"
                throw ScreensPipeError(
                    .configuration, "cache.key \"\(template)\": unknown placeholder {\(name)}; \(hint)")
            }
            let lastComponent = name.split(separator: ".").last.map(String.init) ?? name
            switch value {
            case _ where isSecretParameterName(lastComponent) || isMarkedSecret(name, in: source): result += digest(value.jsonString)
            case .string(let text): result += text
            default: result += value.jsonString
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// Whether the query parameter `name` was written `{ secret: value }`.
    private static func isMarkedSecret(_ name: String, in source: SourceProtocol) -> Bool {
        switch source {
        case .liferayHeadless(let spec): spec.query.contains { $0.name == name && $0.text.isSecret }
        case .rest(let spec): spec.query.contains { $0.name == name && $0.text.isSecret }
        case .liferayJSONWS, .file, .custom: false
        }
    }

    private static func parameter(_ name: String, in source: SourceProtocol) -> JSONValue? {
        guard !name.isEmpty else { return nil }
        switch source {
        case .liferayJSONWS(let spec):
            for call in [spec.rows, spec.count].compactMap({ $0 }) {
                if let secret = call.secrets[name] { return .string(secret.revealed) }
                let params = call.params
                if let value = params[name] { return value }
                var value: JSONValue? = .object(params)
                for component in name.split(separator: ".", omittingEmptySubsequences: false) {
                    value = value?[String(component)]
                }
                if let value { return value }
            }
            return nil
        case .liferayHeadless(let spec):
            return spec.query.last { $0.name == name }.map { .string($0.value) }
        case .rest(let spec):
            return spec.query.last { $0.name == name }.map { .string($0.value) }
        case .file, .custom:
            return nil
        }
    }

    private static func parameterNames(in source: SourceProtocol) -> [String] {
        var names: [String] = []
        switch source {
        case .liferayJSONWS(let spec):
            let secretNames = spec.rows.secrets.keys.sorted() + (spec.count?.secrets.keys.sorted() ?? [])
            for key in spec.rows.params.keys + (spec.count?.params.keys ?? []) + secretNames where !names.contains(key) {
                names.append(key)
            }
        case .liferayHeadless(let spec):
            names = spec.query.map(\.name)
        case .rest(let spec):
            names = spec.query.map(\.name)
        case .file, .custom:
            break
        }
        return names
    }
}
