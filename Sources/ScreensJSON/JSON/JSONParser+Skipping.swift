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

    /// The string at `index`, checked; one with an escape is decoded as ``parseString()``
    /// decodes it, which checks its escapes (rare in rows, and it keeps one definition of them).
    private mutating func skipString() throws(JSONParseError) {
        let stop = try scanString(from: index + 1)
        if bytes[stop] == JSONByte.quote {
            index = stop + 1
        } else {
            _ = try parseEscapedString(start: index + 1, firstEscape: stop)
        }
    }

    /// The key at `index`, the `member`-th of its object, checked as ``skipString()`` checks
    /// it; a key that repeats the row before's at its place is passed after one comparison
    /// (see ``parseKey(member:)``), and no `String` is made of it.
    private mutating func skipKey(member: Int) throws(JSONParseError) {
        guard let slot = keySlot(member: member) else { return try skipString() }
        if passCachedKey(at: slot) { return }
        let start = index + 1
        let stop = try scanString(from: start)
        guard bytes[stop] == JSONByte.quote else {
            _ = try parseEscapedString(start: start, firstEscape: stop)
            return
        }
        cacheKey(at: slot, start: start, stop: stop, key: nil)
    }

    private mutating func skipArray() throws(JSONParseError) {
        _ = try enterContainer(isObject: false)
        var count = 0
        if !closesAtOnce(JSONByte.closeBracket) {
            repeat {
                try skipValue()
                count &+= 1
            } while try !passSeparator(closer: JSONByte.closeBracket)
        }
        leaveContainer(isObject: false, count: count)
    }

    private mutating func skipObject() throws(JSONParseError) {
        _ = try enterContainer(isObject: true)
        var count = 0
        if !closesAtOnce(JSONByte.closeBrace) {
            repeat {
                try reachKey()
                try skipKey(member: count)
                count &+= 1
                try passColon()
                try skipValue()
            } while try !passSeparator(closer: JSONByte.closeBrace)
        }
        leaveContainer(isObject: true, count: count)
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
            cursor = skipDigits(from: cursor)
        }
        if cursor < end, bytes[cursor] == JSONByte.dot {
            cursor += 1
            guard cursor < end, isDigit(bytes[cursor]) else { throw error(at: cursor, "expected a digit after the decimal point") }
            cursor = skipDigits(from: cursor)
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
