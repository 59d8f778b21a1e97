#if canImport(Glibc)
import Glibc
#endif

extension JSONParser {
    /// Parses a number at `index` (a '-' or a digit).
    ///
    /// Integers are accumulated directly; a fraction or exponent makes a `Double`, computed
    /// exactly in one floating-point operation when the digits allow it (Clinger's fast path)
    /// and otherwise by the standard library's correctly rounded decimal conversion.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var cursor = index
        let negative = bytes[cursor] == JSONByte.minus
        if negative { cursor += 1 }

        // Integer part.
        guard cursor < end, isDigit(bytes[cursor]) else { throw error(at: cursor, "expected a digit") }
        var significand: UInt64 = 0
        var significantDigits = 0
        var overflowed = false
        if bytes[cursor] == JSONByte.zero {
            cursor += 1
            if cursor < end, isDigit(bytes[cursor]) { throw error(at: cursor, "leading zeros are not allowed") }
        } else {
            // Up to 19 digits cannot overflow UInt64; a 20th may, and more always do.
            let digitsStart = cursor
            // Ids and epoch dates are long: take eight digits per step while they surely fit.
            while cursor + 8 <= end, cursor &- digitsStart <= 11 {
                let word = UnsafeRawPointer(bytes + cursor).loadUnaligned(as: UInt64.self)
                guard ASCIIDigits.areEight(word) else { break }
                significand = significand &* 100_000_000 &+ ASCIIDigits.valueOfEight(word)
                cursor += 8
            }
            while cursor < end, cursor &- digitsStart < 19, isDigit(bytes[cursor]) {
                significand = significand &* 10 &+ UInt64(bytes[cursor] &- JSONByte.zero)
                cursor += 1
            }
            while cursor < end, isDigit(bytes[cursor]) {
                let digit = UInt64(bytes[cursor] &- JSONByte.zero)
                let (times10, overflow1) = significand.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(digit)
                if overflow1 || overflow2 { overflowed = true } else { significand = sum }
                cursor += 1
            }
            significantDigits = cursor - digitsStart
        }

        // Fraction and exponent.
        var isInteger = true
        var fractionDigits = 0
        if cursor < end, bytes[cursor] == JSONByte.dot {
            isInteger = false
            cursor += 1
            guard cursor < end, isDigit(bytes[cursor]) else {
                throw error(at: cursor, "expected a digit after the decimal point")
            }
            while cursor < end, isDigit(bytes[cursor]) {
                if significantDigits < 19 {
                    significand = significand &* 10 &+ UInt64(bytes[cursor] &- JSONByte.zero)
                    if significand != 0 { significantDigits += 1 }
                    fractionDigits += 1
                } else {
                    overflowed = true
                }
                cursor += 1
            }
        }
        var exponent = 0
        if cursor < end, bytes[cursor] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            cursor += 1
            var exponentNegative = false
            if cursor < end, bytes[cursor] == JSONByte.minus || bytes[cursor] == JSONByte.plus {
                exponentNegative = bytes[cursor] == JSONByte.minus
                cursor += 1
            }
            guard cursor < end, isDigit(bytes[cursor]) else { throw error(at: cursor, "expected a digit in the exponent") }
            while cursor < end, isDigit(bytes[cursor]) {
                // Saturate: anything this large is already infinity or zero.
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[cursor] &- JSONByte.zero) }
                cursor += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        index = cursor

        if isInteger {
            if !overflowed {
                // `-0` is not the integer 0 in its text: keep it as written.
                if negative, significand == 0 { return .number(text(from: start, to: cursor)) }
                if !negative, significand <= UInt64(Int64.max) { return .int(Int64(significand)) }
                if negative, significand <= UInt64(Int64.max) + 1 { return .int(Int64(truncatingIfNeeded: 0 &- significand)) }
            }
            return .number(text(from: start, to: cursor))
        }

        // Clinger: a significand below 2^53 and a power of ten up to 10^22 are both exact
        // doubles, so one correctly rounded multiply or divide gives the correctly rounded result.
        let decimalExponent = exponent - fractionDigits
        if !overflowed, significand <= 1 << 53, decimalExponent >= -22, decimalExponent <= 22 {
            var value = Double(significand)
            if decimalExponent < 0 {
                value /= exactPowerOfTen(-decimalExponent)
            } else {
                value *= exactPowerOfTen(decimalExponent)
            }
            return exactDouble(negative ? -value : value, from: start, to: cursor)
        }
        return exactDouble(slowDouble(from: start, to: cursor), from: start, to: cursor)
    }

    /// `value` when the writer prints it back as exactly the bytes that arrived, otherwise
    /// the literal's own text: a decimal is never rewritten (`0.10`, `1E2`, `1.0e-400`,
    /// 31 significant digits and values beyond Double's range all keep their text).
    @inline(__always)
    private func exactDouble(_ value: Double, from start: Int, to stop: Int) -> JSONValue {
        if value.isFinite {
            var description = value.description
            let same = description.withUTF8 { written in
                written.count == stop - start && memcmp(written.baseAddress!, bytes + start, written.count) == 0
            }
            if same { return .double(value) }
        }
        return .number(text(from: start, to: stop))
    }

    @inline(__always)
    func isDigit(_ byte: UInt8) -> Bool {
        byte &- JSONByte.zero < 10
    }

    /// The index of the first byte at or after `start` that is not an ASCII digit (or `end`),
    /// found eight bytes at a time (``ASCIIDigits/nonDigits(_:)``).
    @inline(__always)
    func skipDigits(from start: Int) -> Int {
        var cursor = start
        while cursor &+ 8 <= end {
            let flags = ASCIIDigits.nonDigits(UnsafeRawPointer(bytes + cursor).loadUnaligned(as: UInt64.self))
            if flags != 0 { return cursor &+ flags.trailingZeroBitCount &>> 3 }
            cursor &+= 8
        }
        while cursor < end, isDigit(bytes[cursor]) { cursor &+= 1 }
        return cursor
    }

    private func text(from start: Int, to stop: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: bytes + start, count: stop - start), as: UTF8.self)
    }

    /// The literal's exact value through the standard library's correctly rounded,
    /// locale-independent conversion; the literal has already been validated as JSON.
    private func slowDouble(from start: Int, to stop: Int) -> Double {
        guard let value = Double(text(from: start, to: stop)) else {
            preconditionFailure("a validated JSON number must convert to Double")
        }
        return value
    }

    @inline(__always)
    private func exactPowerOfTen(_ power: Int) -> Double {
        withUnsafePointer(to: powersOfTen) { tuple in
            tuple.withMemoryRebound(to: Double.self, capacity: 23) { $0[power] }
        }
    }
}

/// 10^0 ... 10^22: every one of these is exactly representable as a Double.
private let powersOfTen: (Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double,
    Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double) = (
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
    )
