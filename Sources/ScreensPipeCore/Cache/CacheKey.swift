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

    /// The key of `spec`'s list, with the identity of the fetcher its source type builds.
    ///
    /// Throws a `.configuration` error when `cache.key` names a placeholder the source does
    /// not have, or has an unbalanced brace.
    public init(spec: PipelineSpec) throws(ScreensPipeError) {
        try self.init(spec: spec, identity: spec.source.type.settings.identity)
    }

    /// The key of `spec`'s list when `identity` is its fetcher's ``PageFetcher/identity``:
    /// the key holds a built-in source's identity (a canonical JSON object of its settings,
    /// secrets as digests) as it is, and a custom source's as a digest.
    public init(spec: PipelineSpec, identity: String) throws(ScreensPipeError) {
        let source = spec.source
        let settings = source.type.settings
        var fields = JSONObject()
        fields["server"] = .string(Self.server(source.server))
        fields["user"] = .string(Self.user(source.auth))
        if !source.headers.isEmpty {
            fields["headers"] = .string(Self.headers(source.headers))
        }
        if let template = spec.cache?.key {
            fields["key"] = .string(try Self.expand(template, source: settings))
        } else {
            fields["request"] = settings.cacheRequest(identity: identity)
        }
        fields["locale"] = spec.convert?.locale.map(JSONValue.string) ?? .null
        fields["sort"] = settings.sortOrder.map(JSONValue.string) ?? .null
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
        // The same user's rows, however the user signs in.
        case .basic(let username, _): return username
        case .cookie(let spec): return spec.username
        // 64 bits of the digest tell tokens apart without making the token recoverable.
        case .bearer(let token): return "bearer:sha256:" + SHA256.hexDigest(token.revealed, characters: 16)
        // Tokens change every run; the client (and the token endpoint) is who the rows are for.
        // The password grant acts as its user: the user separates entries as basic's does.
        case .oauth2(let spec):
            let owner = spec.resourceOwner.map { "\n\($0)" } ?? ""
            return "oauth2:sha256:" + SHA256.hexDigest("\(spec.tokenURL)\n\(spec.clientID)\n\(spec.scope ?? "")\(owner)", characters: 16)
        case nil: return "anonymous"
        }
    }

    /// Custom headers may carry credentials (cookies, API keys): they separate entries like
    /// a user does, and are named only by a digest.
    private static func headers(_ headers: [HeaderSpec]) -> String {
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

    /// Object members sorted by key at every level, so the order params were written in
    /// does not split one list into two keys.
    static func canonical(_ value: JSONValue) -> JSONValue {
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

    /// Expands `{name}` placeholders from the source's parameters (see
    /// ``SourceTypeSettings/cacheKeyParameter(named:)``); secret values as digests.
    static func expand(_ template: String, source: any SourceTypeSettings) throws(ScreensPipeError) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{", let close = rest[open...].firstIndex(of: "}") else {
                throw ScreensPipeError.configuration("cache.key \"\(template)\": unbalanced brace")
            }
            result += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            guard let parameter = source.cacheKeyParameter(named: name) else {
                let known = source.cacheKeyParameterNames
                let hint = known.isEmpty ? "the source has no parameters" : "known: \(known.joined(separator: ", "))"
                throw ScreensPipeError.configuration("cache.key \"\(template)\": unknown placeholder {\(name)}; \(hint)")
            }
            let lastComponent = name.split(separator: ".").last.map(String.init) ?? name
            let value = parameter.value
            switch value {
            case _ where isSecretParameterName(lastComponent) || parameter.isSecret: result += digest(value.jsonString)
            case .string(let text): result += text
            default: result += value.jsonString
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}
