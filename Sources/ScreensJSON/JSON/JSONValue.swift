/// A JSON document, exact for everything screens-pipe moves between a portal and a sink.
///
/// Integers that fit in 64 bits are kept as ``Int64`` (portal ids go beyond 2^53, so they
/// must never pass through `Double`); integers beyond that are kept as their source text in
/// ``number(_:)``. Objects keep their key order so rows are written the way the portal sent them.
public enum JSONValue: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer literal that fits in `Int64`.
    case int(Int64)
    /// A number with a fraction or an exponent.
    case double(Double)
    /// A number kept as its exact source text: an integer too large for `Int64`, or a number
    /// beyond the range of `Double`.
    case number(String)
    /// A string, unescaped; any Unicode, control characters included, round-trips exactly.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object, members in the order they were read or set.
    case object(JSONObject)
}

/// A JSON object that keeps its members in insertion order.
///
/// Rows are small (tens of keys), so members live in one array and lookups scan it: that is
/// faster than hashing for the objects portals return, and it keeps the order for free.
/// When a key repeats, the last member wins, as in most JSON readers.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One member: its key and value, as the collection's elements.
    public typealias Member = (key: String, value: JSONValue)

    /// The keys in member order, parallel to ``values``.
    public private(set) var keys: [String]
    /// The values in member order, parallel to ``keys``.
    public private(set) var values: [JSONValue]

    /// Creates an empty object.
    public init() {
        keys = []
        values = []
    }

    /// Creates an empty object with room for `minimumCapacity` members before it reallocates.
    public init(minimumCapacity: Int) {
        keys = []
        values = []
        keys.reserveCapacity(minimumCapacity)
        values.reserveCapacity(minimumCapacity)
    }

    /// Creates an object from a literal, in the order written; a repeated key keeps its first
    /// position and its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(minimumCapacity: elements.count)
        for (key, value) in elements { self[key] = value }
    }

    /// Creates an object from key-value pairs, in order; a repeated key keeps its first
    /// position and its last value.
    ///
    /// Linear in the members: past a handful of keys, repeats are found through a hash table
    /// (the lookup of ``subscript(_:)-(String)`` scans, which suits rows, not 100,000 keys).
    public init(_ members: some Sequence<(String, JSONValue)>) {
        self.init()
        var positions: [String: Int]?
        for (key, value) in members {
            if positions == nil, keys.count >= 16 {
                positions = Dictionary(keys.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            }
            if let existing = positions?[key] ?? (positions == nil ? keys.lastIndex(of: key) : nil) {
                values[existing] = value
            } else {
                positions?[key] = keys.count
                keys.append(key)
                values.append(value)
            }
        }
    }

    /// The position of the first member: always 0.
    public var startIndex: Int { 0 }
    /// One past the last member: the member count.
    public var endIndex: Int { keys.count }
    /// The member at `position`, in member order.
    public subscript(position: Int) -> Member { (keys[position], values[position]) }

    /// The value of `key`, or nil. Setting nil removes the member.
    public subscript(key: String) -> JSONValue? {
        get {
            var index = keys.count - 1
            while index >= 0 {
                if keys[index] == key { return values[index] }
                index -= 1
            }
            return nil
        }
        set {
            if let index = keys.lastIndex(of: key) {
                if let newValue {
                    values[index] = newValue
                } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// Removes every member; with `keepingCapacity`, the storage stays for an object that is
    /// filled again (one per row, say) without allocating.
    public mutating func removeAll(keepingCapacity: Bool = false) {
        keys.removeAll(keepingCapacity: keepingCapacity)
        values.removeAll(keepingCapacity: keepingCapacity)
    }

    /// Appends a member without looking for an existing key; the parser's fast path.
    public mutating func appendUnchecked(key: String, value: JSONValue) {
        keys.append(key)
        values.append(value)
    }

    /// Whether both objects have the same members in the same order; order matters.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.keys == rhs.keys && lhs.values == rhs.values
    }

    /// Hashes the keys and values in member order, consistent with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// Creates ``null``.
    public init(nilLiteral: ()) { self = .null }
    /// Creates ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Creates ``int(_:)``; integer literals never pass through `Double`.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// Creates ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// Creates ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates ``array(_:)`` from the elements in order.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Creates ``object(_:)`` with the members in the order written; a repeated key keeps its
    /// last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject(minimumCapacity: elements.count)
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

extension JSONValue {
    /// The member `key` of an object, or nil for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The element at `index` of an array, or nil when out of range or not an array.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    /// Whether the value is ``null``.
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// The text of a ``string(_:)``, or nil for any other kind; numbers are not converted.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }

    /// The value of a ``bool(_:)``, or nil for any other kind.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }

    /// The elements of an ``array(_:)``, or nil for any other kind.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    /// The members of an ``object(_:)``, or nil for any other kind.
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }

    /// The value as an exact 64-bit integer: integers, and doubles with no fraction in range.
    public var int64Value: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d):
            guard d.rounded() == d, let i = Int64(exactly: d) else { return nil }
            return i
        default: return nil
        }
    }

    /// The value as a `Double` for arithmetic and comparison (may round large integers).
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .number(let text): return Double(text)
        default: return nil
        }
    }

    /// Whether the value is any kind of number.
    public var isNumber: Bool {
        switch self {
        case .int, .double, .number: true
        default: false
        }
    }

    /// A short name of the value's type for messages: "string", "number", "object"...
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int, .double, .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
