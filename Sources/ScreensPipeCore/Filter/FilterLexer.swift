import ScreensBus

/// One token of a filter expression, with its UTF-8 range.
struct FilterToken: Sendable {
    enum Kind: Sendable, Equatable {
        case leftParen, rightParen, leftBracket, rightBracket, comma
        case comparison(FilterOperator)
        case string(String)
        case number(JSONValue)
        /// A bare word: a keyword (`and`, `starts-with`, `true`...) or the head of a path.
        case word(String)
        case end
    }

    var kind: Kind
    var range: Range<Int>
}

/// Reads tokens on demand from a position, so the parser can hand a path to
/// ``FieldPathParser`` and carry on after it.
struct FilterLexer {
    let bytes: [UInt8]

    init(_ expression: String) {
        bytes = Array(expression.utf8)
    }

    /// The source text of a range, for messages.
    func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range.clamped(to: 0..<bytes.count)], as: UTF8.self)
    }

    /// The token at or after `position` (white space skipped).
    func token(at position: Int) throws(FilterSyntaxError) -> FilterToken {
        var start = position
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard start < bytes.count else { return FilterToken(kind: .end, range: start..<start) }
        func single(_ kind: FilterToken.Kind, length: Int = 1) -> FilterToken {
            FilterToken(kind: kind, range: start..<start + length)
        }
        let next: UInt8? = start + 1 < bytes.count ? bytes[start + 1] : nil
        switch bytes[start] {
        case UInt8(ascii: "("): return single(.leftParen)
        case UInt8(ascii: ")"): return single(.rightParen)
        case UInt8(ascii: "["): return single(.leftBracket)
        case UInt8(ascii: "]"): return single(.rightBracket)
        case UInt8(ascii: ","): return single(.comma)
        case UInt8(ascii: "="):
            guard next == UInt8(ascii: "=") else { throw FilterSyntaxError(offset: start, message: "unexpected '=' (equality is '==')") }
            return single(.comparison(.equal), length: 2)
        case UInt8(ascii: "!"):
            guard next == UInt8(ascii: "=") else { throw FilterSyntaxError(offset: start, message: "unexpected '!': use 'not'") }
            return single(.comparison(.notEqual), length: 2)
        // The operators of C-like languages, which the filter language spells as words.
        case UInt8(ascii: "&"):
            throw FilterSyntaxError(offset: start, message: "unexpected '\(next == UInt8(ascii: "&") ? "&&" : "&")': use 'and'")
        case UInt8(ascii: "|"):
            throw FilterSyntaxError(offset: start, message: "unexpected '\(next == UInt8(ascii: "|") ? "||" : "|")': use 'or'")
        case UInt8(ascii: "<"):
            return next == UInt8(ascii: "=") ? single(.comparison(.lessOrEqual), length: 2) : single(.comparison(.less))
        case UInt8(ascii: ">"):
            return next == UInt8(ascii: "=") ? single(.comparison(.greaterOrEqual), length: 2) : single(.comparison(.greater))
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            var end = start
            do throws(FieldPathSyntaxError) {
                let text = try FieldPathParser.quotedString(bytes, &end)
                return FilterToken(kind: .string(text), range: start..<end)
            } catch {
                throw FilterSyntaxError(offset: error.offset, message: error.message)
            }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number(at: start)
        case let byte where FieldPathParser.isIdentifierStart(byte):
            var end = start + 1
            while end < bytes.count, FieldPathParser.isIdentifierContinuation(bytes[end]) { end += 1 }
            return FilterToken(kind: .word(text(start..<end)), range: start..<end)
        default:
            throw FilterSyntaxError(offset: start, message: "unexpected '\(FieldPathParser.character(in: bytes, at: start))'")
        }
    }

    /// `-?digits(.digits)?([eE][+-]?digits)?`: an exact `.int` when it has no fraction or
    /// exponent and fits in 64 bits, a `.double` otherwise.
    private func number(at start: Int) throws(FilterSyntaxError) -> FilterToken {
        var end = start
        func digits() -> Int {
            let first = end
            while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) { end += 1 }
            return end - first
        }
        if bytes[end] == UInt8(ascii: "-") { end += 1 }
        guard digits() > 0 else { throw FilterSyntaxError(offset: start, message: "unexpected '-'") }
        var isInteger = true
        if end < bytes.count, bytes[end] == UInt8(ascii: ".") {
            end += 1
            isInteger = false
            guard digits() > 0 else { throw FilterSyntaxError(offset: end, message: "expected digits after '.'") }
        }
        if end < bytes.count, bytes[end] == UInt8(ascii: "e") || bytes[end] == UInt8(ascii: "E") {
            end += 1
            isInteger = false
            if end < bytes.count, bytes[end] == UInt8(ascii: "+") || bytes[end] == UInt8(ascii: "-") { end += 1 }
            guard digits() > 0 else { throw FilterSyntaxError(offset: end, message: "expected digits in the exponent") }
        }
        if end < bytes.count, FieldPathParser.isIdentifierContinuation(bytes[end]) || bytes[end] == UInt8(ascii: ".") {
            throw FilterSyntaxError(offset: start, message: "invalid number '\(text(start..<end + 1))'")
        }
        let literal = text(start..<end)
        let value: JSONValue =
            if isInteger, let exact = Int64(literal) { .int(exact) } else { .number(literal) }
        return FilterToken(kind: .number(value), range: start..<end)
    }
}
