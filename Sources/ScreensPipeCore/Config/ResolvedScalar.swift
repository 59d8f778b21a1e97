/// A plain scalar typed by the YAML 1.2 core schema: `null`/`~`/empty, `true`/`false`,
/// integers (decimal, `0x`, `0o`), floats, and everything else a string.
///
/// YAML 1.1's `yes`/`no`/`on`/`off` stay strings here; the boolean reader rejects them with a hint.
enum ResolvedScalar: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    /// An integer too large for `Int64`, kept as its exact text.
    case bigInteger(String)
    case float(Double)
    case string(String)

    init(plain text: String) {
        switch text {
        case "", "~", "null", "Null", "NULL":
            self = .null
        case "true", "True", "TRUE":
            self = .bool(true)
        case "false", "False", "FALSE":
            self = .bool(false)
        default:
            if let integer = Self.integer(text) {
                self = integer
            } else if let float = Self.float(text) {
                self = .float(float)
            } else {
                self = .string(text)
            }
        }
    }

    private static func integer(_ text: String) -> ResolvedScalar? {
        var body = Substring(text)
        var negative = false
        if let sign = body.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            body = body.dropFirst()
        }
        var radix = 10
        if body.hasPrefix("0x") {
            radix = 16
            body = body.dropFirst(2)
        } else if body.hasPrefix("0o") {
            radix = 8
            body = body.dropFirst(2)
        }
        guard !body.isEmpty, body.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        if radix == 10, !body.allSatisfy(\.isNumber) { return nil }
        if radix == 8, !body.allSatisfy({ ("0"..."7").contains($0) }) { return nil }
        // Parse with the sign attached so Int64.min is representable.
        if let value = Int64((negative ? "-" : "") + body, radix: radix) { return .int(value) }
        // Only decimal integers are kept as text beyond 64 bits; JSON has no hex.
        return radix == 10 ? .bigInteger(text.hasPrefix("+") ? String(text.dropFirst()) : text) : nil
    }

    private static func float(_ text: String) -> Double? {
        // YAML 1.2 core float: [-+]? ( . [0-9]+ | [0-9]+ ( . [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
        // (.inf and .nan are left as strings: JSON cannot carry them.)
        var index = text.startIndex
        func digits() -> Int {
            var count = 0
            while index < text.endIndex, text[index].isASCII, text[index].isNumber {
                index = text.index(after: index)
                count += 1
            }
            return count
        }
        if index < text.endIndex, text[index] == "-" || text[index] == "+" { index = text.index(after: index) }
        var mantissaDigits = digits()
        if index < text.endIndex, text[index] == "." {
            index = text.index(after: index)
            mantissaDigits += digits()
        }
        guard mantissaDigits > 0 else { return nil }
        if index < text.endIndex, text[index] == "e" || text[index] == "E" {
            index = text.index(after: index)
            if index < text.endIndex, text[index] == "-" || text[index] == "+" { index = text.index(after: index) }
            guard digits() > 0 else { return nil }
        }
        guard index == text.endIndex else { return nil }
        return Double(text)
    }

    /// How the value reads in "found ..." of a type error.
    var foundDescription: String {
        switch self {
        case .null: "null"
        case .bool(let value): "boolean \(value)"
        case .int(let value): "integer \(value)"
        case .bigInteger(let text): "integer \(text)"
        case .float(let value): "number \(value)"
        case .string(let text): "string '\(text)'"
        }
    }
}
