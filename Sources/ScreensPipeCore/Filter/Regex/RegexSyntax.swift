/// The regular expression language of `matches`: the RE2 / POSIX ERE family, compiled to an
/// automaton (``RegexProgram``) and run by a Pike VM (``RegexMatcher``) in time linear in
/// the text. Constructs that need backtracking (backreferences, lookaround, possessive and
/// atomic groups) are refused when the filter is compiled, with the construct named.
///
/// Supported: literals; `.`; classes `[abc]`, `[^a-z0-9_]` with `\d \w \s` inside; escapes
/// `\d \D \w \W \s \S \b \B`, `\n \t \r \f \v \0`, `\xHH`, `\x{HHHH}` and any escaped
/// punctuation; anchors `^ $` (and `\A \z`); groups `( )`, `(?: )`, `(?<name> )`,
/// `(?P<name> )`; alternation `|`; quantifiers `* + ? {n} {n,} {n,m}` with their lazy
/// forms; flags `(?i)`, `(?s)`, `(?m)` and `(?i: )` groups.
///
/// The unit of matching is the `Character` (a grapheme cluster), as elsewhere in the filter
/// language: `.` matches `"👍🏽"` whole. `\d`, `\w` and `\s` are Unicode-aware.
///
/// Flags are resolved while parsing, onto the atoms they govern (a character knows whether it
/// ignores case, a `^` whether it is a line or a text start), so the tree has no flag nodes.
indirect enum RegexNode: Sendable, Equatable {
    case empty
    case character(Character, ignoringCase: Bool)
    case any(matchingNewline: Bool)
    case set(RegexCharacterSet, ignoringCase: Bool)
    case concatenation([RegexNode])
    case alternation([RegexNode])
    case repetition(RegexNode, min: Int, max: Int?)
    case assertion(RegexAssertion)
}

enum RegexAssertion: Sendable, Equatable {
    case textStart, textEnd, lineStart, lineEnd, wordBoundary, notWordBoundary
}

/// `i` (case-insensitive), `s` (`.` matches a line break), `m` (`^ $` at line breaks).
struct RegexFlags: Sendable, Equatable {
    var caseInsensitive = false
    var dotMatchesNewline = false
    var multiline = false
}

/// A bracket expression or a class escape: members, ranges and named classes, maybe negated.
struct RegexCharacterSet: Sendable, Equatable {
    enum Item: Sendable, Equatable {
        case character(Character)
        case range(Unicode.Scalar, Unicode.Scalar)
        case digit(negated: Bool)
        case word(negated: Bool)
        case space(negated: Bool)
    }

    var items: [Item]
    var negated: Bool

    func contains(_ character: Character, caseInsensitive: Bool) -> Bool {
        var found = items.contains { $0.matches(character) }
        if !found, caseInsensitive {
            let lower = Character(character.lowercased())
            let upper = Character(character.uppercased())
            found = items.contains { $0.matches(lower) || $0.matches(upper) }
        }
        return found != negated
    }
}

extension RegexCharacterSet.Item {
    func matches(_ character: Character) -> Bool {
        switch self {
        case .character(let member): return member == character
        case .range(let low, let high):
            guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else { return false }
            return low <= scalar && scalar <= high
        case .digit(let negated): return RegexClasses.isDigit(character) != negated
        case .word(let negated): return RegexClasses.isWord(character) != negated
        case .space(let negated): return character.isWhitespace != negated
        }
    }
}

enum RegexClasses {
    /// `\d`: a decimal digit of any script.
    static func isDigit(_ character: Character) -> Bool {
        character.unicodeScalars.first?.properties.numericType == .decimal
    }

    /// `\w`: letters, marks, decimal digits and connector punctuation (`_`).
    static func isWord(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        if character.isLetter || isDigit(character) || scalar.properties.generalCategory == .connectorPunctuation { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }
}

/// Why a pattern was refused, at a position (in characters) of the pattern.
struct RegexSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    var position: Int
    var message: String

    var description: String { "\(message) (at position \(position + 1) of the pattern)" }
}
