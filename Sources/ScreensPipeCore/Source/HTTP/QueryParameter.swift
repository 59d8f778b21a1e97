import ScreensBus

/// A query-string parameter.
public struct QueryParameter: Sendable, Hashable, CustomStringConvertible {
    /// The parameter name, sent percent-encoded.
    public var name: String
    /// The parameter value, sent percent-encoded; a ``SensitiveText/secret(_:)`` for
    /// secret-named parameters (`api_key`, `p_auth`, `access_token`...).
    public var text: SensitiveText

    /// The value as sent, for the transport and cache digests only.
    package var value: String { text.revealed }

    /// Creates a `name=value` parameter; the value is a secret when the name looks like one.
    public init(name: String, value: String) {
        self.name = name
        text = isSecretParameterName(name) ? .secret(Secret(value)) : .text(value)
    }

    /// Creates a `name=value` parameter with the value as given.
    public init(name: String, text: SensitiveText) {
        self.name = name
        self.text = text
    }

    /// `name=value`, or `name=<redacted>`.
    public var description: String { "\(name)=\(text)" }
}

/// A source type whose own parameters are its `query` (headless, REST): it sorts with a
/// `sort` parameter, and a `cache.key` template names query parameters.
protocol QueryParameterized: SourceTypeSettings {
    var query: [QueryParameter] { get }
}

extension QueryParameterized {
    var sortOrder: String? { query.last { $0.name == "sort" }?.value }

    func cacheKeyParameter(named name: String) -> (value: JSONValue, isSecret: Bool)? {
        query.cacheKeyParameter(named: name)
    }

    var cacheKeyParameterNames: [String] { query.map(\.name) }
}

extension [QueryParameter] {
    /// Query parameters keep their order in the cache key (an API may read a repeated name in
    /// order); secret values appear as digests.
    var cacheIdentity: JSONValue {
        .array(
            map {
                .array([.string($0.name), .string($0.text.isSecret || isSecretParameterName($0.name) ? CacheKey.digest($0.value) : $0.value)])
            })
    }

    /// The last value of `name`, for a `cache.key` template; secret when written `{ secret: value }`.
    func cacheKeyParameter(named name: String) -> (value: JSONValue, isSecret: Bool)? {
        last { $0.name == name }.map { (.string($0.value), contains { $0.name == name && $0.text.isSecret }) }
    }

    /// The parameters as `plan` prints them, secret values as `<redacted>`.
    var redactedValue: YAMLTextWriter.Value {
        .mapping(map { ($0.name, $0.text.isSecret || isSecretParameterName($0.name) ? .raw(redactedPlaceholder) : .string($0.value)) })
    }
}

extension SpecDecoder {
    /// `query:` as written, in order; `{ secret: value }` marks a secret whose name does not say so.
    func decodeQuery(_ section: Section) -> [QueryParameter] {
        section.mapping.pairs.compactMap { pair in
            sensitiveString(pair.value, key: pair.key.text).map { value, explicitSecret in
                explicitSecret
                    ? QueryParameter(name: pair.key.text, text: .secret(Secret(value)))
                    : QueryParameter(name: pair.key.text, value: value)
            }
        }
    }
}
