#if canImport(Glibc)
internal import Glibc
#endif
import ScreensBus

/// The members a filter reads, as compact JSON texts: member `slot`'s value is
/// `bytes[ranges[slot]]`, or missing when its range is nil.
struct MemberTexts {
    let bytes: UnsafeBufferPointer<UInt8>
    let ranges: UnsafeBufferPointer<Range<Int>?>
}

/// A filter decided on its members' texts, with no value built: true or false exactly when
/// ``RowFilter/matches(_:)`` on an object of those members would say so, and nil when it
/// cannot tell from the texts (a member that is an escaped string, a decimal, an object or
/// an array where the condition reads it) or when the filter would throw: the caller then
/// asks the filter itself, which decides or raises the error.
typealias MemberTextPredicate = @Sendable (MemberTexts) -> Bool?

/// Compiles a filter's tree into a ``MemberTextPredicate`` over members in given slots.
///
/// A row's members are read as they are: a plain string (no escape) is its UTF-8 bytes, which
/// the filter's string rules compare byte by byte anyway; an integer, a boolean and null are
/// the values ``FilterSemantics`` then compares as it always does. Conditions are evaluated
/// in the filter's own order with the same short circuits, so a condition that would throw
/// is reached here exactly when it is reached there.
struct MemberTextFilterCompiler {
    /// Each key the filter reads (``RowFilter/readKeys``) to its slot.
    let slots: [String: Int]

    /// The predicate for `node`, or nil when some part of it is never decided from texts
    /// (a `matches`, a path longer than one key): such a filter reads values.
    func compile(_ node: FilterExpression) -> MemberTextPredicate? {
        switch node {
        case .or(let left, let right):
            guard let left = compile(left), let right = compile(right) else { return nil }
            return { texts in
                guard let decided = left(texts) else { return nil }
                return decided ? true : right(texts)
            }
        case .and(let left, let right):
            guard let left = compile(left), let right = compile(right) else { return nil }
            return { texts in
                guard let decided = left(texts) else { return nil }
                return decided ? right(texts) : false
            }
        case .not(let inner):
            guard let inner = compile(inner) else { return nil }
            return { texts in inner(texts).map { !$0 } }
        case .comparison(let left, let op, let right, _):
            guard let left = operand(left), let right = operand(right) else { return nil }
            return { texts in Self.apply(op, left.read(texts), right.read(texts)) }
        case .membership(let left, let list, _):
            guard let left = operand(left) else { return nil }
            let strings = list.compactMap { $0.stringValue.map(LiteralBytes.init) }
            return { texts in
                switch left.read(texts) {
                case .string(let text):
                    // Only a string equals a string; other list elements never match one.
                    return strings.contains { $0.equals(text) }
                case .value(let value):
                    return list.contains { FilterSemantics.equal(value, $0) }
                case .unknown:
                    return nil
                }
            }
        case .exists(let path, _):
            guard let slot = slot(path) else { return nil }
            return { texts in
                guard let range = texts.ranges[slot] else { return false }
                return texts.bytes[range.lowerBound] != UInt8(ascii: "n")
            }
        case .truth(let tested, _):
            guard let tested = operand(tested) else { return nil }
            return { texts in
                switch tested.read(texts) {
                case .value(.bool(let flag)): return flag
                case .value(.null): return false
                default: return nil
                }
            }
        case .matches:
            return nil
        }
    }

    private func slot(_ path: FieldPath) -> Int? {
        guard path.components.count == 1, case .key(let key) = path.components[0] else { return nil }
        return slots[key]
    }

    private func operand(_ operand: FilterOperand) -> Operand? {
        switch operand {
        case .literal(.string(let text)): .literalString(LiteralBytes(text))
        case .literal(let value): .literal(value)
        case .path(let path): slot(path).map(Operand.member)
        }
    }

    /// An operand, compiled: a literal, or the member in a slot.
    enum Operand: Sendable {
        case literalString(LiteralBytes)
        case literal(JSONValue)
        case member(Int)

        @inline(__always)
        func read(_ texts: MemberTexts) -> Read {
            switch self {
            case .literalString(let literal): .string(literal.bytes)
            case .literal(let value): .value(value)
            case .member(let slot): Self.classify(texts.bytes, texts.ranges[slot])
            }
        }

        /// A member's text as the filter reads it: missing and `null` are null.
        @inline(__always)
        static func classify(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>?) -> Read {
            guard let range else { return .value(.null) }
            switch bytes[range.lowerBound] {
            case CompactJSON.quote:
                let content = (range.lowerBound + 1)..<(range.upperBound - 1)
                return CompactJSON.containsBackslash(bytes, content) ? .unknown : .string(UnsafeBufferPointer(rebasing: bytes[content]))
            case UInt8(ascii: "t"): return .value(.bool(true))
            case UInt8(ascii: "f"): return .value(.bool(false))
            case UInt8(ascii: "n"): return .value(.null)
            case CompactJSON.openBrace, CompactJSON.openBracket: return .unknown
            default: return CompactJSON.canonicalInteger(bytes, range).map { .value(.int($0)) } ?? .unknown
            }
        }
    }

    /// An operand's value for one row: a string's UTF-8, a scalar, or unknown from the text.
    enum Read {
        case string(UnsafeBufferPointer<UInt8>)
        /// Null, a boolean, an integer, or a literal of any kind.
        case value(JSONValue)
        case unknown
    }

    /// `left op right` as ``FilterSemantics/apply(_:_:_:)`` decides it; nil when it throws or
    /// an operand is unknown.
    static func apply(_ op: FilterOperator, _ left: Read, _ right: Read) -> Bool? {
        switch (left, right) {
        case (.unknown, _), (_, .unknown):
            return nil
        case (.string(let a), .string(let b)):
            return compareStrings(op, a, b)
        case (.value(let a), .value(let b)):
            return try? FilterSemantics.apply(op, a, b)
        case (.string, .value(let other)):
            // A string beside a scalar: the rules never read the string's contents (equality
            // is false, an ordering with null is false, the rest are type errors), so an empty
            // one stands for it. Beside an array or an object (which no operand here is:
            // literals are scalars outside `in`, members are read as scalars) they would.
            guard isScalar(other) else { return nil }
            return try? FilterSemantics.apply(op, .string(""), other)
        case (.value(let other), .string):
            guard isScalar(other) else { return nil }
            return try? FilterSemantics.apply(op, other, .string(""))
        }
    }

    @inline(__always)
    private static func isScalar(_ value: JSONValue) -> Bool {
        switch value {
        case .array, .object: false
        default: true
        }
    }

    /// Two strings, byte by byte, as ``FilterSemantics`` compares them.
    @inline(__always)
    static func compareStrings(_ op: FilterOperator, _ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        switch op {
        case .equal: return equalBytes(a, b)
        case .notEqual: return !equalBytes(a, b)
        case .less: return order(a, b) < 0
        case .lessOrEqual: return order(a, b) <= 0
        case .greater: return order(a, b) > 0
        case .greaterOrEqual: return order(a, b) >= 0
        case .contains: return FilterSemantics.search(b, in: a)
        case .startsWith: return a.count >= b.count && equalBytes(UnsafeBufferPointer(rebasing: a[..<b.count]), b)
        case .endsWith: return a.count >= b.count && equalBytes(UnsafeBufferPointer(rebasing: a[(a.count - b.count)...]), b)
        }
    }

    @inline(__always)
    private static func equalBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let left = a.baseAddress, let right = b.baseAddress else { return true }
        return memcmp(left, right, a.count) == 0
    }

    /// Lexicographic order of the bytes, a prefix first (the order of `utf8` views).
    @inline(__always)
    private static func order(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(a.count, b.count)
        if common > 0, let left = a.baseAddress, let right = b.baseAddress {
            let compared = memcmp(left, right, common)
            if compared != 0 { return Int(compared) }
        }
        return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
    }
}

/// A string literal's UTF-8, allocated once for the filter's lifetime and never written.
final class LiteralBytes: @unchecked Sendable {
    let bytes: UnsafeBufferPointer<UInt8>

    init(_ text: String) {
        let utf8 = Array(text.utf8)
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, utf8.count))
        _ = storage.initialize(from: utf8)
        bytes = UnsafeBufferPointer(rebasing: UnsafeBufferPointer(storage)[..<utf8.count])
    }

    deinit {
        UnsafeMutableBufferPointer(mutating: bytes).baseAddress?.deallocate()
    }

    func equals(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        MemberTextFilterCompiler.compareStrings(.equal, bytes, other)
    }
}
