#if canImport(Glibc)
internal import Glibc
#endif
import ScreensBus

/// Reads the member texts of rows kept as texts (``JSONElementTexts``): JSON that was checked
/// when it arrived and holds no whitespace between its tokens, so a member's text can be
/// classified and copied without parsing it. Every read stays inside the buffer.
enum CompactJSON {
    // The parser's `JSONByte` bytes, here again: read from another module, each of those
    // constants is a call to its lazy initializer, and a row's steps read them per byte
    // (measured: a seventh of a converted run).
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let comma = UInt8(ascii: ",")
    static let minus = UInt8(ascii: "-")
    static let zero = UInt8(ascii: "0")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")

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
        guard let magnitude = ASCIIDigits.value(of: bytes, digitsStart..<range.upperBound) else { return nil }
        // A leading zero only stands alone (valid JSON has no `007`), and `-0` is written `0`.
        if bytes[digitsStart] == zero, range.upperBound - digitsStart > 1 || negative { return nil }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
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
