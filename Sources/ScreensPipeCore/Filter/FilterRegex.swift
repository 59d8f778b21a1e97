/// A regular expression compiled once, for `matches`: parsed by ``RegexParser``, compiled to a
/// ``RegexProgram`` and run by a ``RegexMatcher`` in time linear in the text, so no pattern
/// and no row can make a filter run for ever.
struct FilterRegex: Sendable {
    private let matcher: RegexMatcher

    init(_ pattern: String) throws(RegexSyntaxError) {
        matcher = RegexMatcher(program: try RegexProgram(RegexParser.parse(pattern)))
    }

    /// Whether the pattern matches anywhere in `text` (anchor it with `^…$` for a whole match).
    func matches(_ text: String) -> Bool {
        matcher.matches(text)
    }
}
