/// A parsed `filter` expression of the OData subset Liferay's headless APIs document:
/// comparisons (`eq ne gt ge lt le`), `and`, `or`, `not`, `contains(field,'text')`,
/// `startswith(field,'text')`, parentheses, and string, number, boolean, null and
/// date-time literals.
indirect enum ODataExpression: Sendable, Equatable {
    case field(String)
    case literal(ODataLiteral)
    case comparison(ODataComparison, ODataExpression, ODataExpression)
    case and(ODataExpression, ODataExpression)
    case or(ODataExpression, ODataExpression)
    case not(ODataExpression)
    case contains(ODataExpression, ODataExpression)
    case startsWith(ODataExpression, ODataExpression)

    /// Every field the expression reads, to check them against the entity model first.
    var fields: [String] {
        switch self {
        case .field(let name): [name]
        case .literal: []
        case .comparison(_, let left, let right), .and(let left, let right), .or(let left, let right),
            .contains(let left, let right), .startsWith(let left, let right):
            left.fields + right.fields
        case .not(let inner): inner.fields
        }
    }
}

enum ODataComparison: String, Sendable, CaseIterable {
    case eq, ne, gt, ge, lt, le
}

/// A literal or an entity field's value.
enum ODataLiteral: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case decimal(Double)
    case boolean(Bool)
    /// Epoch milliseconds, UTC.
    case dateTime(Int64)
    case null
}

/// Why a filter was refused; the message is the `title` of the 400 answer.
struct ODataError: Error, Sendable, Equatable {
    var message: String
}
