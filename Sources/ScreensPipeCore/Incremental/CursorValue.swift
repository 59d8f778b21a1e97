import ScreensBus

/// One value of an incremental cursor, read from a row, a pipeline file or a state document.
///
/// Values of one type are totally ordered; values of two types never meet, because every
/// value is read with the spec's ``CursorType``.
public enum CursorValue: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// A point in time, in UTC epoch milliseconds.
    case date(epochMilliseconds: Int64)
    /// A 64-bit integer.
    case integer(Int64)
    /// Text.
    case string(String)

    /// The type this value was read as.
    public var type: CursorType {
        switch self {
        case .date: .date
        case .integer: .integer
        case .string: .string
        }
    }

    /// The value as stored and shown: ISO 8601 UTC for dates, decimal for integers.
    public var text: String {
        switch self {
        case .date(let milliseconds): ISODate.format(epochMilliseconds: milliseconds)
        case .integer(let value): String(value)
        case .string(let value): value
        }
    }

    public var description: String { text }

    /// The longest cursor text accepted, from a row, a file or a state document: a cursor
    /// is a date, a number or a short key, and the state keeps it (and the boundary) whole.
    static let maximumTextLength = 1024

    /// Reads `text` as a value of `type` (a pipeline file's `initial`/`end`, a state
    /// document's cursor); nil when it does not parse.
    public static func parse(_ text: String, as type: CursorType) -> CursorValue? {
        guard text.utf8.count <= maximumTextLength else { return nil }
        switch type {
        case .date:
            if let milliseconds = ISODate.parse(text) { return .date(epochMilliseconds: milliseconds) }
            return nil
        case .integer:
            return Int64(text).map(CursorValue.integer)
        case .string:
            return .string(text)
        }
    }

    /// Reads a row's value as `type`: a date is epoch milliseconds (a JSON integer) or ISO
    /// text, an integer a JSON integer or decimal text, a string JSON text. Throws a
    /// conversion error saying what was found instead.
    static func read(_ value: JSONValue, as type: CursorType, path: FieldPath) throws(ScreensPipeError) -> CursorValue {
        switch (type, value) {
        case (.date, .int(let milliseconds)):
            return .date(epochMilliseconds: milliseconds)
        case (.date, .string(let text)):
            if let parsed = parse(text, as: .date) { return parsed }
        case (.integer, .int(let integer)):
            return .integer(integer)
        case (.integer, .number(let text)), (.integer, .string(let text)):
            if let parsed = parse(text, as: .integer) { return parsed }
        case (.string, .string(let text)):
            if let parsed = parse(text, as: .string) { return parsed }
        default:
            break
        }
        throw ScreensPipeError.conversion(
            "the incremental cursor '\(path)' is not \(type.article) \(type.rawValue): found \(Self.shown(value))")
    }

    /// `value` shortened for a message: rows are untrusted and may be huge.
    private static func shown(_ value: JSONValue) -> String {
        let text = value.jsonString
        return text.count <= 80 ? text : String(text.prefix(77)) + "..."
    }

    /// This value moved back by `lookback`, saturating at the type's smallest value; a
    /// string cursor has no lookback (the decoder refuses one).
    func movedBack(by lookback: CursorLookback?) -> CursorValue {
        switch (self, lookback) {
        case (.date(let milliseconds), .duration(let back)?):
            let (moved, overflow) = milliseconds.subtractingReportingOverflow(back)
            return .date(epochMilliseconds: overflow ? .min : moved)
        case (.integer(let value), .amount(let back)?):
            let (moved, overflow) = value.subtractingReportingOverflow(back)
            return .integer(overflow ? .min : moved)
        default:
            return self
        }
    }

    public static func < (lhs: CursorValue, rhs: CursorValue) -> Bool {
        switch (lhs, rhs) {
        case (.date(let a), .date(let b)): a < b
        case (.integer(let a), .integer(let b)): a < b
        case (.string(let a), .string(let b)): a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
        // Never compared: every value of a run is read with one type. Ordered by type only
        // so that the order stays total.
        default: lhs.type.rank < rhs.type.rank
        }
    }
}

extension CursorType {
    fileprivate var rank: Int {
        switch self {
        case .date: 0
        case .integer: 1
        case .string: 2
        }
    }

    var article: String { self == .integer ? "an" : "a" }
}
