import ScreensJSON

/// JSON as a Liferay portal's headless APIs answer `curl`: two-space indentation, one
/// member or element a line, `"name": value` (the form Liferay's documentation shows), `{}`
/// and `[]` for empty containers. Scalars are written exactly as the compact writer writes
/// them, so the two forms parse to the same value.
enum PrettyJSON {
    /// `value` pretty-printed, without a trailing newline.
    static func bytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, depth: 0, to: &out)
        return out
    }

    /// The sandbox's own documents are a few levels deep: recursion is bounded by them.
    private static func append(_ value: JSONValue, depth: Int, to out: inout [UInt8]) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                out.append(contentsOf: index == 0 ? [UInt8(ascii: "\n")] : Array(",\n".utf8))
                indent(depth + 1, &out)
                append(element, depth: depth + 1, to: &out)
            }
            out.append(UInt8(ascii: "\n"))
            indent(depth, &out)
            out.append(UInt8(ascii: "]"))
        case .object(let members) where !members.isEmpty:
            out.append(UInt8(ascii: "{"))
            var first = true
            for (name, member) in members {
                out.append(contentsOf: first ? [UInt8(ascii: "\n")] : Array(",\n".utf8))
                first = false
                indent(depth + 1, &out)
                out.append(contentsOf: JSONValue.string(name).jsonBytes)
                out.append(contentsOf: Array(": ".utf8))
                append(member, depth: depth + 1, to: &out)
            }
            out.append(UInt8(ascii: "\n"))
            indent(depth, &out)
            out.append(UInt8(ascii: "}"))
        default:
            out.append(contentsOf: value.jsonBytes)
        }
    }

    private static func indent(_ depth: Int, _ out: inout [UInt8]) {
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }
}
