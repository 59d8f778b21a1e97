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
