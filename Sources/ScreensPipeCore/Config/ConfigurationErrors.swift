/// The name this type had before configuration and run errors became one family: a
/// pipeline file's mistakes are now one ``ScreensPipeError`` of code
/// ``ScreensPipeError/Code/configuration`` whose ``ScreensPipeError/errors`` lists them.
@available(*, deprecated, renamed: "ScreensPipeError")
public typealias ConfigurationErrors = ScreensPipeError

extension ScreensPipeError {
    /// Every mistake this error stands for: for a pipeline file with several, one error per
    /// mistake in file order, each with its location; for any other error, just `[self]`.
    public var errors: [ScreensPipeError] {
        grouped.isEmpty ? [self] : grouped
    }

    /// One error for all of `errors` (a pipeline file's mistakes): the error itself when there
    /// is one, else an error of code ``Code/configuration`` that lists them, in the order
    /// given, in ``errors`` and in its description (one `file:line:column: message` per line).
    public init(errors: [ScreensPipeError]) {
        switch errors.count {
        case 0:
            self.init(.configuration, "the pipeline is not valid")
        case 1:
            self = errors[0]
        default:
            self.init(.configuration, errors.map(\.description).joined(separator: "\n"))
            grouped = errors.flatMap(\.errors)
        }
    }

    /// `errors` in file order, then errors about `--set` overrides in the order of `overrides`
    /// (their location's file is the override's label), as one error. At a position in
    /// `exclusive` only the first error is kept, so a failed `${VAR}` is not also reported as
    /// a bad value.
    init(sorting errors: [ScreensPipeError], file: String, overrides: [String], exclusive: Set<SourceLocation>) {
        func rank(_ error: ScreensPipeError, _ index: Int) -> (Int, Int, Int, Int) {
            guard let location = error.location else { return (0, 0, 0, index) }
            if location.file == file { return (1, location.line, location.column, index) }
            return (2, overrides.firstIndex(of: location.file) ?? overrides.count, location.column, index)
        }
        var seen = Set<SourceLocation>()
        let ordered = errors.enumerated().sorted { rank($0.element, $0.offset) < rank($1.element, $1.offset) }.map(\.element)
        self.init(errors: ordered.filter { error in
            guard let location = error.location, exclusive.contains(location) else { return true }
            return seen.insert(location).inserted
        })
    }
}
