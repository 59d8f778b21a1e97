import ScreensBus

extension JSONValue {
    /// The value as a user would write it, cut short, for error messages:
    /// `"abc"`, `42`, `true`, `null`, `[3 elements]`, `{2 members}`.
    var briefDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return String(value)
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .number(let text): return text
        case .string(let text):
            let limit = 40
            var body = ""
            for (count, character) in text.enumerated() {
                if count == limit {
                    body += "…"
                    break
                }
                switch character {
                case "\"": body += "\\\""
                case "\\": body += "\\\\"
                case "\n": body += "\\n"
                case "\r": body += "\\r"
                case "\t": body += "\\t"
                default: body.append(character)
                }
            }
            return "\"" + body + "\""
        case .array(let elements): return "[\(elements.count) element\(elements.count == 1 ? "" : "s")]"
        case .object(let object): return "{\(object.count) member\(object.count == 1 ? "" : "s")}"
        }
    }
}
