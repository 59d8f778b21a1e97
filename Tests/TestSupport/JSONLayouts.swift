/// Compact JSON text laid out for people, whitespace added between tokens only (the bytes of
/// strings and numbers untouched), for tests that require every layout to read alike.
public enum JSONLayouts {
    /// What ``reformatted(_:_:)`` asks `whitespace` for before a `,` or `:`, and after a `:`;
    /// any other argument is the nesting depth of the line that follows.
    public static let beforeSeparator = -1
    public static let afterColon = -2

    /// `compact` with `whitespace(place)` inserted at every boundary between tokens outside
    /// strings: after `{`, `[` and `,`, before `}` and `]` (the depth that follows), around `:`
    /// and before `,` (``beforeSeparator``, ``afterColon``).
    public static func reformatted(_ compact: [UInt8], _ whitespace: (Int) -> [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var depth = 0
        var inString = false
        var escaped = false
        for byte in compact {
            if inString {
                out.append(byte)
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(byte)
                depth += 1
                out += whitespace(depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                out += whitespace(depth)
                out.append(byte)
            case UInt8(ascii: ","):
                out += whitespace(beforeSeparator)
                out.append(byte)
                out += whitespace(depth)
            case UInt8(ascii: ":"):
                out += whitespace(beforeSeparator)
                out.append(byte)
                out += whitespace(afterColon)
            default:
                if byte == 0x22 { inString = true }
                out.append(byte)
            }
        }
        return out
    }

    /// A line and two spaces a level, `": "`, as a portal pretty-prints.
    public static func pretty(_ place: Int) -> [UInt8] {
        switch place {
        case beforeSeparator: []
        case afterColon: [0x20]
        default: [0x0A] + Array(repeating: 0x20, count: 2 * place)
        }
    }

    /// `", "` and `": "`, as many APIs answer.
    public static func spaced(_ place: Int) -> [UInt8] { place == beforeSeparator ? [] : [0x20] }

    /// `text` pretty-printed.
    public static func pretty(_ text: String) -> String { String(decoding: reformatted(Array(text.utf8), pretty), as: UTF8.self) }

    /// `text` spaced.
    public static func spaced(_ text: String) -> String { String(decoding: reformatted(Array(text.utf8), spaced), as: UTF8.self) }
}
