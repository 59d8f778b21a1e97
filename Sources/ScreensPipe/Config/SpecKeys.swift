/// The keys each mapping of a pipeline file accepts: what the decoder checks and what the
/// JSON Schema (`screens-pipe schema`) lists, so the two cannot drift apart. The keys of
/// `source` depend on its type (``SpecDecoder/SourceType``) and those of `source.paginate`
/// on its style (``SpecDecoder/PaginateStyle``).
enum SpecKeys {
    static let topLevel = ["name", "source", "convert", "cache", "filter", "sink"]
    static let convert = ["model", "locale", "fields", "on-invalid"]
    /// One entry of `convert.fields` written as a mapping.
    static let fieldMapping = ["from", "type", "default", "required", "localized"]
    static let cache = ["policy", "key", "ttl", "path"]
    static let filter = ["where", "limit"]
    static let sink = ["type", "path", "format", "fields"]
    static let pagination = ["first-page-size", "page-size", "prefetch", "max-pages"]
    static let auth = ["basic", "bearer"]
    static let basicAuth = ["username", "password"]
    static let retry = ["attempts", "backoff", "max-backoff"]
    /// `rows` and `count` of a JSON-WS source.
    static let serviceCall = ["service", "params"]
}
