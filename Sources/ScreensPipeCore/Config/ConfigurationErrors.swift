/// Everything wrong with one pipeline file, sorted by position: each error has code
/// ``ScreensPipeError/Code/configuration`` and, except for an unreadable file, a location.
public struct ConfigurationErrors: Error, Sendable, CustomStringConvertible {
    /// The errors, in the order they are reported (file order for a loaded file).
    public var errors: [ScreensPipeError]

    /// Wraps `errors` as given.
    public init(errors: [ScreensPipeError]) {
        self.errors = errors
    }

    /// One line per error: `file:line:column: message`.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }

    /// `errors` in file order, then errors about `--set` overrides in the order of `overrides`
    /// (their location's file is the override's label). At a
    /// position in `exclusive` only the first error is kept, so a failed `${VAR}` is not also
    /// reported as a bad value.
    init(sorting errors: [ScreensPipeError], file: String, overrides: [String], exclusive: Set<SourceLocation>) {
        func rank(_ error: ScreensPipeError, _ index: Int) -> (Int, Int, Int, Int) {
            guard let location = error.location else { return (0, 0, 0, index) }
            if location.file == file { return (1, location.line, location.column, index) }
            return (2, overrides.firstIndex(of: location.file) ?? overrides.count, location.column, index)
        }
        var seen = Set<SourceLocation>()
        let ordered = errors.enumerated().sorted { rank($0.element, $0.offset) < rank($1.element, $1.offset) }.map(\.element)
        self.errors = ordered.filter { error in
            guard let location = error.location, exclusive.contains(location) else { return true }
            return seen.insert(location).inserted
        }
    }
}
