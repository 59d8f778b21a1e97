import ScreensPipeCore
import ScreensBus

/// The columns of the sink's table, and how a row's values become parameters for them.
struct PostgresTableShape: Sendable {
    struct Column: Sendable, Hashable {
        /// The column's name: the row's field name.
        var name: String
        /// The type as PostgreSQL writes it (`format_type`), used as the parameter's cast.
        var type: String

        /// Whether the column takes JSON text (the value as JSON, strings quoted).
        var isJSON: Bool { type == "jsonb" || type == "json" }
    }

    var columns: [Column]
    /// The key columns, in the order the pipeline names them.
    var key: [String]
    /// `jsonb` mode: the whole row goes into this column.
    var documentColumn: String?

    /// The type a new column gets for `value`; nil for null (not yet known).
    static func columnType(for value: JSONValue) -> String? {
        switch value {
        case .null: nil
        case .bool: "boolean"
        case .int: "bigint"
        case .double: "double precision"
        case .number: "numeric"
        case .string: "text"
        case .array, .object: "jsonb"
        }
    }

    /// The field names of `rows` in first-seen order.
    static func fieldNames(of rows: [SelectedRow]) -> [String] {
        var seen = Set<String>()
        var names: [String] = []
        for row in rows {
            guard case .object(let object) = row.item else { continue }
            for key in object.keys where seen.insert(key).inserted { names.append(key) }
        }
        return names
    }

    /// The parameter text of `value` for `column`, or nil for SQL NULL. Throws when PostgreSQL
    /// could not take the value (NUL in text), naming the field.
    static func parameter(_ value: JSONValue?, for column: Column) throws(ValueProblem) -> String? {
        guard let value, value != .null else { return nil }
        if column.isJSON {
            if value.containsNUL { throw ValueProblem(field: column.name, why: "contains a NUL character, which PostgreSQL's jsonb cannot hold") }
            return value.jsonString
        }
        if let change = TypedColumn(column.type)?.change(storing: value) {
            throw ValueProblem(
                field: column.name,
                why: "is the \(value.typeName) \(value.jsonString.prefix(80)), which the \(column.type) column would store as another value (\(change)); write it to a text or numeric column, or convert it in convert.fields")
        }
        switch value {
        case .string(let text):
            if text.utf8.contains(0) { throw ValueProblem(field: column.name, why: "contains a NUL character, which PostgreSQL text cannot hold") }
            return text
        case .bool(let flag):
            return flag ? "true" : "false"
        case .int, .double, .number:
            return value.jsonString
        case .array, .object:
            if value.containsNUL { throw ValueProblem(field: column.name, why: "contains a NUL character, which PostgreSQL cannot hold") }
            return value.jsonString
        case .null:
            return nil
        }
    }

    /// A column type PostgreSQL would convert a value into, changing it: the parameter is
    /// text cast to the type, so `"0042"` becomes the bigint 42, `"yes"` the boolean true, and
    /// a 31-digit decimal the nearest double. Values are written only when the column holds
    /// them exactly; text columns (and jsonb, and types not listed) take them as before.
    enum TypedColumn {
        case integer
        case boolean
        /// `double precision` (53-bit significand) or `real` (24-bit).
        case floatingPoint(single: Bool)
        /// `numeric`, or `numeric(p,s)` which rounds to `s` fraction digits.
        case numeric(scale: Int?)

        init?(_ type: String) {
            switch type {
            case "bigint", "integer", "smallint": self = .integer
            case "boolean": self = .boolean
            case "double precision": self = .floatingPoint(single: false)
            case "real": self = .floatingPoint(single: true)
            case "numeric": self = .numeric(scale: nil)
            default:
                guard type.hasPrefix("numeric("), let comma = type.firstIndex(of: ","), let scale = Int(type[type.index(after: comma)...].dropLast()) else {
                    return nil
                }
                self = .numeric(scale: scale)
            }
        }

        /// Why storing `value` would change it, or nil when the column holds it exactly.
        func change(storing value: JSONValue) -> String? {
            switch (self, value) {
            case (_, .string): return "text is converted, never kept"
            case (.boolean, .bool): return nil
            case (.boolean, _): return "only true and false are booleans"
            case (_, .bool): return "a boolean is not a number"
            case (_, .array), (_, .object): return "a JSON \(value.typeName) is not a number"
            case (.integer, .int): return nil
            case (.integer, _): return "not a whole number that fits in 64 bits"
            case (.floatingPoint(let single), .int(let number)):
                let exact = single ? Float(exactly: number) != nil : Double(exactly: number) != nil
                return exact ? nil : "a whole number beyond what \(single ? "real" : "double precision") holds exactly"
            case (.floatingPoint(let single), .double(let number)):
                return !single || Double(Float(number)) == number ? nil : "more digits than real holds"
            case (.floatingPoint, _): return "more digits or range than a floating-point column holds"
            case (.numeric(nil), _): return nil
            case (.numeric(let scale?), _):
                return Self.fractionDigits(of: value.jsonString) <= scale ? nil : "more than \(scale) fraction digits are rounded"
            }
        }

        /// The digits after the decimal point a number's text needs (trailing zeros dropped,
        /// the exponent applied): 1.050 needs 2, 5e-3 needs 3, 1.5e2 needs 0.
        static func fractionDigits(of text: String) -> Int {
            let lowered = text.lowercased()
            let parts = lowered.split(separator: "e", maxSplits: 1)
            let mantissa = parts.first.map(String.init) ?? lowered
            let exponent = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            var fraction = mantissa.split(separator: ".", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            while fraction.hasSuffix("0") { fraction.removeLast() }
            return max(0, fraction.count - exponent)
        }
    }

    /// Why one value cannot be written.
    struct ValueProblem: Error {
        var field: String
        var why: String
    }
}

extension JSONValue {
    /// Whether a NUL character is in any string of the value (keys included).
    fileprivate var containsNUL: Bool {
        switch self {
        case .string(let text): text.utf8.contains(0)
        case .array(let items): items.contains { $0.containsNUL }
        case .object(let object): object.contains { $0.key.utf8.contains(0) || $0.value.containsNUL }
        default: false
        }
    }
}
