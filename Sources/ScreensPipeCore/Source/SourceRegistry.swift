/// The source types a pipeline file can name with `type:`. Adding a type is a folder under
/// `Source/` and one line in ``builtIn``. Code in this package (a test's toy type) can add
/// types for the duration of a task with ``withAdditionalTypes(_:operation:)``, which leaves
/// every other task's view of the registry untouched. A source written in Swift needs no
/// entry: it is passed as ``SourceTypeSpec/custom(_:)``.
enum SourceRegistry {
    /// The types every build knows, in the order messages list them.
    static let builtIn: [any SourceTypeSettings.Type] = [
        JSONWSSourceSpec.self,
        HeadlessSourceSpec.self,
        RESTSourceSpec.self,
        FileSourceSpec.self,
    ]

    @TaskLocal private static var additional: [any SourceTypeSettings.Type] = []

    /// The built-in types, then those added for the current task.
    static var types: [any SourceTypeSettings.Type] { builtIn + additional }

    /// Runs `operation` with `types` known as well (after the built-in ones, which keep
    /// their names).
    static func withAdditionalTypes<Result>(
        _ types: [any SourceTypeSettings.Type], operation: () throws -> Result
    ) rethrows -> Result {
        try $additional.withValue(additional + types, operation: operation)
    }

    /// The keys every type shares.
    static let sharedKeys = ["type", "pagination", "for-each", "include", "recursive"]

    /// The keys of every networked type (see ``SourceTypeSettings/isNetworked``).
    static let networkKeys = [
        "server", "auth", "timeout", "connect-timeout", "retry", "max-response-size", "allow-insecure-auth",
        "follow-other-origins", "ca-file", "insecure-skip-tls-verify", "headers", "rate-limit", "on-response",
    ] + SpecDecoder.transportRouteKeys
}
