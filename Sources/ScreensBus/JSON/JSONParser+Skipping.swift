extension JSONParser {
    /// Reads the value at `index` as ``parseValue()`` does, accepting and refusing exactly
    /// the same input with the same errors, but builds nothing: the rows of a page that pass
    /// through are checked and their texts kept, and their values made only if asked for.
    mutating func skipValue() throws(JSONParseError) {
        skipWhitespace()
        guard index < end else { throw error(at: index, "unexpected end of input") }
        switch bytes[index] {
        case JSONByte.quote: try skipString()
        case JSONByte.openBrace: try skipObject()
        case JSONByte.openBracket: try skipArray()
        case JSONByte.minus, JSONByte.zero ... JSONByte.nine: try skipNumber()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        default: throw error(at: index, "expected a value")
        }
    }

    /// The string at `index`, checked; one with an escape is read by ``parseString()``, which
    /// checks its escapes (rare in rows, and it keeps one definition of them).
    private mutating func skipString() throws(JSONParseError) {
        var cursor = index + 1
        while true {
            cursor = skipPlainASCII(from: cursor)
            guard cursor < end else { throw error(at: cursor, "unexpected end of input inside a string") }
            let byte = bytes[cursor]
            if byte == JSONByte.quote {
                index = cursor + 1
                return
            } else if byte == JSONByte.backslash {
                _ = try parseString()
                return
            } else if byte < 0x20 {
                throw error(at: cursor, "control character in a string must be escaped")
            } else {
                cursor = try validateUTF8Sequence(at: cursor)
            }
        }
    }

    private mutating func skipArray() throws(JSONParseError) {
        _ = try enterContainer(isObject: false)
        skipWhitespace()
        if index < end, bytes[index] == JSONByte.closeBracket {
            index += 1
            leaveContainer(isObject: false, count: 0)
            return
        }
        var count = 0
        while true {
            try skipValue()
            count &+= 1
            skipWhitespace()
            guard index < end else { throw error(at: index, "unexpected end of input, expected ',' or ']'") }
            switch bytes[index] {
            case JSONByte.comma: index += 1
            case JSONByte.closeBracket:
                index += 1
                leaveContainer(isObject: false, count: count)
                return
            default: throw error(at: index, "expected ',' or ']'")
            }
        }
    }

    private mutating func skipObject() throws(JSONParseError) {
        _ = try enterContainer(isObject: true)
        skipWhitespace()
        if index < end, bytes[index] == JSONByte.closeBrace {
            index += 1
            leaveContainer(isObject: true, count: 0)
            return
        }
        var count = 0
        while true {
            skipWhitespace()
            guard index < end else { throw error(at: index, "unexpected end of input, expected a string key") }
            guard bytes[index] == JSONByte.quote else { throw error(at: index, "expected a string key") }
            try skipString()
            count &+= 1
            skipWhitespace()
            guard index < end else { throw error(at: index, "unexpected end of input, expected ':'") }
            guard bytes[index] == JSONByte.colon else { throw error(at: index, "expected ':'") }
            index += 1
            try skipValue()
            skipWhitespace()
            guard index < end else { throw error(at: index, "unexpected end of input, expected ',' or '}'") }
            switch bytes[index] {
            case JSONByte.comma: index += 1
            case JSONByte.closeBrace:
                index += 1
                leaveContainer(isObject: true, count: count)
                return
            default: throw error(at: index, "expected ',' or '}'")
            }
        }
    }

    /// The number at `index`, checked by the grammar ``parseNumber()`` reads, with its
    /// errors, but not converted.
    private mutating func skipNumber() throws(JSONParseError) {
        var cursor = index
        if bytes[cursor] == JSONByte.minus { cursor += 1 }
        guard cursor < end, isDigit(bytes[cursor]) else { throw error(at: cursor, "expected a digit") }
        if bytes[cursor] == JSONByte.zero {
            cursor += 1
            if cursor < end, isDigit(bytes[cursor]) { throw error(at: cursor, "leading zeros are not allowed") }
        } else {
            while cursor < end, isDigit(bytes[cursor]) { cursor += 1 }
        }
        if cursor < end, bytes[cursor] == JSONByte.dot {
            cursor += 1
            guard cursor < end, isDigit(bytes[cursor]) else { throw error(at: cursor, "expected a digit after the decimal point") }
            while cursor < end, isDigit(bytes[cursor]) { cursor += 1 }
        }
        if cursor < end, bytes[cursor] | 0x20 == UInt8(ascii: "e") {
            cursor += 1
            if cursor < end, bytes[cursor] == JSONByte.minus || bytes[cursor] == JSONByte.plus { cursor += 1 }
            guard cursor < end, isDigit(bytes[cursor]) else { throw error(at: cursor, "expected a digit in the exponent") }
            while cursor < end, isDigit(bytes[cursor]) { cursor += 1 }
        }
        index = cursor
    }
}
