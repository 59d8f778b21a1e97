import ScreensJSON

/// How the sandbox lays out the JSON it answers with: what a real server sends differs
/// only in the whitespace between tokens, and clients must read every layout alike.
public enum SandboxJSONLayout: String, Sendable, CaseIterable {
    /// No whitespace between tokens, as JSON-WS answers.
    case compact
    /// A space after each `,` and `:` on one line, as many REST APIs (and Python's
    /// `json.dumps`) answer.
    case spaced
    /// Two-space indentation, one member or element a line, as a portal's headless APIs
    /// answer `curl` (``PrettyJSON``).
    case pretty

    /// `value` in this layout, without a trailing newline.
    func bytes(_ value: JSONValue) -> [UInt8] {
        switch self {
        case .compact:
            return value.jsonBytes
        case .pretty:
            return PrettyJSON.bytes(value)
        case .spaced:
            var out: [UInt8] = []
            Self.appendSpaced(value, to: &out)
            return out
        }
    }

    /// The sandbox's own documents are a few levels deep: recursion is bounded by them.
    private static func appendSpaced(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
                appendSpaced(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (name, member) in members {
                if !first { out.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
                first = false
                out.append(contentsOf: JSONValue.string(name).jsonBytes)
                out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
                appendSpaced(member, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        default:
            out.append(contentsOf: value.jsonBytes)
        }
    }
}
