/// Why a document is not valid JSON, and where.
///
/// `offset` is a byte offset into the whole input (for JSON lines, into the whole stream, not
/// the line), so a caller can point a user at the exact byte.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The byte offset of the problem in the input.
    public var offset: Int
    /// What is wrong at `offset`, in a few words.
    public var message: String

    /// Set when the document was refused for holding more elements in its kept array than
    /// the caller allowed (a page of more rows than asked): that limit. The document may
    /// be valid JSON; reading stopped at the first element past the limit.
    public var elementLimit: Int?

    /// Creates an error for the byte at `offset`.
    public init(offset: Int, message: String, elementLimit: Int? = nil) {
        self.offset = offset
        self.message = message
        self.elementLimit = elementLimit
    }

    /// "invalid JSON at byte N: message".
    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}
