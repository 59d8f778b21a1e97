import ScreensJSON

/// Parses a headless `filter` into an ``ODataExpression``, in bounded time and depth.
///
/// Date and date-time literals (`2024-01-31`, `2024-01-31T10:00:00Z`,
/// `2024-01-31T10:00:00.250+01:00`) are read by ScreensBus's ISO reader, as UTC epoch
/// milliseconds.
///
/// Hostile filters get a clear error instead of a deep recursion: the text is capped at
/// ``maximumLength`` characters and nesting at ``maximumDepth``.
struct ODataFilterParser {
    static let maximumLength = 4096
    static let maximumDepth = 32

    private enum Token: Equatable {
        case word(String)
        case string(String)
        case number(String)
        case openParenthesis, closeParenthesis, comma
        case end
    }

    private var tokens: [(token: Token, offset: Int)] = []
    private var position = 0
    private var depth = 0

    /// Parses `text`, or throws an ``ODataError`` naming the offending position.
    static func parse(_ text: String) throws(ODataError) -> ODataExpression {
        guard text.utf8.count <= maximumLength else {
            throw ODataError(message: "The filter is longer than \(maximumLength) characters")
        }
        var parser = ODataFilterParser()
        parser.tokens = try tokenize(text)
        let expression = try parser.parseOr()
        guard parser.current == .end else { throw parser.unexpected() }
        return expression
    }

    private var current: Token { tokens[position].token }

    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    private func unexpected() -> ODataError {
        let (token, offset) = tokens[position]
        let shown: String
        switch token {
        case .word(let word): shown = "'\(word)'"
        case .string(let text): shown = "the string '\(text)'"
        case .number(let number): shown = "the number \(number)"
        case .openParenthesis: shown = "'('"
        case .closeParenthesis: shown = "')'"
        case .comma: shown = "','"
        case .end: shown = "the end of the filter"
        }
        return ODataError(message: "Unable to parse the filter: unexpected \(shown) at position \(offset + 1)")
    }

    private mutating func nested<T>(_ body: (inout ODataFilterParser) throws(ODataError) -> T) throws(ODataError) -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw ODataError(message: "The filter nests deeper than \(Self.maximumDepth) levels")
        }
        return try body(&self)
    }

    private mutating func parseOr() throws(ODataError) -> ODataExpression {
        var left = try parseAnd()
        while current == .word("or") {
            advance()
            left = .or(left, try parseAnd())
        }
        return left
    }

    private mutating func parseAnd() throws(ODataError) -> ODataExpression {
        var left = try parseNot()
        while current == .word("and") {
            advance()
            left = .and(left, try parseNot())
        }
        return left
    }

    private mutating func parseNot() throws(ODataError) -> ODataExpression {
        if current == .word("not") {
            advance()
            return .not(try nested { parser throws(ODataError) in try parser.parseNot() })
        }
        let left = try parsePrimary()
        if case .word(let word) = current, let comparison = ODataComparison(rawValue: word) {
            advance()
            return .comparison(comparison, left, try parsePrimary())
        }
        return left
    }

    private mutating func parsePrimary() throws(ODataError) -> ODataExpression {
        switch current {
        case .openParenthesis:
            advance()
            let inner = try nested { parser throws(ODataError) in try parser.parseOr() }
            guard current == .closeParenthesis else { throw unexpected() }
            advance()
            return inner
        case .string(let text):
            advance()
            return .literal(.string(text))
        case .number(let text):
            advance()
            return .literal(try Self.number(text))
        case .word(let word):
            if ["and", "or", "not"].contains(word) || ODataComparison(rawValue: word) != nil { throw unexpected() }
            advance()
            switch word {
            case "true": return .literal(.boolean(true))
            case "false": return .literal(.boolean(false))
            case "null": return .literal(.null)
            case "contains", "startswith":
                guard current == .openParenthesis else { return .field(word) }
                advance()
                let subject = try nested { parser throws(ODataError) in try parser.parseOr() }
                guard current == .comma else { throw unexpected() }
                advance()
                let argument = try nested { parser throws(ODataError) in try parser.parseOr() }
                guard current == .closeParenthesis else { throw unexpected() }
                advance()
                return word == "contains" ? .contains(subject, argument) : .startsWith(subject, argument)
            default:
                if let date = ISODate.parse(word) { return .literal(.dateTime(date)) }
                guard current != .openParenthesis else {
                    throw ODataError(message: "The filter function \(word) is not supported")
                }
                return .field(word)
            }
        case .closeParenthesis, .comma, .end:
            throw unexpected()
        }
    }

    private static func number(_ text: String) throws(ODataError) -> ODataLiteral {
        if let integer = Int64(text) { return .integer(integer) }
        if let decimal = Double(text), decimal.isFinite { return .decimal(decimal) }
        throw ODataError(message: "Unable to parse the filter: \(text) is not a number")
    }

    /// Words (identifiers, keywords, date-times, `a/b` paths), quoted strings (`''` is a
    /// quote), numbers and punctuation.
    private static func tokenize(_ text: String) throws(ODataError) -> [(token: Token, offset: Int)] {
        let characters = Array(text.unicodeScalars)
        var tokens: [(Token, Int)] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let start = index
            switch character {
            case " ", "\t", "\n", "\r":
                index += 1
            case "(": tokens.append((.openParenthesis, start)); index += 1
            case ")": tokens.append((.closeParenthesis, start)); index += 1
            case ",": tokens.append((.comma, start)); index += 1
            case "'":
                var value = String.UnicodeScalarView()
                index += 1
                var closed = false
                while index < characters.count {
                    if characters[index] == "'" {
                        if index + 1 < characters.count, characters[index + 1] == "'" {
                            value.append("'")
                            index += 2
                            continue
                        }
                        closed = true
                        index += 1
                        break
                    }
                    value.append(characters[index])
                    index += 1
                }
                guard closed else {
                    throw ODataError(message: "Unable to parse the filter: the string at position \(start + 1) is not closed")
                }
                tokens.append((.string(String(value)), start))
            default:
                var word = String.UnicodeScalarView()
                while index < characters.count, !" \t\n\r(),'".unicodeScalars.contains(characters[index]) {
                    word.append(characters[index])
                    index += 1
                }
                let text = String(word)
                let first = text.unicodeScalars.first!
                let isNumber = (first == "-" || first == "+" || ("0"..."9").contains(first)) && ISODate.parse(text) == nil
                tokens.append((isNumber ? .number(text) : .word(text), start))
            }
        }
        tokens.append((.end, characters.count))
        return tokens
    }
}
