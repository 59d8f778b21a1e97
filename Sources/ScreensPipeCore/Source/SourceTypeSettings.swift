import ScreensBus

/// One kind of source: the settings a `source:` section holds beyond the keys every type
/// shares, and everything built from them. A type lives in one folder under `Source/`
/// (its settings, their decoding, their redacted description, their cache identity and its
/// wire format) and is listed once, in ``SourceRegistry``.
protocol SourceTypeSettings: Sendable, Hashable {
    /// The `type:` name as written in a pipeline file.
    static var typeName: String { get }

    /// The keys of `source:` this type adds to `type` and `pagination`.
    static var ownKeys: [String] { get }

    /// Whether the network keys (`server`, `auth`, `timeout`, `headers`...) apply. A local
    /// file has no server, so none of them do.
    static var isNetworked: Bool { get }

    /// Reads the type's own keys; `shared` holds the keys every type shares (server and its
    /// context, auth, pagination), already decoded. Errors go to `decoder.context` with their
    /// positions; nil when any was found.
    static func decode(_ section: Section, decoder: SpecDecoder, shared: SourceSpec) -> Self?

    /// The own keys a `source:` of this type must hold, for the pipeline JSON Schema (the
    /// decoder reports each missing one itself, with its position).
    static var requiredKeys: [String] { get }

    /// Whether the server takes one page size for every page, so that a `first-page-size`
    /// different from `page-size` cannot apply (a `validate` error).
    static var takesOnePageSize: Bool { get }

    /// The type's own keys as `plan` prints them, secrets as `<redacted>`.
    var redactedMembers: [(String, YAMLTextWriter.Value)] { get }

    /// Everything about the list this type names that changes its answers, except server,
    /// user, locale and page sizes (the cache key holds those itself). Secret values appear
    /// as digests. The fetcher built from these settings reports it as its
    /// ``PageFetcher/identity``, and the cache key is built from that.
    var cacheIdentity: JSONValue { get }

    /// The ``PageFetcher/identity`` of the fetcher these settings build, known before it is
    /// built: ``cacheIdentity`` as JSON text for the built-in types.
    var identity: String { get }

    /// What the cache key holds for a fetcher whose ``PageFetcher/identity`` is `identity`.
    func cacheRequest(identity: String) -> JSONValue

    /// The sort order the source asks for, for the cache key; nil when it asks for none.
    var sortOrder: String? { get }

    /// The value of `{name}` in a `cache.key` template, and whether it is secret.
    func cacheKeyParameter(named name: String) -> (value: JSONValue, isSecret: Bool)?

    /// The names a `cache.key` template may use, for its error message.
    var cacheKeyParameterNames: [String] { get }

    /// The pagination the source really uses, from the one written in the file.
    func effectivePagination(_ written: PaginationSpec) -> PaginationSpec

    /// The source before anything is opened (see ``SourceBlueprint``).
    func blueprint(_ build: SourceBuild) throws(ScreensPipeError) -> SourceBlueprint
}

extension SourceTypeSettings {
    static var isNetworked: Bool { true }

    static var takesOnePageSize: Bool { false }

    static var requiredKeys: [String] { [] }

    var typeName: String { Self.typeName }

    var sortOrder: String? { nil }

    var identity: String { cacheIdentity.jsonString }

    /// A built-in fetcher's identity is ``cacheIdentity``'s text: the key holds it as JSON.
    func cacheRequest(identity: String) -> JSONValue {
        (try? JSONValue(parsing: Array(identity.utf8))) ?? ["type": .string(Self.typeName), "identity": .string(CacheKey.digest(identity))]
    }

    func cacheKeyParameter(named name: String) -> (value: JSONValue, isSecret: Bool)? { nil }

    var cacheKeyParameterNames: [String] { [] }

    func effectivePagination(_ written: PaginationSpec) -> PaginationSpec { written }

    /// Whether `other` holds the same type with equal settings.
    func isEqual(to other: any SourceTypeSettings) -> Bool {
        (other as? Self) == self
    }

    /// ``decode(_:decoder:shared:)`` for a type known only at run time (a registry entry).
    static func decodeSettings(_ section: Section, decoder: SpecDecoder, shared: SourceSpec) -> (any SourceTypeSettings)? {
        decode(section, decoder: decoder, shared: shared)
    }

    /// Every key a `source:` section of this type may hold.
    static var allowedKeys: [String] {
        SourceRegistry.sharedKeys + (isNetworked ? SourceRegistry.networkKeys : []) + ownKeys
    }
}

/// What building a source needs beyond its own settings.
struct SourceBuild: Sendable {
    /// The whole `source:` section (server, auth, headers, limits).
    var source: SourceSpec
    /// The server's base URL, the sandbox's once it runs; nil when there is none.
    var baseURL: String?
    /// `convert.locale`, which some wire formats send.
    var locale: String?
    var environment: PipelineEnvironment
    /// How the run reads the rows (its ``RowReadPlan``): parsed, or kept as texts.
    var rows: RowForm = .values

    /// The base URL, or a configuration error naming the type that needs one.
    func requireServer(type: String) throws(ScreensPipeError) -> String {
        guard let baseURL, !baseURL.isEmpty else {
            throw ScreensPipeError.configuration("source type \(type) needs a server (a base URL, or sandbox)")
        }
        guard ["http", "https"].contains(URLParts(baseURL).schemeName) else {
            throw ScreensPipeError.configuration("server must start with http:// or https://, found '\(redactedURL(baseURL))'")
        }
        return baseURL
    }

    /// An HTTP source of `wire`, after the checks every HTTP wire format shares.
    func http(_ wire: some WireFormat, url: String) throws(ScreensPipeError) -> SourceBlueprint {
        var settings = HTTPSourceSettings(source: source, configuredURL: url, onRetry: environment.onRetry, logger: environment.logger)
        settings.onResponseBody = environment.onResponseBody
        settings.keepsRowsAsTexts = rows.keepsTexts
        settings.rowMembers = rows.members
        // Checked here too, so `plan` and `validate`-time runs refuse before any request.
        try CredentialPolicy.requireSafeTransport(URLParts(url), sendsCredentials: settings.hasCredentials, source: source)
        if case .oauth2(let spec) = source.auth { _ = try spec.resolvedTokenURL(against: url, source: source) }
        try source.checkTransportRoute()
        if source.insecureSkipTLSVerify {
            environment.logger.warning(
                "TLS verification is off (source.insecure-skip-tls-verify): anyone on the network path can read and change this traffic")
        }
        return .http(wire, settings)
    }
}
