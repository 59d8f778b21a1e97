import ScreensBus

/// The type rules of the filter language (written down in ConvertAndFilter.md, "The filter language").
///
/// - Numbers compare numerically: two `Int64`s exactly, anything else as `Double`.
/// - Strings compare by Unicode scalar order (their UTF-8 bytes), not by locale rules or
///   canonical equivalence, so the result never depends on the machine.
/// - `==` / `!=` between different types is false / true; `null == null` is true.
/// - Ordering needs two numbers or two strings; with a null (a missing path) it is false;
///   any other mix is a type error.
/// - `contains` works on a string (substring) and on an array (an equal element);
///   `starts-with`, `ends-with` and `matches` on strings; on null they are false.
enum FilterSemantics {
    /// Two operands that an operator does not accept together.
    struct TypeMismatch: Error {
        var left: JSONValue
        var right: JSONValue
    }

    static func equal(_ left: JSONValue, _ right: JSONValue) -> Bool {
        switch (left, right) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.int(let a), .int(let b)): return a == b
        case (.int, _), (.double, _), (.number, _):
            guard right.isNumber else { return false }
            return compareNumbers(left, right) == 0
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { member in b[member.key].map { equal(member.value, $0) } ?? false }
        default:
            return false
        }
    }

    /// The order of two values, or nil when one is null (an ordering with null is false).
    static func order(_ left: JSONValue, _ right: JSONValue) throws(TypeMismatch) -> Int? {
        switch (left, right) {
        case (.null, _), (_, .null):
            return nil
        case (.int(let a), .int(let b)):
            return a < b ? -1 : (a == b ? 0 : 1)
        case (.string(let a), .string(let b)):
            if a.utf8.elementsEqual(b.utf8) { return 0 }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
        default:
            guard left.isNumber, right.isNumber else { throw TypeMismatch(left: left, right: right) }
            return compareNumbers(left, right)
        }
    }

    /// Numbers compared by value, exactly: two doubles as doubles, anything involving an
    /// integer beside a decimal or a number kept as text through its decimal digits, so
    /// `12345678901234567890123` never equals `...124` and `0.1` equals `0.10`.
    static func compareNumbers(_ left: JSONValue, _ right: JSONValue) -> Int {
        if case .double(let a) = left, case .double(let b) = right { return a < b ? -1 : (a == b ? 0 : 1) }
        if case .int(let a) = left, case .int(let b) = right { return a < b ? -1 : (a == b ? 0 : 1) }
        guard let a = ExactDecimal(left), let b = ExactDecimal(right) else {
            // Not reachable for numbers the parser produced; NaN-like values compare unequal.
            return left.doubleValue ?? 0 < right.doubleValue ?? 0 ? -1 : 1
        }
        return a.compare(to: b)
    }

    static func contains(_ left: JSONValue, _ right: JSONValue) throws(TypeMismatch) -> Bool {
        switch (left, right) {
        case (.null, _): return false
        case (.string(let text), .string(let part)): return substring(part, of: text)
        case (.array(let elements), _): return elements.contains { equal($0, right) }
        default: throw TypeMismatch(left: left, right: right)
        }
    }

    static func startsWith(_ left: JSONValue, _ right: JSONValue) throws(TypeMismatch) -> Bool {
        switch (left, right) {
        case (.null, .string): return false
        case (.string(let text), .string(let prefix)): return text.utf8.starts(with: prefix.utf8)
        default: throw TypeMismatch(left: left, right: right)
        }
    }

    static func endsWith(_ left: JSONValue, _ right: JSONValue) throws(TypeMismatch) -> Bool {
        switch (left, right) {
        case (.null, .string): return false
        case (.string(let text), .string(let suffix)):
            let count = suffix.utf8.count
            return text.utf8.count >= count && text.utf8.suffix(count).elementsEqual(suffix.utf8)
        default: throw TypeMismatch(left: left, right: right)
        }
    }

    /// Applies a binary operator.
    static func apply(_ op: FilterOperator, _ left: JSONValue, _ right: JSONValue) throws(TypeMismatch) -> Bool {
        switch op {
        case .equal: return equal(left, right)
        case .notEqual: return !equal(left, right)
        case .less: return try order(left, right).map { $0 < 0 } ?? false
        case .lessOrEqual: return try order(left, right).map { $0 <= 0 } ?? false
        case .greater: return try order(left, right).map { $0 > 0 } ?? false
        case .greaterOrEqual: return try order(left, right).map { $0 >= 0 } ?? false
        case .contains: return try contains(left, right)
        case .startsWith: return try startsWith(left, right)
        case .endsWith: return try endsWith(left, right)
        }
    }

    /// Whether `part` occurs in `text`, byte for byte (scalar for scalar) in UTF-8.
    ///
    /// A plain loop over contiguous bytes: the generic `firstRange(of:)` on `utf8` views
    /// was a quarter of this speed and made `contains` the slowest operator.
    static func substring(_ part: String, of text: String) -> Bool {
        let found = text.utf8.withContiguousStorageIfAvailable { haystack in
            part.utf8.withContiguousStorageIfAvailable { needle in search(needle, in: haystack) }
        }
        if let found, let found { return found }
        return Array(text.utf8).withUnsafeBufferPointer { haystack in
            Array(part.utf8).withUnsafeBufferPointer { needle in search(needle, in: haystack) }
        }
    }

    static func search(_ needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        guard needle.count <= haystack.count else { return false }
        let lastStart = haystack.count - needle.count
        var start = 0
        while start <= lastStart {
            if haystack[start] == first {
                var matched = 1
                while matched < needle.count, haystack[start + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return true }
            }
            start += 1
        }
        return false
    }
}
