extension JSONParser {
    /// Parses the string starting at the opening quote at `index`.
    ///
    /// The fast path finds the closing quote while validating UTF-8 and builds the `String`
    /// once from the bytes in place; only strings with escapes take the copying slow path.
    mutating func parseString() throws(JSONParseError) -> String {
        let start = index + 1
        var cursor = start
        while true {
            // Plain ASCII is the common case: skip it in a tight loop.
            while cursor < end {
                let byte = bytes[cursor]
                if byte == JSONByte.quote || byte == JSONByte.backslash || byte < 0x20 || byte >= 0x80 { break }
                cursor += 1
            }
            guard cursor < end else { throw error(at: cursor, "unexpected end of input inside a string") }
            let byte = bytes[cursor]
            if byte == JSONByte.quote {
                index = cursor + 1
                return String(decoding: UnsafeBufferPointer(start: bytes + start, count: cursor - start), as: UTF8.self)
            } else if byte == JSONByte.backslash {
                return try parseEscapedString(start: start, firstEscape: cursor)
            } else if byte < 0x20 {
                throw error(at: cursor, "control character in a string must be escaped")
            } else {
                cursor = try validateUTF8Sequence(at: cursor)
            }
        }
    }

    /// Decodes a string containing escapes into a scratch buffer; `firstEscape` is the first backslash.
    private mutating func parseEscapedString(start: Int, firstEscape: Int) throws(JSONParseError) -> String {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(firstEscape - start + 16)
        decoded.append(contentsOf: UnsafeBufferPointer(start: bytes + start, count: firstEscape - start))
        var cursor = firstEscape
        while true {
            guard cursor < end else { throw error(at: cursor, "unexpected end of input inside a string") }
            let byte = bytes[cursor]
            switch byte {
            case JSONByte.quote:
                index = cursor + 1
                return String(decoding: decoded, as: UTF8.self)
            case JSONByte.backslash:
                cursor = try decodeEscape(at: cursor, into: &decoded)
            case 0..<0x20:
                throw error(at: cursor, "control character in a string must be escaped")
            case 0x80...:
                let next = try validateUTF8Sequence(at: cursor)
                decoded.append(contentsOf: UnsafeBufferPointer(start: bytes + cursor, count: next - cursor))
                cursor = next
            default:
                decoded.append(byte)
                cursor += 1
            }
        }
    }

    /// Decodes the escape whose backslash is at `backslash`; returns the index after it.
    private func decodeEscape(at backslash: Int, into decoded: inout [UInt8]) throws(JSONParseError) -> Int {
        let letter = backslash + 1
        guard letter < end else { throw error(at: letter, "unexpected end of input inside a string") }
        switch bytes[letter] {
        case JSONByte.quote: decoded.append(JSONByte.quote)
        case JSONByte.backslash: decoded.append(JSONByte.backslash)
        case JSONByte.slash: decoded.append(JSONByte.slash)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            return try decodeUnicodeEscape(at: backslash, into: &decoded)
        default:
            throw error(at: letter, "invalid escape sequence")
        }
        return letter + 1
    }

    /// Decodes `\uXXXX`, joining a surrogate pair written as two escapes; lone surrogates are errors.
    private func decodeUnicodeEscape(at backslash: Int, into decoded: inout [UInt8]) throws(JSONParseError) -> Int {
        let unit = try hexQuad(at: backslash + 2)
        var next = backslash + 6
        var scalarValue = UInt32(unit)
        switch unit {
        case 0xD800...0xDBFF:
            guard next + 1 < end, bytes[next] == JSONByte.backslash, bytes[next + 1] == UInt8(ascii: "u") else {
                throw error(at: backslash, "unpaired high surrogate in \\u escape")
            }
            let low = try hexQuad(at: next + 2)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw error(at: backslash, "unpaired high surrogate in \\u escape")
            }
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            next += 6
        case 0xDC00...0xDFFF:
            throw error(at: backslash, "unpaired low surrogate in \\u escape")
        default:
            break
        }
        appendUTF8(scalarValue, to: &decoded)
        return next
    }

    private func hexQuad(at position: Int) throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for offset in position..<(position + 4) {
            guard offset < end else { throw error(at: offset, "unexpected end of input in \\u escape") }
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default: throw error(at: offset, "invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    private func appendUTF8(_ scalar: UInt32, to decoded: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            decoded.append(UInt8(scalar))
        case 0x80..<0x800:
            decoded.append(UInt8(0xC0 | scalar >> 6))
            decoded.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            decoded.append(UInt8(0xE0 | scalar >> 12))
            decoded.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            decoded.append(UInt8(0x80 | scalar & 0x3F))
        default:
            decoded.append(UInt8(0xF0 | scalar >> 18))
            decoded.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            decoded.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            decoded.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Checks the multi-byte UTF-8 sequence whose lead byte is at `lead` (RFC 3629: no overlong
    /// forms, no surrogates, nothing above U+10FFFF); returns the index after it.
    func validateUTF8Sequence(at lead: Int) throws(JSONParseError) -> Int {
        let first = bytes[lead]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch first {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw error(at: lead, "invalid UTF-8 byte")
        }
        guard lead + length <= end else { throw error(at: lead, "truncated UTF-8 sequence") }
        guard secondRange.contains(bytes[lead + 1]) else { throw error(at: lead, "invalid UTF-8 sequence") }
        for offset in (lead + 2)..<(lead + length) where bytes[offset] & 0xC0 != 0x80 {
            throw error(at: lead, "invalid UTF-8 sequence")
        }
        return lead + length
    }
}
