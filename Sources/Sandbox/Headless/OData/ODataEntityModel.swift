import Foundation

/// The fields a headless collection lets `filter` and `sort` use, and their types: the
/// resource's `EntityModel` (for structured contents, StructuredContentEntityModel).
struct ODataEntityModel: Sendable {
    enum FieldType: Sendable {
        case string, integer, dateTime
        /// Collection fields (`keywords`, `taxonomyCategoryIds`) are only usable through lambda
        /// operators (`keywords/any(k:k eq 'x')`), which the sandbox does not implement.
        case collection
    }

    var fields: [String: FieldType]

    /// Checks a filter's fields, as Liferay's FilterParserImpl does: any field outside the
    /// model is "A property used in the filter criteria is not supported: <filter>".
    func check(_ expression: ODataExpression, filter text: String) throws(ODataError) {
        for name in expression.fields {
            guard let type = fields[name] else {
                throw ODataError(message: "A property used in the filter criteria is not supported: \(text)")
            }
            guard type != .collection else {
                throw ODataError(message: "The collection property \(name) can only be filtered with lambda operators, which are not supported")
            }
        }
    }

    /// Whether `entity` passes `expression`; a comparison of mismatched types is an error.
    func evaluate(_ expression: ODataExpression, on entity: [String: ODataLiteral]) throws(ODataError) -> Bool {
        switch expression {
        // `&&` and `||` take untyped-throwing autoclosures, so both sides are spelled out.
        case .and(let left, let right):
            guard try evaluate(left, on: entity) else { return false }
            return try evaluate(right, on: entity)
        case .or(let left, let right):
            if try evaluate(left, on: entity) { return true }
            return try evaluate(right, on: entity)
        case .not(let inner):
            return try !evaluate(inner, on: entity)
        case .comparison(let comparison, let left, let right):
            return try Self.compare(comparison, value(left, entity), value(right, entity))
        case .contains(let subject, let argument), .startsWith(let subject, let argument):
            guard case .string(let text) = try value(subject, entity), case .string(let part) = try value(argument, entity) else {
                if case .null = try value(subject, entity) { return false }
                throw ODataError(message: "contains and startswith take a text property and a string")
            }
            let haystack = text.lowercased()
            let needle = part.lowercased()
            if case .contains = expression { return needle.isEmpty || haystack.contains(needle) }
            return haystack.hasPrefix(needle)
        case .field, .literal:
            guard case .boolean(let flag) = try value(expression, entity) else {
                throw ODataError(message: "The filter must be a condition, not a value")
            }
            return flag
        }
    }

    private func value(_ expression: ODataExpression, _ entity: [String: ODataLiteral]) throws(ODataError) -> ODataLiteral {
        switch expression {
        case .field(let name): return entity[name] ?? .null
        case .literal(let literal): return literal
        default: return .boolean(try evaluate(expression, on: entity))
        }
    }

    private static func compare(_ comparison: ODataComparison, _ left: ODataLiteral, _ right: ODataLiteral) throws(ODataError) -> Bool {
        let order: Int
        switch (left, right) {
        case (.null, .null): order = 0
        case (.null, _), (_, .null):
            // Only eq/ne compare with null; an ordering with null selects nothing.
            if comparison == .eq { return false }
            if comparison == .ne { return true }
            return false
        case (.string(let a), .string(let b)): order = a == b ? 0 : (a < b ? -1 : 1)
        case (.boolean(let a), .boolean(let b)):
            guard comparison == .eq || comparison == .ne else {
                throw ODataError(message: "Booleans can only be compared with eq and ne")
            }
            order = a == b ? 0 : 1
        case (.dateTime(let a), .dateTime(let b)), (.integer(let a), .integer(let b)):
            order = a == b ? 0 : (a < b ? -1 : 1)
        case (.integer(let a), .decimal(let b)): order = Double(a) == b ? 0 : (Double(a) < b ? -1 : 1)
        case (.decimal(let a), .integer(let b)): order = a == Double(b) ? 0 : (a < Double(b) ? -1 : 1)
        case (.decimal(let a), .decimal(let b)): order = a == b ? 0 : (a < b ? -1 : 1)
        default:
            throw ODataError(message: "Unable to compare \(left.typeName) with \(right.typeName)")
        }
        switch comparison {
        case .eq: return order == 0
        case .ne: return order != 0
        case .gt: return order > 0
        case .ge: return order >= 0
        case .lt: return order < 0
        case .le: return order <= 0
        }
    }
}

extension ODataLiteral {
    var typeName: String {
        switch self {
        case .string: "a string"
        case .integer, .decimal: "a number"
        case .boolean: "a boolean"
        case .dateTime: "a date-time"
        case .null: "null"
        }
    }
}

/// A parsed `sort` (`field:asc,field2:desc`), as Liferay's SortParserImpl reads it: each
/// entry is a field with an optional direction, ascending unless `desc`.
struct ODataSort: Sendable {
    var keys: [(field: String, ascending: Bool)]

    static func parse(_ text: String, model: ODataEntityModel) throws(ODataError) -> ODataSort {
        var keys: [(String, Bool)] = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = entry.split(separator: ":", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard parts.count <= 2 else { throw ODataError(message: "Unable to parse sort string: \(entry)") }
            let field = parts[0]
            guard let type = model.fields[field], type != .collection else {
                throw ODataError(message: "Unable to sort by property: \(field)")
            }
            keys.append((field, parts.count < 2 || parts[1].lowercased() != "desc"))
        }
        return ODataSort(keys: keys)
    }

    /// Whether `left` sorts before `right`; nulls sort first, ties keep the input order.
    func areInIncreasingOrder(_ left: [String: ODataLiteral], _ right: [String: ODataLiteral]) -> Bool {
        for key in keys {
            let order = Self.order(left[key.field] ?? .null, right[key.field] ?? .null)
            if order != 0 { return key.ascending ? order < 0 : order > 0 }
        }
        return false
    }

    private static func order(_ left: ODataLiteral, _ right: ODataLiteral) -> Int {
        switch (left, right) {
        case (.null, .null): 0
        case (.null, _): -1
        case (_, .null): 1
        case (.string(let a), .string(let b)):
            a.lowercased() == b.lowercased() ? 0 : (a.lowercased() < b.lowercased() ? -1 : 1)
        case (.integer(let a), .integer(let b)), (.dateTime(let a), .dateTime(let b)): a == b ? 0 : (a < b ? -1 : 1)
        default: 0
        }
    }
}
