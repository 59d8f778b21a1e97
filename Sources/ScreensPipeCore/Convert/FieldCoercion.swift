import ScreensBus

/// The conversions of a `fields:` type, each one lossless or refused.
///
/// A coercion never guesses: `"42"` is an int but `"42abc"` is not, `1.0` is an int but
/// `1.5` is not, and a refusal becomes an error that names the row, field, value and type.
enum FieldCoercion {
    /// `value` as `type`, or nil when it cannot be converted without loss.
    static func coerce(_ value: JSONValue, to type: FieldType) -> JSONValue? {
        switch type {
        case .string: string(value)
        case .int: int(value)
        case .number: number(value)
        case .bool: bool(value)
        case .date: date(value)
        }
    }

    private static func string(_ value: JSONValue) -> JSONValue? {
        switch value {
        case .string: value
        case .int(let number): .string(String(number))
        case .double(let number): .string(number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number))
        case .number(let text): .string(text)
        case .bool(let flag): .string(flag ? "true" : "false")
        case .null, .array, .object: nil
        }
    }

    private static func int(_ value: JSONValue) -> JSONValue? {
        switch value {
        case .int: return value
        case .double, .number:
            return value.int64Value.map(JSONValue.int)
        case .string(let text):
            let trimmed = trimmed(text)
            if let exact = Int64(trimmed) { return .int(exact) }
            guard let number = Double(trimmed), number.isFinite else { return nil }
            return JSONValue.double(number).int64Value.map(JSONValue.int)
        case .null, .bool, .array, .object:
            return nil
        }
    }

    private static func number(_ value: JSONValue) -> JSONValue? {
        switch value {
        case .int, .double, .number: return value
        case .string(let text):
            let trimmed = trimmed(text)
            if let exact = Int64(trimmed) { return .int(exact) }
            guard let number = Double(trimmed), number.isFinite else { return nil }
            return .double(number)
        case .null, .bool, .array, .object:
            return nil
        }
    }

    private static func bool(_ value: JSONValue) -> JSONValue? {
        switch value {
        case .bool: value
        case .int(0): .bool(false)
        case .int(1): .bool(true)
        case .string(let text):
            switch trimmed(text).lowercased() {
            case "true", "1": .bool(true)
            case "false", "0": .bool(false)
            default: nil
            }
        default: nil
        }
    }

    /// Epoch milliseconds (a number or digits in a string) or ISO text, as ISO 8601 UTC.
    private static func date(_ value: JSONValue) -> JSONValue? {
        switch value {
        case .int(let milliseconds):
            return .string(ISODate.format(epochMilliseconds: milliseconds))
        case .double:
            return value.int64Value.map { .string(ISODate.format(epochMilliseconds: $0)) }
        case .string(let text):
            let trimmed = trimmed(text)
            if let milliseconds = Int64(trimmed) { return .string(ISODate.format(epochMilliseconds: milliseconds)) }
            return ISODate.parse(String(trimmed)).map { .string(ISODate.format(epochMilliseconds: $0)) }
        default:
            return nil
        }
    }

    private static func trimmed(_ text: String) -> Substring {
        Substring(text.trimmingWhitespace)
    }
}

extension String {
    /// The text without leading and trailing white space.
    var trimmingWhitespace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
