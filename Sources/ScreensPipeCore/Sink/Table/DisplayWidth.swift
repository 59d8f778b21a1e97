/// How many terminal columns text takes: wide East Asian characters and emoji take two,
/// zero-width characters none, everything else one. `count` (grapheme clusters) is wrong
/// for tables: a row of 漢字 or 🚀 would push every later column out of line.
enum DisplayWidth {
    /// The columns of `text`.
    static func of(_ text: String) -> Int {
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// The columns of one grapheme cluster (a family emoji with joiners is one cluster, two columns).
    static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        let properties = first.properties
        if properties.isEmojiPresentation { return 2 }
        // A text-style symbol turned emoji by VS16 (U+FE0F), as in ❤️.
        if properties.isEmoji, character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if isWide(first.value) { return 2 }
        if isZeroWidth(first) { return 0 }
        return 1
    }

    /// East Asian Wide and Fullwidth ranges (UAX #11) that are not emoji.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return false
        }
    }
}
