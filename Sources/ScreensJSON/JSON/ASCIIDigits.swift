/// Eight ASCII digits at a time, in a word read from the text (the first digit in the lowest
/// byte, as a little-endian load puts it): how integer texts are checked and read without a
/// loop per digit, by the parser and by the stages that read member texts.
package enum ASCIIDigits {
    /// The high bit of each byte of `word` that may not be an ASCII digit, the lowest of them
    /// exactly the first that is not: XOR with `0x30` maps the digits, and only them, to
    /// 0...9; adding `0x76` then sets the high bit of a byte of 10 or more, or it was set
    /// already. A carry only spreads into the bytes above a flagged one.
    @inlinable @inline(__always)
    package static func nonDigits(_ word: UInt64) -> UInt64 {
        let shifted = word ^ 0x3030_3030_3030_3030
        return ((shifted &+ 0x7676_7676_7676_7676) | shifted) & 0x8080_8080_8080_8080
    }

    /// Whether all eight bytes of `word` are ASCII digits.
    @inlinable @inline(__always)
    package static func areEight(_ word: UInt64) -> Bool {
        nonDigits(word) == 0
    }

    /// The value of eight ASCII digits, the first in the lowest byte, combined pairwise.
    @inlinable @inline(__always)
    package static func valueOfEight(_ word: UInt64) -> UInt64 {
        var value = word & 0x0F0F_0F0F_0F0F_0F0F
        value = (value &* 2561) >> 8 & 0x00FF_00FF_00FF_00FF
        value = (value &* 6_553_601) >> 16 & 0x0000_FFFF_0000_FFFF
        return (value &* 42_949_672_960_001) >> 32
    }

    /// The value of the digits at `range` of `bytes` (at most 19 of them, so it cannot
    /// overflow), or nil when one of them is not a digit or there are none.
    @inlinable @inline(__always)
    package static func value(of bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64? {
        guard !range.isEmpty, range.count <= 19, let base = bytes.baseAddress else { return nil }
        var offset = range.lowerBound
        var value: UInt64 = 0
        while range.upperBound &- offset >= 8 {
            let word = UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
            guard areEight(word) else { return nil }
            value = value &* 100_000_000 &+ valueOfEight(word)
            offset &+= 8
        }
        while offset < range.upperBound {
            let digit = base[offset] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ UInt64(digit)
            offset &+= 1
        }
        return value
    }
}
