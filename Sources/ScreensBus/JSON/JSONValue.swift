/// A JSON document, exact for everything screens-pipe moves between a portal and a sink.
///
/// Integers that fit in 64 bits are kept as ``Int64`` (portal ids go beyond 2^53, so they
/// must never pass through `Double`); integers beyond that are kept as their source text in
/// ``number(_:)``. Objects keep their key order so rows are written the way the portal sent them.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// An integer literal that fits in `Int64`.
    case int(Int64)
    /// A number with a fraction or an exponent.
    case double(Double)
    /// A number kept as its exact source text: an integer too large for `Int64`, or a number
    /// beyond the range of `Double`.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// A JSON object that keeps its members in insertion order.
///
/// Rows are small (tens of keys), so members live in one array and lookups scan it: that is
/// faster than hashing for the objects portals return, and it keeps the order for free.
/// When a key repeats, the last member wins, as in most JSON readers.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public typealias Member = (key: String, value: JSONValue)

    public private(set) var keys: [String]
    public private(set) var values: [JSONValue]

    public init() {
        keys = []
        values = []
    }

    public init(minimumCapacity: Int) {
        keys = []
        values = []
        keys.reserveCapacity(minimumCapacity)
        values.reserveCapacity(minimumCapacity)
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(minimumCapacity: elements.count)
        for (key, value) in elements { self[key] = value }
    }

    public init(_ members: some Sequence<(String, JSONValue)>) {
        self.init()
        for (key, value) in members { self[key] = value }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }
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

    /// Appends a member without looking for an existing key; the parser's fast path.
    public mutating func appendUnchecked(key: String, value: JSONValue) {
        keys.append(key)
        values.append(value)
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.keys == rhs.keys && lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
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

    public var isNull: Bool { if case .null = self { true } else { false } }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }

    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }

    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

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
