/// The keys each mapping of a pipeline file accepts: what the decoder checks and what the
/// JSON Schema (`screens-pipe schema`) lists, so the two cannot drift apart. The keys of
/// `source` depend on its type (``SourceRegistry``) and those of `source.paginate`
/// on its style (``SpecDecoder/PaginateStyle``).
enum SpecKeys {
    static let topLevel = ["name", "source", "convert", "cache", "filter", "sink", "incremental", "follow"]
    static let convert = ["model", "locale", "fields", "on-invalid"]
    /// One entry of `convert.fields` written as a mapping.
    static let fieldMapping = ["from", "type", "default", "required", "localized"]
    static let cache = ["policy", "key", "ttl", "path", "url", "tls", "ca-file", "lock-wait"]
    static let filter = ["where", "limit"]
    /// The keys of every sink: the built-in types' and those only a registered
    /// ``SinkType`` takes (`table` of `type: postgres`).
    static var sink: [String] {
        var keys = ["type", "path", "format", "fields"]
        for type in BackendRegistry.sinkTypes { for key in type.ownKeys where !keys.contains(key) { keys.append(key) } }
        return keys
    }
    static let pagination = ["first-page-size", "page-size", "prefetch", "max-prefetch", "max-pages"]
    static let auth = ["basic", "bearer", "oauth2", "cookie"]
    static let cookieAuth = ["username", "password", "login-path"]
    static let oauth2Auth = ["token-url", "grant", "client-id", "client-secret", "refresh-token", "username", "password", "scope", "client-auth", "allow-other-token-origin", "proxy"]
    static let basicAuth = ["username", "password"]
    static let retry = ["attempts", "backoff", "max-backoff"]
    /// Every key of `source`, of any type, in the order the types list them.
    static let source: [String] = {
        var keys: [String] = []
        for type in SourceRegistry.builtIn { for key in type.allowedKeys where !keys.contains(key) { keys.append(key) } }
        return keys
    }()
    /// `rows` and `count` of a JSON-WS source.
    static let serviceCall = ["service", "params"]

    /// Each key of a top-level section, with the dotted paths it belongs at: what a key
    /// written at the top level most likely meant (`retry` -> `source.retry`).
    static let sectionOfKey: [String: [String]] = {
        var places: [String: [String]] = [:]
        for (section, keys) in [("source", source), ("convert", convert), ("cache", cache), ("filter", filter), ("sink", sink)] {
            for key in keys { places[key, default: []].append("\(section).\(key)") }
        }
        return places
    }()
}
