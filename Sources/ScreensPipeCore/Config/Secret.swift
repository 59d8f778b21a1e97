/// A password or token. It prints as `<redacted>` in every way Swift can show a value
/// (`"\(secret)"`, `debugPrint`, `dump`, `Mirror`), so a spec, an error or a debug log that
/// includes one cannot leak it. Only the HTTP transport reads ``revealed`` to build the
/// `Authorization` header, and the cache key reads it to make a digest.
public struct Secret: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    /// The secret itself, for the transport and the cache key's digest only.
    package let revealed: String

    /// Wraps `value`, as the pipeline loader does for `auth:` values.
    public init(_ value: String) {
        revealed = value
    }

    /// A literal secret, for tests and examples.
    public init(stringLiteral value: String) {
        revealed = value
    }

    /// `<redacted>`.
    public var description: String { redactedPlaceholder }

    /// `<redacted>`.
    public var debugDescription: String { redactedPlaceholder }

    /// No children: reflection shows nothing of the value.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// A configured text that may be a secret: a header value, a query or JSON-WS parameter.
///
/// The pipeline loader makes the value of every secret-named header and parameter (see
/// ``Secret``) a `.secret`, and so does the explicit form `{ secret: value }` for a value
/// whose name does not look secret. A `.secret` prints as `<redacted>` in every way Swift
/// shows a value; only the transport (and the cache key's digest) read ``revealed``.
public enum SensitiveText: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible,
    CustomDebugStringConvertible
{
    /// A value that may be shown as written.
    case text(String)
    /// A value shown only as `<redacted>`.
    case secret(Secret)

    /// `value` as a secret when `name` looks like it carries one (`Authorization`, `p_auth`,
    /// `api_key`...), else as text.
    public init(_ value: String, named name: String) {
        self = isSecretHeaderName(name) ? .secret(Secret(value)) : .text(value)
    }

    /// Plain text, for literals in code and tests.
    public init(stringLiteral value: String) {
        self = .text(value)
    }

    /// The value itself, for the transport and digests only.
    package var revealed: String {
        switch self {
        case .text(let text): text
        case .secret(let secret): secret.revealed
        }
    }

    /// Whether the value is a secret.
    public var isSecret: Bool {
        if case .secret = self { true } else { false }
    }

    /// The text, or `<redacted>`.
    public var description: String {
        switch self {
        case .text(let text): text
        case .secret: redactedPlaceholder
        }
    }

    /// The text quoted, or `<redacted>`.
    public var debugDescription: String {
        switch self {
        case .text(let text): text.debugDescription
        case .secret: redactedPlaceholder
        }
    }
}
