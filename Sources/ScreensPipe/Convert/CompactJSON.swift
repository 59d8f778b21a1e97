#if canImport(Glibc)
internal import Glibc
#endif
import ScreensBus

/// Steps over rows kept as texts (``JSONElementTexts``): JSON that was checked when it
/// arrived and holds no whitespace between its tokens.
///
/// Because the text is known to be valid, a value's end is found by looking for the byte
/// that closes it, without checking anything on the way: a string ends at its first
/// unescaped quote, an object or array where its nesting returns to zero, a number or
/// literal at the next `,`, `}` or `]`. Every step still stays inside the buffer: a text
/// that is not what it claims gives `nil`, never a read past its end.
enum CompactJSON {
    // The parser's `JSONByte` bytes, here again: read from another module, each of those
    // constants is a call to its lazy initializer, and a row's scan reads them per byte
    // (measured: a seventh of a converted run).
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let comma = UInt8(ascii: ",")
    static let minus = UInt8(ascii: "-")
    static let zero = UInt8(ascii: "0")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")

    /// The offset just past the string whose opening quote is at `start`.
    @inline(__always)
    static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, openingAt start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = start + 1
        while offset < bytes.count {
            // The next quote, found by memchr; it closes the string unless an odd run of
            // backslashes comes before it.
            guard let hit = memchr(base + offset, Int32(quote), bytes.count - offset) else { return nil }
            let position = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base
            var backslashes = 0
            while position - backslashes - 1 > start, bytes[position - backslashes - 1] == backslash { backslashes += 1 }
            if backslashes & 1 == 0 { return position + 1 }
            offset = position + 1
        }
        return nil
    }

    /// The offset just past the value that starts at `start`.
    static func valueEnd(_ bytes: UnsafeBufferPointer<UInt8>, startingAt start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        switch bytes[start] {
        case quote:
            return stringEnd(bytes, openingAt: start)
        case openBrace, openBracket:
            var depth = 0
            var offset = start
            while offset < bytes.count {
                switch bytes[offset] {
                case quote:
                    guard let end = stringEnd(bytes, openingAt: offset) else { return nil }
                    offset = end
                    continue
                case openBrace, openBracket:
                    depth += 1
                case closeBrace, closeBracket:
                    depth -= 1
                    if depth == 0 { return offset + 1 }
                default:
                    break
                }
                offset += 1
            }
            return nil
        default:
            var offset = start + 1
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == comma || byte == closeBrace || byte == closeBracket { break }
                offset += 1
            }
            return offset
        }
    }

    /// Whether `range` holds a backslash (a string's content with an escape in it).
    @inline(__always)
    static func containsBackslash(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard !range.isEmpty, let base = bytes.baseAddress else { return false }
        return memchr(base + range.lowerBound, Int32(backslash), range.count) != nil
    }

    /// The integer a number text stands for, when the text is exactly how ``JSONWriter``
    /// writes that integer: digits with an optional minus, within Int64, not `-0`. A text
    /// the parser would read as another value (`1.0`, `1e3`, an id beyond Int64) gives nil.
    static func canonicalInteger(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int64? {
        var offset = range.lowerBound
        guard offset < range.upperBound else { return nil }
        let negative = bytes[offset] == minus
        if negative { offset += 1 }
        let digitsStart = offset
        guard offset < range.upperBound, range.upperBound - offset <= 19 else { return nil }
        var magnitude: UInt64 = 0
        while offset < range.upperBound {
            let digit = bytes[offset] &- zero
            guard digit < 10 else { return nil }
            magnitude = magnitude &* 10 &+ UInt64(digit)
            offset += 1
        }
        // A leading zero only stands alone (valid JSON has no `007`), and `-0` is written `0`.
        if bytes[digitsStart] == zero, offset - digitsStart > 1 || negative { return nil }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// Whether `left[leftRange]` and `right[rightRange]` hold the same bytes.
    @inline(__always)
    static func sameBytes(
        _ left: UnsafeBufferPointer<UInt8>, _ leftRange: Range<Int>, _ right: UnsafeBufferPointer<UInt8>, _ rightRange: Range<Int>
    ) -> Bool {
        guard leftRange.count == rightRange.count else { return false }
        guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return leftRange.isEmpty }
        return memcmp(leftBase + leftRange.lowerBound, rightBase + rightRange.lowerBound, leftRange.count) == 0
    }

    /// A member text that ``JSONWriter`` writes back byte for byte from the value a parse
    /// gives, so a stage may copy it: a string without escapes, a boolean, or an integer as
    /// ``canonicalInteger(_:_:)`` reads it.
    enum Literal {
        case plainString
        case boolean(Bool)
        case integer(Int64)
    }

    /// The ``Literal`` the value at `range` is, or nil for anything else (null, an escaped
    /// string, a decimal, an object or an array).
    @inline(__always)
    static func literal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Literal? {
        switch bytes[range.lowerBound] {
        case quote: containsBackslash(bytes, (range.lowerBound + 1)..<(range.upperBound - 1)) ? nil : .plainString
        case UInt8(ascii: "t"): .boolean(true)
        case UInt8(ascii: "f"): .boolean(false)
        case UInt8(ascii: "n"), openBrace, openBracket: nil
        default: canonicalInteger(bytes, range).map(Literal.integer)
        }
    }

    /// The contents of the string at `range` (quotes included in the range), which holds
    /// no escape, as a `String`.
    @inline(__always)
    static func plainString(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[(range.lowerBound + 1)..<(range.upperBound - 1)]), as: UTF8.self)
    }

    /// The value of the valid JSON at `range`, parsed.
    static func value(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> JSONValue? {
        try? JSONValue(parsing: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range])))
    }
}
