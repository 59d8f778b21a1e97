/// Eight ASCII digits at a time, in a word read from the text (the first digit in the lowest
/// byte, as a little-endian load puts it): how integer texts are checked and read without a
/// loop per digit, by the parser and by the stages that read member texts.
package enum ASCIIDigits {
    /// Whether all eight bytes of `word` are ASCII digits: each byte's high nibble is 3 both
    /// before and after adding 6 (which pushes 0x3A...0x3F out of the range).
    @inlinable @inline(__always)
    package static func areEight(_ word: UInt64) -> Bool {
        word & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030
            && (word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030
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
