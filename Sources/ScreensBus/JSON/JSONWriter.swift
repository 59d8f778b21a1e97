/// Writes compact JSON (no spaces) into a growing byte buffer.
///
/// Strings are written as raw UTF-8 with only `"`, `\` and control characters escaped;
/// doubles in their shortest round-trip form. Reuse one writer across rows with ``reset()``
/// to keep its capacity.
public struct JSONWriter: Sendable {
    /// The JSON written so far, as UTF-8.
    public var bytes: [UInt8]

    /// Creates an empty writer.
    public init() {
        bytes = []
    }

    /// Creates an empty writer with room for `reservingCapacity` bytes.
    public init(reservingCapacity capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Empties the buffer, keeping its capacity.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends `text` verbatim; for envelopes such as `{"event":` around written values.
    public mutating func writeRaw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `value` as compact JSON.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeRaw("null")
        case .bool(let flag): flag ? writeRaw("true") : writeRaw("false")
        case .int(let integer): writeInt(integer)
        case .double(let double): writeDouble(double)
        case .number(let text): appendUTF8(of: text)
        case .string(let string): writeString(string)
        case .array(let elements):
            bytes.append(JSONByte.openBracket)
            var first = true
            for element in elements {
                if !first { bytes.append(JSONByte.comma) }
                first = false
                write(element)
            }
            bytes.append(JSONByte.closeBracket)
        case .object(let object):
            bytes.append(JSONByte.openBrace)
            for position in object.indices {
                if position != 0 { bytes.append(JSONByte.comma) }
                writeString(object.keys[position])
                bytes.append(JSONByte.colon)
                write(object.values[position])
            }
            bytes.append(JSONByte.closeBrace)
        }
    }

    /// Appends `integer` in decimal.
    public mutating func writeInt(_ integer: Int64) {
        if integer < 0 { bytes.append(JSONByte.minus) }
        var magnitude = integer.magnitude
        if magnitude < 10 {
            bytes.append(JSONByte.zero &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        // 20 digits hold UInt64.max; fill from the right, then copy the used part.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var position = 20
            while magnitude > 0 {
                let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: 10)
                position -= 1
                digits[position] = JSONByte.zero &+ UInt8(truncatingIfNeeded: remainder)
                magnitude = quotient
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[position...]))
        }
    }

    /// Appends `double` so that it parses back to the same value; NaN and infinities are
    /// not JSON and are written as `null`.
    public mutating func writeDouble(_ double: Double) {
        guard double.isFinite else {
            writeRaw("null")
            return
        }
        // Swift's description is the shortest representation that round-trips, and its
        // forms ("1e+308", "-0.0", "5e-324", "0.1") are all valid JSON numbers.
        appendUTF8(of: double.description)
    }

    /// Appends `string` quoted, escaping `"`, `\` and control characters only.
    public mutating func writeString(_ string: String) {
        bytes.append(JSONByte.quote)
        if let done: Void = string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) {
            _ = done
        } else {
            var copy = string
            copy.withUTF8 { appendEscaped($0) }
        }
        bytes.append(JSONByte.quote)
    }

    private mutating func appendUTF8(of text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: text.utf8)
        }
    }

    /// Copies runs of bytes that need no escaping in one go and escapes the rest.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard let base = utf8.baseAddress else { return }
        var runStart = 0
        while true {
            let position = Self.firstByteNeedingEscape(in: base, from: runStart, count: utf8.count)
            if runStart < position {
                bytes.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: position - runStart))
            }
            guard position < utf8.count else { return }
            appendEscape(for: base[position])
            runStart = position + 1
        }
    }

    /// The index of the first `"`, `\` or control character at or after `start`, or `count`.
    ///
    /// Eight bytes at a time, as the parser scans strings: the lowest flagged byte is a real hit.
    @inline(__always)
    private static func firstByteNeedingEscape(in base: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int {
        var position = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        while position + 8 <= count {
            let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
            let quotes = word ^ (ones &* UInt64(JSONByte.quote))
            let backslashes = word ^ (ones &* UInt64(JSONByte.backslash))
            let special = ((quotes &- ones) & ~quotes)
                | ((backslashes &- ones) & ~backslashes)
                | ((word &- ones &* 0x20) & ~word)
            let hits = special & 0x8080_8080_8080_8080
            if hits != 0 { return position + hits.trailingZeroBitCount / 8 }
            position += 8
        }
        while position < count {
            let byte = base[position]
            if byte < 0x20 || byte == JSONByte.quote || byte == JSONByte.backslash { return position }
            position += 1
        }
        return count
    }

    private mutating func appendEscape(for byte: UInt8) {
        bytes.append(JSONByte.backslash)
        switch byte {
        case JSONByte.quote: bytes.append(JSONByte.quote)
        case JSONByte.backslash: bytes.append(JSONByte.backslash)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(UInt8(ascii: "u"))
            bytes.append(JSONByte.zero)
            bytes.append(JSONByte.zero)
            bytes.append(hex.utf8Start[Int(byte >> 4)])
            bytes.append(hex.utf8Start[Int(byte & 0xF)])
        }
    }
}

extension JSONValue {
    /// The value as compact JSON text.
    public var jsonString: String {
        String(decoding: jsonBytes, as: UTF8.self)
    }

    /// The value as compact JSON, UTF-8 encoded.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }
}
