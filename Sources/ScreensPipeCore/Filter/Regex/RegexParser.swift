/// Reads a pattern into a ``RegexNode`` tree, refusing what a linear-time engine cannot run.
///
/// Recursion follows group nesting only, which is capped at ``maximumGroupDepth``.
struct RegexParser {
    /// The longest pattern accepted, in characters.
    static let maximumLength = 10_000
    /// The deepest group nesting accepted.
    static let maximumGroupDepth = 100
    /// The largest count in `{n}`, `{n,}` and `{n,m}`.
    static let maximumRepeat = 1000

    private let pattern: [Character]
    private var position = 0
    private var flags = RegexFlags()
    private var depth = 0

    static func parse(_ pattern: String) throws(RegexSyntaxError) -> RegexNode {
        let characters = Array(pattern)
        guard characters.count <= maximumLength else {
            throw RegexSyntaxError(position: 0, message: "the pattern is longer than \(maximumLength) characters")
        }
        var parser = RegexParser(pattern: characters)
        let node = try parser.alternation()
        if parser.position < characters.count {
            // Only an unmatched `)` stops the top-level alternation early.
            throw RegexSyntaxError(position: parser.position, message: "unmatched ')'")
        }
        return node
    }

    private init(pattern: [Character]) { self.pattern = pattern }

    private var atEnd: Bool { position >= pattern.count }
    private var peek: Character? { atEnd ? nil : pattern[position] }

    private func peek(_ offset: Int) -> Character? {
        position + offset < pattern.count ? pattern[position + offset] : nil
    }

    private func error(_ message: String, at where_: Int? = nil) -> RegexSyntaxError {
        RegexSyntaxError(position: where_ ?? position, message: message)
    }

    // MARK: - Structure

    private mutating func alternation() throws(RegexSyntaxError) -> RegexNode {
        var branches = [try concatenation()]
        while peek == "|" {
            position += 1
            branches.append(try concatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func concatenation() throws(RegexSyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let next = peek, next != "|", next != ")" {
            guard let atom = try atom() else { continue }
            items.append(try quantified(atom))
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concatenation(items)
        }
    }

    /// One atom, or nil for a flag setting such as `(?i)` that matches nothing itself.
    private mutating func atom() throws(RegexSyntaxError) -> RegexNode? {
        let start = position
        let character = pattern[position]
        position += 1
        switch character {
        case "(": return try group(openingAt: start)
        case "[": return .set(try bracket(openingAt: start), ignoringCase: flags.caseInsensitive)
        case ".": return .any(matchingNewline: flags.dotMatchesNewline)
        case "^": return .assertion(flags.multiline ? .lineStart : .textStart)
        case "$": return .assertion(flags.multiline ? .lineEnd : .textEnd)
        case "\\": return try escape(startingAt: start)
        case "*", "+", "?":
            throw error("'\(character)' has nothing to repeat", at: start)
        case "{":
            position = start
            if (try? repeatCount()) != nil { throw error("'{' has nothing to repeat", at: start) }
            position = start + 1
            return .character("{", ignoringCase: false)
        default:
            return .character(character, ignoringCase: flags.caseInsensitive)
        }
    }

    private mutating func group(openingAt start: Int) throws(RegexSyntaxError) -> RegexNode? {
        let saved = flags
        if peek == "?" {
            position += 1
            switch peek {
            case ":":
                position += 1
            case "=", "!":
                throw error("lookahead '(?\(peek!)' is not supported: matches runs in linear time, without backtracking", at: start)
            case ">":
                throw error("atomic groups '(?>' are not supported", at: start)
            case "#":
                throw error("comments '(?#' are not supported", at: start)
            case "<" where peek(1) == "=" || peek(1) == "!":
                throw error("lookbehind '(?<\(peek(1)!)' is not supported: matches runs in linear time, without backtracking", at: start)
            case "<", "P":
                if peek == "P" {
                    position += 1
                    guard peek == "<" else { throw error("expected '<' after '(?P'") }
                }
                position += 1
                let nameStart = position
                while let next = peek, next != ">" {
                    guard next.isLetter || next.isNumber || next == "_" else { throw error("invalid group name") }
                    position += 1
                }
                guard peek == ">", position > nameStart else { throw error("unterminated group name", at: start) }
                position += 1
            default:
                var enabled = true
                var setting = flags
                while let next = peek, next != ")", next != ":" {
                    switch next {
                    case "i": setting.caseInsensitive = enabled
                    case "s": setting.dotMatchesNewline = enabled
                    case "m": setting.multiline = enabled
                    case "-" where enabled: enabled = false
                    default: throw error("unknown group flag '\(next)' (flags are i, s and m)")
                    }
                    position += 1
                }
                guard let end = peek else { throw error("missing ')'", at: start) }
                position += 1
                if end == ")" {
                    // `(?i)`: the flags hold until the end of the enclosing group.
                    flags = setting
                    return nil
                }
                flags = setting
            }
        }
        depth += 1
        guard depth <= Self.maximumGroupDepth else {
            throw error("groups nested deeper than \(Self.maximumGroupDepth) levels", at: start)
        }
        let inner = try alternation()
        depth -= 1
        guard peek == ")" else { throw error("missing ')'", at: start) }
        position += 1
        flags = saved
        return inner
    }

    // MARK: - Quantifiers

    private mutating func quantified(_ atom: RegexNode) throws(RegexSyntaxError) -> RegexNode {
        let start = position
        let bounds: (min: Int, max: Int?)
        switch peek {
        case "*": bounds = (0, nil); position += 1
        case "+": bounds = (1, nil); position += 1
        case "?": bounds = (0, 1); position += 1
        case "{":
            guard let counted = try repeatCount() else { return atom }
            bounds = counted
        default:
            return atom
        }
        if peek == "?" {
            position += 1  // lazy: the same language, and matches only asks whether there is a match
        } else if peek == "+" {
            throw error("possessive quantifiers are not supported", at: position)
        }
        if let next = peek, next == "*" || next == "+" || next == "?" || (next == "{" && (try? lookingAtRepeat()) == true) {
            throw error("a quantifier cannot follow another quantifier; group the first one", at: position)
        }
        _ = start
        return .repetition(atom, min: bounds.min, max: bounds.max)
    }

    private mutating func lookingAtRepeat() throws(RegexSyntaxError) -> Bool {
        let saved = position
        defer { position = saved }
        return try repeatCount() != nil
    }

    /// `{n}`, `{n,}` or `{n,m}` at the position; nil (position unchanged) when the brace does
    /// not start one, so it is a literal `{`.
    private mutating func repeatCount() throws(RegexSyntaxError) -> (min: Int, max: Int?)? {
        let start = position
        guard peek == "{" else { return nil }
        position += 1
        func number(_ parser: inout RegexParser) -> Int? {
            var digits = ""
            while let next = parser.peek, next.isASCII, next.isNumber {
                digits.append(next)
                parser.position += 1
            }
            guard !digits.isEmpty else { return nil }
            // More digits than any allowed count: saturate, the range check below reports it.
            return digits.count > 6 ? Int.max : Int(digits)
        }
        guard let low = number(&self) else {
            position = start
            return nil
        }
        var high: Int? = low
        if peek == "," {
            position += 1
            high = number(&self)
        }
        guard peek == "}" else {
            position = start
            return nil
        }
        position += 1
        guard low <= Self.maximumRepeat, (high ?? 0) <= Self.maximumRepeat else {
            throw error("repeat counts are at most \(Self.maximumRepeat)", at: start)
        }
        if let high, high < low { throw error("{\(low),\(high)}: the maximum is below the minimum", at: start) }
        return (low, high)
    }

    // MARK: - Escapes and classes

    private mutating func escape(startingAt start: Int) throws(RegexSyntaxError) -> RegexNode {
        guard let next = peek else { throw error("the pattern ends with a lone '\\'", at: start) }
        position += 1
        switch next {
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "A": return .assertion(.textStart)
        case "z": return .assertion(.textEnd)
        default:
            switch try classEscape(next, at: start) {
            case .character(let character): return .character(character, ignoringCase: flags.caseInsensitive)
            case let item: return .set(RegexCharacterSet(items: [item], negated: false), ignoringCase: false)
            }
        }
    }

    /// The escape after `\` (already read as `letter`), as a class item.
    private mutating func classEscape(_ letter: Character, at start: Int) throws(RegexSyntaxError) -> RegexCharacterSet.Item {
        switch letter {
        case "d": return .digit(negated: false)
        case "D": return .digit(negated: true)
        case "w": return .word(negated: false)
        case "W": return .word(negated: true)
        case "s": return .space(negated: false)
        case "S": return .space(negated: true)
        case "n": return .character("\n")
        case "t": return .character("\t")
        case "r": return .character("\r")
        case "f": return .character("\u{0C}")
        case "v": return .character("\u{0B}")
        case "0":
            // `\0`, `\0N`, `\0NN`: an octal character code, as RE2 and Perl read it.
            return .character(Character(octalScalar(first: 0, maximumDigits: 2)))
        case _ where Self.digitValue(letter).map({ (1...7).contains($0) }) == true && peek.map(Self.isOctalDigit) == true:
            // `\12`, `\123`: octal too, since a backreference would need backtracking anyway.
            return .character(Character(octalScalar(first: Self.digitValue(letter) ?? 0, maximumDigits: 2)))
        case "x": return .character(Character(try hexScalar(at: start)))
        case _ where Self.digitValue(letter).map({ (1...9).contains($0) }) == true, "k":
            throw error("backreferences are not supported: matches runs in linear time, without backtracking", at: start)
        case "p", "P":
            throw error("Unicode property classes '\\\(letter){...}' are not supported", at: start)
        case let other where other.isLetter || other.isNumber:
            throw error("unknown escape '\\\(other)'", at: start)
        case let punctuation:
            return .character(punctuation)
        }
    }

    /// The value of an ASCII digit. Not a `Character` range: `"0"..."7"` also holds `0` with
    /// a combining mark (one grapheme that sorts between them), which the fuzzer found.
    private static func digitValue(_ character: Character) -> Int? {
        guard let ascii = character.asciiValue, (48...57).contains(ascii) else { return nil }
        return Int(ascii - 48)
    }

    private static func isOctalDigit(_ character: Character) -> Bool { (digitValue(character) ?? 9) <= 7 }

    /// Reads up to `maximumDigits` more octal digits after `first`; at most 0o777.
    private mutating func octalScalar(first: Int, maximumDigits: Int) -> Unicode.Scalar {
        var value = first
        for _ in 0..<maximumDigits {
            guard let next = peek, Self.isOctalDigit(next) else { break }
            value = value * 8 + (Self.digitValue(next) ?? 0)
            position += 1
        }
        return Unicode.Scalar(UInt8(truncatingIfNeeded: value))
    }

    private mutating func hexScalar(at start: Int) throws(RegexSyntaxError) -> Unicode.Scalar {
        var digits = ""
        if peek == "{" {
            position += 1
            while let next = peek, next != "}" {
                digits.append(next)
                position += 1
                guard digits.count <= 8 else { throw error("\\x{...} holds at most 8 hex digits", at: start) }
            }
            guard peek == "}" else { throw error("unterminated \\x{", at: start) }
            position += 1
        } else {
            for _ in 0..<2 {
                guard let next = peek else { break }
                digits.append(next)
                position += 1
            }
        }
        guard let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value) else {
            throw error("invalid hex escape '\\x\(digits)'", at: start)
        }
        return scalar
    }

    private mutating func bracket(openingAt start: Int) throws(RegexSyntaxError) -> RegexCharacterSet {
        var set = RegexCharacterSet(items: [], negated: false)
        if peek == "^" {
            set.negated = true
            position += 1
        }
        var first = true
        while true {
            guard let next = peek else { throw error("missing ']'", at: start) }
            if next == "]" && !first {
                position += 1
                return set
            }
            first = false
            if next == "[", peek(1) == ":" || peek(1) == "=" || peek(1) == "." {
                throw error("POSIX classes such as '[:alpha:]' are not supported; use \\w, \\d, \\s or a range")
            }
            let low = try bracketMember(start: start)
            if peek == "-", let after = peek(1), after != "]" {
                position += 1
                let high = try bracketMember(start: start)
                guard case .character(let lowCharacter) = low, case .character(let highCharacter) = high,
                    lowCharacter.unicodeScalars.count == 1, highCharacter.unicodeScalars.count == 1,
                    let lowScalar = lowCharacter.unicodeScalars.first, let highScalar = highCharacter.unicodeScalars.first
                else { throw error("a range needs single characters at both ends") }
                guard lowScalar <= highScalar else { throw error("the range \(lowCharacter)-\(highCharacter) is out of order") }
                set.items.append(.range(lowScalar, highScalar))
            } else {
                set.items.append(low)
            }
        }
    }

    private mutating func bracketMember(start: Int) throws(RegexSyntaxError) -> RegexCharacterSet.Item {
        guard let next = peek else { throw error("missing ']'", at: start) }
        position += 1
        guard next == "\\" else { return .character(next) }
        guard let escaped = peek else { throw error("missing ']'", at: start) }
        position += 1
        if escaped == "b" { return .character("\u{08}") }
        return try classEscape(escaped, at: position - 2)
    }
}
