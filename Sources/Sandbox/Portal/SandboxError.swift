/// Why a sandbox could not start.
public struct SandboxError: Error, Sendable, CustomStringConvertible {
    /// A human-readable reason, naming the file or directory involved.
    public var message: String

    /// Creates an error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
