extension JSONParser {
    /// Parses the string starting at the opening quote at `index`.
    ///
    /// The fast path finds the closing quote while validating UTF-8 and builds the `String`
    /// once from the bytes in place; only strings with escapes take the decoding slow path.
    mutating func parseString() throws(JSONParseError) -> String {
        let start = index + 1
        let stop = try scanString(from: start)
        guard bytes[stop] == JSONByte.quote else { return try parseEscapedString(start: start, firstEscape: stop) }
        index = stop + 1
        return String(decoding: UnsafeBufferPointer(start: bytes + start, count: stop - start), as: UTF8.self)
    }

    /// The index of the closing quote or the first backslash of the string whose text starts
    /// at `start`, checking the UTF-8 and the control characters on the way.
    @inline(__always)
    func scanString(from start: Int) throws(JSONParseError) -> Int {
        var cursor = start
        while true {
            cursor = skipPlainASCII(from: cursor)
            guard cursor < end else { throw error(at: cursor, "unexpected end of input inside a string") }
            let byte = bytes[cursor]
            if byte == JSONByte.quote || byte == JSONByte.backslash {
                return cursor
            } else if byte < 0x20 {
                throw error(at: cursor, "control character in a string must be escaped")
            } else {
                cursor = try validateUTF8Sequence(at: cursor)
            }
        }
    }

    /// Parses an object key at `index`, the `member`-th of its object.
    ///
    /// Rows of a page repeat the same keys in the same order, so a key whose bytes repeat
    /// the last key read at this depth and position is passed after one comparison and
    /// its `String` reused: no scan, no decoding, no allocation for long keys. Keys with
    /// escapes take the ordinary path.
    mutating func parseKey(member: Int) throws(JSONParseError) -> String {
        guard let slot = keySlot(member: member) else { return try parseString() }
        if passCachedKey(at: slot) {
            if let key = keyCache[slot].key { return key }
            let cached = keyCache[slot]
            let key = String(decoding: UnsafeBufferPointer(start: bytes + cached.offset, count: cached.length), as: UTF8.self)
            keyCache[slot].key = key
            return key
        }
        let start = index + 1
        let stop = try scanString(from: start)
        guard bytes[stop] == JSONByte.quote else { return try parseEscapedString(start: start, firstEscape: stop) }
        let key = String(decoding: UnsafeBufferPointer(start: bytes + start, count: stop - start), as: UTF8.self)
        cacheKey(at: slot, start: start, stop: stop, key: key)
        return key
    }

    /// The ``keyCache`` slot of the `member`-th key of an object at the current depth; nil
    /// for keys too deep or too far into their object to be worth one.
    @inline(__always)
    func keySlot(member: Int) -> Int? {
        guard depth <= 8, member < 32, cachesKeys else { return nil }
        return (depth &- 1) &+ member &* 8
    }

    /// Passes the key at `index` (its opening quote) when its bytes repeat the key cached
    /// at `slot` and a quote closes them; false, with nothing consumed, otherwise. The
    /// cached bytes were checked when they were read, so equal bytes are the same valid
    /// string.
    @inline(__always)
    mutating func passCachedKey(at slot: Int) -> Bool {
        guard slot < keyCache.count else { return false }
        // Only the position is read: copying the entry would retain its `String`.
        let offset = keyCache[slot].offset
        let length = keyCache[slot].length
        let start = index &+ 1
        let stop = start &+ length
        guard length >= 0, stop < end, bytes[stop] == JSONByte.quote, bytesEqual(offset, start, count: length) else { return false }
        index = stop &+ 1
        return true
    }

    /// Records the key whose text is `start..<stop` (checked, without escapes) at `slot`,
    /// and moves past its closing quote.
    @inline(__always)
    mutating func cacheKey(at slot: Int, start: Int, stop: Int, key: String?) {
        if slot >= keyCache.count {
            keyCache.append(contentsOf: repeatElement(CachedKey(offset: 0, length: -1, key: nil), count: slot + 1 - keyCache.count))
        }
        keyCache[slot] = CachedKey(offset: start, length: stop - start, key: key)
        index = stop + 1
    }

    /// Whether `count` input bytes at `first` and at `second` (`first < second`) are equal.
    @inline(__always)
    func bytesEqual(_ first: Int, _ second: Int, count: Int) -> Bool {
        Self.bytesEqual(bytes + first, bytes + second, count: count, lastWordReadable: second &+ (count & ~7) &+ 8 <= end)
    }

    /// Whether the `count` bytes at `a` and at `b` are equal, compared a word at a time.
    /// With `lastWordReadable` (8 bytes can be read at both from offset `count & ~7` on), the
    /// bytes past the last whole word are compared as one more word, those past `count`
    /// ignored; otherwise one by one.
    @inline(__always)
    static func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count: Int, lastWordReadable: Bool) -> Bool {
        var offset = 0
        while offset &+ 8 <= count {
            if UnsafeRawPointer(a + offset).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(b + offset).loadUnaligned(as: UInt64.self) {
                return false
            }
            offset &+= 8
        }
        let rest = count &- offset
        if rest == 0 { return true }
        if lastWordReadable {
            let difference = UnsafeRawPointer(a + offset).loadUnaligned(as: UInt64.self) ^ UnsafeRawPointer(b + offset).loadUnaligned(as: UInt64.self)
            return difference & (~0 >> UInt64(64 &- rest &* 8)) == 0
        }
        while offset < count {
            if a[offset] != b[offset] { return false }
            offset &+= 1
        }
        return true
    }

    /// The index of the first byte at or after `start` that is a quote, a backslash, a control
    /// character or non-ASCII (or `end`): everything before it can be copied as it is.
    ///
    /// Eight bytes at a time: each test below sets a byte's high bit when that byte may be
    /// special, never missing one; borrows only create false hits above a real one, so the
    /// lowest flagged byte is the first special one.
    @inline(__always)
    func skipPlainASCII(from start: Int) -> Int {
        var cursor = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        while cursor + 8 <= end {
            let word = UnsafeRawPointer(bytes + cursor).loadUnaligned(as: UInt64.self)
            let quotes = word ^ (ones &* UInt64(JSONByte.quote))
            let backslashes = word ^ (ones &* UInt64(JSONByte.backslash))
            let special = ((quotes &- ones) & ~quotes)
                | ((backslashes &- ones) & ~backslashes)
                | ((word &- ones &* 0x20) & ~word)
                | word
            let hits = special & highBits
            if hits != 0 {
                // The lowest flagged byte is always a real hit (borrows only spread upwards).
                return cursor + hits.trailingZeroBitCount / 8
            }
            cursor += 8
        }
        while cursor < end {
            let byte = bytes[cursor]
            if byte == JSONByte.quote || byte == JSONByte.backslash || byte < 0x20 || byte >= 0x80 { break }
            cursor += 1
        }
        return cursor
    }

    /// Decodes a string containing escapes into `scratch`; `firstEscape` is the first backslash.
    mutating func parseEscapedString(start: Int, firstEscape: Int) throws(JSONParseError) -> String {
        var length = 0
        appendToScratch(from: start, count: firstEscape - start, length: &length)
        var cursor = firstEscape
        while true {
            guard cursor < end else { throw error(at: cursor, "unexpected end of input inside a string") }
            let byte = bytes[cursor]
            if byte == JSONByte.quote {
                index = cursor + 1
                return String(decoding: UnsafeBufferPointer(rebasing: scratch[..<length]), as: UTF8.self)
            } else if byte == JSONByte.backslash {
                cursor = try decodeEscape(at: cursor, length: &length)
            } else if byte < 0x20 {
                throw error(at: cursor, "control character in a string must be escaped")
            } else if byte >= 0x80 {
                let next = try validateUTF8Sequence(at: cursor)
                appendToScratch(from: cursor, count: next - cursor, length: &length)
                cursor = next
            } else {
                let runEnd = skipPlainASCII(from: cursor)
                appendToScratch(from: cursor, count: runEnd - cursor, length: &length)
                cursor = runEnd
            }
        }
    }

    /// Makes room for `needed` bytes in `scratch`, keeping the first `length`.
    @inline(__always)
    private mutating func reserveScratch(_ needed: Int, length: Int) {
        guard needed > scratch.count else { return }
        let grown = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(needed, scratch.count * 2, 256))
        if length > 0 {
            _ = grown.initialize(fromContentsOf: scratch[..<length])
        }
        scratch.deallocate()
        scratch = grown
    }

    private mutating func appendToScratch(from position: Int, count: Int, length: inout Int) {
        guard count > 0 else { return }
        reserveScratch(length + count, length: length)
        (scratch.baseAddress! + length).update(from: bytes + position, count: count)
        length += count
    }

    @inline(__always)
    private mutating func appendToScratch(_ byte: UInt8, length: inout Int) {
        scratch[length] = byte
        length += 1
    }

    /// Decodes the escape whose backslash is at `backslash`; returns the index after it.
    private mutating func decodeEscape(at backslash: Int, length: inout Int) throws(JSONParseError) -> Int {
        let letter = backslash + 1
        guard letter < end else { throw error(at: letter, "unexpected end of input inside a string") }
        reserveScratch(length + 4, length: length)
        let decoded: UInt8
        switch bytes[letter] {
        case JSONByte.quote: decoded = JSONByte.quote
        case JSONByte.backslash: decoded = JSONByte.backslash
        case JSONByte.slash: decoded = JSONByte.slash
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"):
            return try decodeUnicodeEscape(at: backslash, length: &length)
        default:
            throw error(at: letter, "invalid escape sequence")
        }
        appendToScratch(decoded, length: &length)
        return letter + 1
    }

    /// Decodes `\uXXXX`, joining a surrogate pair written as two escapes; lone surrogates are
    /// errors. The caller has reserved room for the 4 bytes a scalar may need.
    private mutating func decodeUnicodeEscape(at backslash: Int, length: inout Int) throws(JSONParseError) -> Int {
        let unit = try hexQuad(at: backslash + 2)
        var next = backslash + 6
        var scalar = UInt32(unit)
        switch unit {
        case 0xD800...0xDBFF:
            guard next + 1 < end, bytes[next] == JSONByte.backslash, bytes[next + 1] == UInt8(ascii: "u") else {
                throw error(at: backslash, "unpaired high surrogate in \\u escape")
            }
            let low = try hexQuad(at: next + 2)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw error(at: backslash, "unpaired high surrogate in \\u escape")
            }
            scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            next += 6
        case 0xDC00...0xDFFF:
            throw error(at: backslash, "unpaired low surrogate in \\u escape")
        default:
            break
        }
        switch scalar {
        case 0..<0x80:
            appendToScratch(UInt8(scalar), length: &length)
        case 0x80..<0x800:
            appendToScratch(UInt8(0xC0 | scalar >> 6), length: &length)
            appendToScratch(UInt8(0x80 | scalar & 0x3F), length: &length)
        case 0x800..<0x10000:
            appendToScratch(UInt8(0xE0 | scalar >> 12), length: &length)
            appendToScratch(UInt8(0x80 | scalar >> 6 & 0x3F), length: &length)
            appendToScratch(UInt8(0x80 | scalar & 0x3F), length: &length)
        default:
            appendToScratch(UInt8(0xF0 | scalar >> 18), length: &length)
            appendToScratch(UInt8(0x80 | scalar >> 12 & 0x3F), length: &length)
            appendToScratch(UInt8(0x80 | scalar >> 6 & 0x3F), length: &length)
            appendToScratch(UInt8(0x80 | scalar & 0x3F), length: &length)
        }
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
