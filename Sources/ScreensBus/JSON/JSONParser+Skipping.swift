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
    /// it. Rows repeat their keys: one whose bytes equal the last key skipped at this depth
    /// and position, closed by a quote right after them, is that same valid string, so it is
    /// passed after one comparison instead of a scan.
    private mutating func skipKey(member: Int) throws(JSONParseError) {
        guard depth <= 8, member < 32 else { return try skipString() }
        let start = index + 1
        let slot = (depth &- 1) &+ member &* 8
        if slot < skippedKeys.count {
            let cached = skippedKeys[slot]
            let stop = start &+ cached.length
            if cached.length >= 0, stop < end, bytes[stop] == JSONByte.quote, bytesEqual(cached.offset, start, count: cached.length) {
                index = stop + 1
                return
            }
        } else {
            skippedKeys.append(contentsOf: repeatElement(SkippedKey(offset: 0, length: -1), count: slot + 1 - skippedKeys.count))
        }
        let stop = try scanString(from: start)
        guard bytes[stop] == JSONByte.quote else {
            _ = try parseEscapedString(start: start, firstEscape: stop)
            return
        }
        skippedKeys[slot] = SkippedKey(offset: start, length: stop - start)
        index = stop + 1
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
