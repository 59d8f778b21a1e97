/// A regular expression compiled once, for `matches`.
///
/// Swift's `Regex` is immutable once built but not declared `Sendable`; this wrapper only
/// ever reads it, which is why sharing it across the pipeline's tasks is safe.
struct FilterRegex: @unchecked Sendable {
    private let regex: Regex<AnyRegexOutput>

    init(_ pattern: String) throws {
        regex = try Regex(pattern)
    }

    /// Whether the pattern matches anywhere in `text` (anchor it with `^…$` for a whole match).
    func matches(_ text: String) -> Bool {
        text.contains(regex)
    }
}
