import ScreensBus

/// Writes block-style YAML text for people to read (the `plan` command's view of a spec),
/// quoting a string only when it would otherwise read as something else.
package struct YAMLTextWriter {
    /// A value to write: a scalar already rendered, or a collection.
    package indirect enum Value {
        /// Text written as is (numbers, booleans, `<redacted>`, durations).
        case raw(String)
        /// A string, quoted when needed.
        case string(String)
        case mapping([(String, Value)])
        case sequence([Value])
    }

    private(set) var text = ""

    mutating func write(_ members: [(String, Value)], indent: Int = 0) {
        let pad = String(repeating: " ", count: indent)
        for (key, value) in members {
            switch value {
            case .mapping(let children) where !children.isEmpty:
                text += "\(pad)\(Self.quoted(key)):\n"
                write(children, indent: indent + 2)
            case .sequence(let items) where !items.isEmpty:
                text += "\(pad)\(Self.quoted(key)):\n"
                for item in items {
                    if case .mapping(let children) = item, !children.isEmpty {
                        // `- first: 1` then the rest aligned under it.
                        var nested = YAMLTextWriter()
                        nested.write(children, indent: indent + 4)
                        text += "\(pad)  - " + nested.text.dropFirst(indent + 4)
                    } else {
                        text += "\(pad)  - \(Self.inline(item))\n"
                    }
                }
            default:
                text += "\(pad)\(Self.quoted(key)): \(Self.inline(value))\n"
            }
        }
    }

    private static func inline(_ value: Value) -> String {
        switch value {
        case .raw(let text): text
        case .string(let text): quoted(text)
        case .mapping(let members): "{" + members.map { "\(quoted($0.0)): \(inline($0.1))" }.joined(separator: ", ") + "}"
        case .sequence(let items): "[" + items.map(inline).joined(separator: ", ") + "]"
        }
    }

    /// `text` plain when YAML would read it back as the same string, else quoted.
    static func quoted(_ text: String) -> String {
        if isPlainSafe(text) { return text }
        if !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        }
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                escaped += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    private static func isPlainSafe(_ text: String) -> Bool {
        guard let first = text.first, let last = text.last, first != " ", last != " ", last != ":" else { return false }
        guard case .string = ResolvedScalar(plain: text) else { return false }
        if "-?:,[]{}#&*!|>'\"%@`".contains(first) { return false }
        if text.contains(": ") || text.contains(" #") { return false }
        return !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// A JSON value as a YAML value.
    static func value(_ json: JSONValue) -> Value {
        switch json {
        case .null: .raw("null")
        case .bool(let value): .raw(String(value))
        case .int(let value): .raw(String(value))
        case .double(let value): .raw(String(value))
        case .number(let text): .raw(text)
        case .string(let text): .string(text)
        case .array(let items): .sequence(items.map(value))
        case .object(let object): .mapping(object.map { ($0.key, value($0.value)) })
        }
    }
}
