/// A JSON number's exact decimal value, for comparisons that must not round: the value is
/// `sign × 0.d₁d₂…dₙ × 10^exponent` with no leading or trailing zero digit.
///
/// Built from a number's text (as it arrived, for `.number`), from an `Int64`, or from a
/// `Double`'s shortest round-trip description. The exponent saturates far beyond any
/// value a page can hold, so hostile exponents cannot overflow.
///
/// The one reading of number text: the filter compares with it, and ``JSONValueDecoder``
/// asks it whether a number is an integer and how many significant digits it has.
package struct ExactDecimal {
    /// Whether the value is below zero (never for zero).
    package private(set) var negative: Bool
    /// The significant digits, 0 to 9 each, without leading or trailing zeros; empty for zero.
    package private(set) var digits: [UInt8]
    /// The power of ten that puts the point before ``digits``; 0 for zero.
    package private(set) var exponent: Int

    package init?(_ value: JSONValue) {
        switch value {
        case .int(let integer): self.init(text: String(integer))
        case .double(let double):
            guard double.isFinite else { return nil }
            self.init(text: double.description)
        case .number(let text): self.init(text: text)
        default: return nil
        }
    }

    /// Parses `-?digits(.digits)?([eE][+-]?digits)?`; nil for anything else.
    package init?(text: String) {
        var bytes = Array(text.utf8)[...]
        negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        var mantissa: [UInt8] = []
        var pointPosition: Int?
        while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: ".") {
                guard pointPosition == nil else { return nil }
                pointPosition = mantissa.count
            } else if byte &- UInt8(ascii: "0") < 10 {
                mantissa.append(byte &- UInt8(ascii: "0"))
            } else {
                return nil
            }
        }
        guard !mantissa.isEmpty else { return nil }
        var written = 0
        if !bytes.isEmpty {
            bytes = bytes.dropFirst()
            var exponentNegative = false
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                exponentNegative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            guard !bytes.isEmpty else { return nil }
            for byte in bytes {
                guard byte &- UInt8(ascii: "0") < 10 else { return nil }
                // Saturate: 10^(1<<40) is as good as infinity for ordering.
                if written < 1 << 40 { written = written * 10 + Int(byte &- UInt8(ascii: "0")) }
            }
            if exponentNegative { written = -written }
        }
        // Value = 0.mantissa × 10^(integerDigits + written); then drop leading zeros.
        var exponent = (pointPosition ?? mantissa.count) + written
        let firstNonZero = mantissa.firstIndex { $0 != 0 } ?? mantissa.count
        exponent -= firstNonZero
        var significant = Array(mantissa[firstNonZero...])
        while significant.last == 0 { significant.removeLast() }
        digits = significant
        self.exponent = significant.isEmpty ? 0 : exponent
        if significant.isEmpty { negative = false }  // -0 == 0
    }

    /// -1, 0 or 1 as `self` is less than, equal to or greater than `other`.
    package func compare(to other: ExactDecimal) -> Int {
        if negative != other.negative { return negative ? -1 : 1 }
        let magnitude = compareMagnitude(other)
        return negative ? -magnitude : magnitude
    }

    /// Whether the value is an integer: no digit after the point.
    package var isInteger: Bool { exponent >= digits.count }

    /// The value as `I`, when it is an integer that fits; nil for a fraction or a value out
    /// of `I`'s range. Exact: digit by digit, stopping at the first overflow.
    package func integer<I: FixedWidthInteger>(as type: I.Type) -> I? {
        guard isInteger else { return nil }
        var value: I = 0
        // Negative values are built downwards, so `I.min` fits.
        for position in 0..<exponent {
            let digit = position < digits.count ? I(digits[position]) : 0
            let (shifted, shiftOverflow) = value.multipliedReportingOverflow(by: 10)
            let (next, addOverflow) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !shiftOverflow, !addOverflow else { return nil }
            value = next
        }
        return value
    }

    private func compareMagnitude(_ other: ExactDecimal) -> Int {
        if digits.isEmpty || other.digits.isEmpty {
            return digits.isEmpty ? (other.digits.isEmpty ? 0 : -1) : 1
        }
        if exponent != other.exponent { return exponent < other.exponent ? -1 : 1 }
        for (a, b) in zip(digits, other.digits) where a != b { return a < b ? -1 : 1 }
        return digits.count == other.digits.count ? 0 : (digits.count < other.digits.count ? -1 : 1)
    }
}
