import ScreensBus

/// The syntax tree of a `filter.where` expression, as the parser reads it.
///
/// Every node keeps the UTF-8 range of its source text, so compile-time and runtime
/// errors can quote the part of the expression they are about.
indirect enum FilterExpression: Sendable {
    case or(FilterExpression, FilterExpression)
    case and(FilterExpression, FilterExpression)
    case not(FilterExpression)
    /// `lhs op rhs` for `== != < <= > >= contains starts-with ends-with`.
    case comparison(FilterOperand, FilterOperator, FilterOperand, SourceSpan)
    /// `lhs matches "regex"`; the pattern and the offset of its literal.
    case matches(FilterOperand, pattern: String, patternOffset: Int, SourceSpan)
    /// `lhs in [literal, ...]`.
    case membership(FilterOperand, [JSONValue], SourceSpan)
    /// `path exists`.
    case exists(FieldPath, SourceSpan)
    /// A bare operand used as a condition (`published`, `true`).
    case truth(FilterOperand, SourceSpan)
}

/// A value in an expression: a literal or a path into the row.
enum FilterOperand: Sendable {
    case literal(JSONValue)
    case path(FieldPath)
}

/// The binary operators, spelled as in the language.
enum FilterOperator: String, Sendable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case contains
    case startsWith = "starts-with"
    case endsWith = "ends-with"
}

/// Where a node came from: its UTF-8 range in the expression and its operator's offset.
struct SourceSpan: Sendable {
    var range: Range<Int>
    /// The offset errors about this node point at (the operator).
    var anchor: Int
    /// Where a comparison's right operand starts, so an error about that operand (an
    /// unknown field, a literal of the wrong type) points at it and not at the left one.
    var rightStart: Int? = nil
}
