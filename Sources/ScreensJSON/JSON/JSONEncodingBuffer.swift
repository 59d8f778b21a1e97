/// The serialiser behind ``JSONWriter``: writes JSON into raw memory it owns.
///
/// Appending to an `Array` costs a uniqueness and a capacity check per call, which dominated
/// writing rows of short strings and numbers. This buffer checks capacity once per piece and
/// stores through a pointer; the writer then copies the finished piece into its array once.
struct JSONEncodingBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 32)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    /// The bytes written so far; valid only during `body`.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        body(UnsafeBufferPointer(start: base, count: count))
    }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count &+ extra > capacity { grow(toHold: count &+ extra) }
    }

    private mutating func grow(toHold needed: Int) {
        let newCapacity = max(needed, capacity &* 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    mutating func append(_ source: UnsafePointer<UInt8>, count length: Int) {
        reserve(length)
        (base + count).initialize(from: source, count: length)
        count &+= length
    }

    mutating func append(_ text: StaticString) {
        append(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// Appends a string's UTF-8 as it is (for `.number` text and formatted doubles).
    mutating func appendUTF8(of text: String) {
        var text = text
        text.withUTF8 { utf8 in
            if let source = utf8.baseAddress { append(source, count: utf8.count) }
        }
    }

    mutating func write(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let flag): flag ? append("true") : append("false")
        case .int(let integer): writeInt(integer)
        case .double(let double): writeDouble(double)
        case .number(let text): appendUTF8(of: text)
        case .string(let string): writeString(string)
        case .array(let elements):
            append(JSONByte.openBracket)
            for position in elements.indices {
                if position != 0 { append(JSONByte.comma) }
                write(elements[position])
            }
            append(JSONByte.closeBracket)
        case .object(let object):
            append(JSONByte.openBrace)
            for position in object.indices {
                if position != 0 { append(JSONByte.comma) }
                writeString(object.keys[position])
                append(JSONByte.colon)
                write(object.values[position])
            }
            append(JSONByte.closeBrace)
        }
    }

    mutating func writeInt(_ integer: Int64) {
        // A sign and 19 digits hold any Int64; digits are stored from the right, then the
        // used part is moved to the front.
        reserve(20)
        var cursor = base + count
        if integer < 0 {
            cursor.pointee = JSONByte.minus
            cursor += 1
        }
        var magnitude = integer.magnitude
        var digitCount = 1
        var scale: UInt64 = 10
        while digitCount < 20, magnitude >= scale {
            digitCount += 1
            if scale > UInt64.max / 10 { break }
            scale &*= 10
        }
        var position = digitCount
        repeat {
            let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: 10)
            position -= 1
            cursor[position] = JSONByte.zero &+ UInt8(truncatingIfNeeded: remainder)
            magnitude = quotient
        } while position > 0
        count = (cursor + digitCount) - base
    }

    mutating func writeDouble(_ double: Double) {
        guard double.isFinite else {
            append("null")
            return
        }
        // Swift's description is the shortest representation that round-trips, and its
        // forms ("1e+308", "-0.0", "5e-324", "0.1") are all valid JSON numbers.
        appendUTF8(of: double.description)
    }

    mutating func writeString(_ string: String) {
        let written: Void? = string.utf8.withContiguousStorageIfAvailable { writeQuoted($0) }
        if written == nil {
            var copy = string
            copy.withUTF8 { writeQuoted($0) }
        }
    }

    private mutating func writeQuoted(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Worst case: every byte becomes \u00XX, plus the quotes; reserve once.
        reserve(utf8.count &* 6 &+ 2)
        base[count] = JSONByte.quote
        count &+= 1
        if let source = utf8.baseAddress { appendEscaped(source, length: utf8.count) }
        base[count] = JSONByte.quote
        count &+= 1
    }

    /// Copies runs that need no escaping in one go and escapes the rest; room is reserved.
    private mutating func appendEscaped(_ source: UnsafePointer<UInt8>, length: Int) {
        var runStart = 0
        while true {
            let position = Self.firstByteNeedingEscape(in: source, from: runStart, count: length)
            (base + count).initialize(from: source + runStart, count: position - runStart)
            count &+= position - runStart
            guard position < length else { return }
            appendEscape(for: source[position])
            runStart = position + 1
        }
    }

    /// The index of the first `"`, `\` or control character at or after `start`, or `count`.
    ///
    /// Eight bytes at a time, as the parser scans strings: the lowest flagged byte is a real hit.
    @inline(__always)
    private static func firstByteNeedingEscape(in source: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int {
        var position = start
        while position + 8 <= count {
            let hits = escapeHits(UnsafeRawPointer(source + position).loadUnaligned(as: UInt64.self))
            if hits != 0 { return position + hits.trailingZeroBitCount / 8 }
            position += 8
        }
        while position < count {
            let byte = source[position]
            if byte < 0x20 || byte == JSONByte.quote || byte == JSONByte.backslash { return position }
            position += 1
        }
        return count
    }

    /// The high bit of each byte of `word` that may need escaping; the lowest one surely does.
    @inline(__always)
    private static func escapeHits(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quotes = word ^ (ones &* UInt64(JSONByte.quote))
        let backslashes = word ^ (ones &* UInt64(JSONByte.backslash))
        let special = ((quotes &- ones) & ~quotes)
            | ((backslashes &- ones) & ~backslashes)
            | ((word &- ones &* 0x20) & ~word)
        return special & 0x8080_8080_8080_8080
    }

    /// Writes the escape for `byte`; the caller has reserved room for six bytes.
    private mutating func appendEscape(for byte: UInt8) {
        let cursor = base + count
        cursor[0] = JSONByte.backslash
        let short: UInt8
        switch byte {
        case JSONByte.quote: short = JSONByte.quote
        case JSONByte.backslash: short = JSONByte.backslash
        case 0x08: short = UInt8(ascii: "b")
        case 0x0C: short = UInt8(ascii: "f")
        case 0x0A: short = UInt8(ascii: "n")
        case 0x0D: short = UInt8(ascii: "r")
        case 0x09: short = UInt8(ascii: "t")
        default:
            let hex: StaticString = "0123456789abcdef"
            cursor[1] = UInt8(ascii: "u")
            cursor[2] = JSONByte.zero
            cursor[3] = JSONByte.zero
            cursor[4] = hex.utf8Start[Int(byte >> 4)]
            cursor[5] = hex.utf8Start[Int(byte & 0xF)]
            count &+= 6
            return
        }
        cursor[1] = short
        count &+= 2
    }
}
