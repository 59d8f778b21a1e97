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
