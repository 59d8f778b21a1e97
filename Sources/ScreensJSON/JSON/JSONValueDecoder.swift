/// Decodes `Decodable` types straight from a ``JSONValue``: no text is written and read
/// again, and no number is rounded or converted on the way.
///
/// ```swift
/// struct Bookmark: Decodable { let entryId: Int64; let name: String; let description: String? }
/// let bookmark = try JSONValueDecoder().decode(Bookmark.self, from: row)
/// ```
///
/// What each value decodes as:
///
/// - An integer type (`Int`, `Int64`, `UInt8`...) takes a JSON integer that fits it, and a
///   number written with a fraction or an exponent only when its value is that integer
///   exactly (`3.0`, `3e2`). A number that does not fit (`300` as `UInt8`, a 20-digit id
///   as `Int64`, `2.5` as `Int`) is a `typeMismatch` naming the number: never wrapped,
///   truncated or rounded.
/// - `Double` takes an integer a `Double` holds exactly (`9007199254740993`, 2^53 + 1, is
///   refused), and a decimal of up to 15 significant digits (DBL_DIG: the nearest `Double`
///   gives those digits back); a longer decimal, or one beyond its range, is refused.
///   `Float` takes a number whose shortest spelling as a `Float` is the `Double`'s (`0.1`).
/// - `String` takes only strings, `Bool` only `true` and `false`: a number is never read
///   as a string, nor a string as a number.
/// - ``JSONValue`` takes the value as it is, and ``JSONNumberText`` any number as its exact
///   text (a 30-digit integer, a decimal amount): the routes for numbers no Swift number
///   type holds.
/// - An optional is nil for `null` and, in a keyed container, for a missing key.
/// - Any other type decodes through its own `init(from:)`, unless ``typeDecoders`` has a
///   decoder for it (dates, decimals).
///
/// Errors are the standard library's `DecodingError`, with the `codingPath` of the field:
/// `null` where a non-optional value is expected is `valueNotFound` (a type that decodes
/// itself through `init(from:)` still sees the null), a value of another kind
/// `typeMismatch`, a missing member `keyNotFound`.
///
/// Where it differs from Foundation's `JSONDecoder`, on purpose:
///
/// - No number is rounded into a `Double` or a `Float`: Foundation reads
///   `9007199254740993` or `0.10000000000000000555` as the nearest `Double`, and
///   `16777217` as a `Float` of 16777216; this decoder refuses them (decode such a number
///   as ``JSONNumberText``).
/// - A number that does not fit an integer type (`300` as `UInt8`, `2.5` as `Int`) is
///   `typeMismatch`, naming the number and the type's range; Foundation says
///   `dataCorrupted` ("number does not fit"). Both carry the field's coding path.
/// - `decodeNil(forKey:)` is true for a missing key, as for `null`; Foundation throws
///   `keyNotFound`. A hand-written `init(from:)` that asks it first reads a missing member
///   as nil (`decodeIfPresent` is nil for both in either decoder).
public struct JSONValueDecoder: Sendable {
    /// Decodes one type from a value, instead of the type's own `init(from:)`: for types
    /// this module cannot name, such as Foundation's `Date` and `Decimal`. Returns nil when
    /// the value does not hold one, with what it expected in `expected`.
    public typealias TypeDecoder = @Sendable (_ value: JSONValue) -> (any Sendable)?

    /// Decoders for particular types, by `ObjectIdentifier(Type.self)`, and what each expects
    /// (for the error when it returns nil). Consulted only for types the decoder does not
    /// handle itself: a decoder for `String`, `Bool`, a number type or ``JSONValue`` is never
    /// called (those rules stay the same everywhere, and most fields skip the lookup).
    public var typeDecoders: [ObjectIdentifier: (expected: String, decode: TypeDecoder)] = [:]
    /// Handed to every `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// A decoder with no type decoders and no user info.
    public init() {}

    /// Adds a decoder for `type`, used wherever a value of that type is decoded; `expected`
    /// says what it takes, for the error when it returns nil (`"an ISO 8601 date string"`).
    /// `type` is one the decoder does not handle itself (see ``typeDecoders``).
    public mutating func addDecoder<T: Sendable>(for type: T.Type, expecting expected: String, _ decode: @escaping @Sendable (JSONValue) -> T?) {
        typeDecoders[ObjectIdentifier(type)] = (expected, { value in decode(value) })
    }

    /// Decodes a `T` from `value`.
    ///
    /// - Throws: `DecodingError` with the coding path of the value that did not fit, or the
    ///   error `T`'s own `init(from:)` threw.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONValueDecoding(value: value, container: nil, step: nil, options: self).decodeValue(T.self)
    }
}

/// A JSON number's exact text, for numbers no Swift number type holds without rounding (a
/// decimal amount, a 30-digit id): decode a field as `JSONNumberText` and parse the text
/// with the decimal type of your choice.
public struct JSONNumberText: Sendable, Hashable, Decodable, CustomStringConvertible {
    /// The number's text as received (`1.10`, `3e2`, a 30-digit integer); a number the
    /// parser read as an `Int64` or a `Double` is written back exactly as it arrived.
    public let text: String

    /// Wraps `text` as it is.
    public init(_ text: String) { self.text = text }

    /// Decodes a JSON number (only through ``JSONValueDecoder``: other decoders do not keep
    /// a number's text).
    public init(from decoder: any Decoder) throws {
        guard let decoding = decoder as? JSONValueDecoding else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "JSONNumberText decodes only with JSONValueDecoder"))
        }
        switch decoding.value {
        case .int(let value): text = String(value)
        case .double(let value): text = value.description
        case .number(let value): text = value
        default: throw decoding.mismatch(JSONNumberText.self, expected: "a number")
        }
    }

    /// The text.
    public var description: String { text }
}

/// One value being decoded, and where it is: its place (`step`) in its container, which
/// knows its own path. A scalar member costs no path of its own; an object or array
/// makes one node for its members (``path``).
struct JSONValueDecoding: Decoder {
    let value: JSONValue
    /// The path of the object or array that holds the value; nil at the root.
    let container: CodingPathNode?
    /// The value's key or index in `container`; nil for the root value.
    let step: CodingPathStep?
    let options: JSONValueDecoder

    var codingPath: [any CodingKey] { CodingPathNode.codingPath(container, then: step) }

    /// This value's path, as the container of its members.
    var path: CodingPathNode? { step.map { CodingPathNode($0, parent: container) } ?? container }

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo.mapValues { $0 as Any } }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw mismatch([String: JSONValue].self, expected: "an object")
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, decoding: self, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw mismatch([JSONValue].self, expected: "an array")
        }
        return UnkeyedContainer(elements: elements, decoding: self, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValue(decoding: self) }

    /// The error for a value that is not the `type` expected, saying what was expected and
    /// what the value is: `valueNotFound` for `null` (a non-optional value is missing, as
    /// Foundation's JSONDecoder says), `typeMismatch` for anything else.
    func mismatch(_ type: Any.Type, expected: String) -> DecodingError {
        let context = DecodingError.Context(codingPath: codingPath, debugDescription: "expected \(expected), found \(Self.describe(value))")
        return value.isNull ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    /// A short description of a value for an error: its kind, and a scalar's text.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .int(let number): "the number \(number)"
        case .double(let number): "the number \(number)"
        case .number(let text): "the number \(text.count > 40 ? String(text.prefix(40)) + "..." : text)"
        case .string(let text): "a string (\(text.count) characters)"
        case .array(let elements): "an array of \(elements.count)"
        case .object: "an object"
        }
    }

    // MARK: - Values

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        // Metatype identity, not `is` casts: a pointer comparison each, where a cast asks the
        // runtime, and a struct field falls through every case.
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(JSONValue.self): return value as! T
        case ObjectIdentifier(String.self): return try decodeString() as! T
        case ObjectIdentifier(Bool.self): return try decodeBool() as! T
        case ObjectIdentifier(Double.self): return try decodeDouble() as! T
        case ObjectIdentifier(Float.self): return try decodeFloat() as! T
        case ObjectIdentifier(Int.self): return try decodeInteger(Int.self) as! T
        case ObjectIdentifier(Int8.self): return try decodeInteger(Int8.self) as! T
        case ObjectIdentifier(Int16.self): return try decodeInteger(Int16.self) as! T
        case ObjectIdentifier(Int32.self): return try decodeInteger(Int32.self) as! T
        case ObjectIdentifier(Int64.self): return try decodeInteger(Int64.self) as! T
        case ObjectIdentifier(UInt.self): return try decodeInteger(UInt.self) as! T
        case ObjectIdentifier(UInt8.self): return try decodeInteger(UInt8.self) as! T
        case ObjectIdentifier(UInt16.self): return try decodeInteger(UInt16.self) as! T
        case ObjectIdentifier(UInt32.self): return try decodeInteger(UInt32.self) as! T
        case ObjectIdentifier(UInt64.self): return try decodeInteger(UInt64.self) as! T
        default:
            // Looked up only here: the types above are never in it, and most fields are those.
            if let custom = options.typeDecoders[ObjectIdentifier(type)] {
                guard let decoded = custom.decode(value) as? T else { throw mismatch(type, expected: custom.expected) }
                return decoded
            }
            return try T(from: self)
        }
    }

    func decodeString() throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self, expected: "a string") }
        return text
    }

    func decodeBool() throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self, expected: "true or false") }
        return flag
    }

    func decodeDouble() throws -> Double {
        switch value {
        case .double(let number): return number
        case .int(let number):
            guard let exact = Double(exactly: number) else {
                throw mismatch(Double.self, expected: "a number a Double holds exactly (\(number) would be rounded)")
            }
            return exact
        case .number(let text):
            // A decimal kept as its text (`0.10`, `3e2`): the nearest Double, when that
            // gives its digits back (15 significant digits at most, DBL_DIG); a longer one
            // or one beyond Double's range would lose digits.
            if let exact = ExactDecimal(text: text), exact.digits.count <= 15, let number = Double(text),
                number == 0 ? exact.digits.isEmpty : number.isNormal
            {
                return number
            }
            throw mismatch(Double.self, expected: "a number a Double holds (decode it as JSONNumberText)")
        default:
            throw mismatch(Double.self, expected: "a number")
        }
    }

    func decodeFloat() throws -> Float {
        let number = try decodeDouble()
        if let exact = Float(exactly: number) { return exact }
        let single = Float(number)
        // The same shortest spelling: the Float is the number the text says, as a Float.
        guard single.isFinite == number.isFinite, single.description == number.description || Double(single) == number else {
            throw mismatch(Float.self, expected: "a number a Float holds (\(number) would be rounded; decode it as Double)")
        }
        return single
    }

    func decodeInteger<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        switch value {
        case .int(let number):
            if let exact = I(exactly: number) { return exact }
        case .double(let number):
            if let exact = I(exactly: number) { return exact }
        case .number(let text):
            // A big integer's digits (an unsigned 64-bit type holds some of them), or a
            // decimal whose value is an integer (`3e2`, `3.0`), read digit by digit.
            if let exact = ExactDecimal(text: text)?.integer(as: I.self) { return exact }
        default:
            throw mismatch(type, expected: "an integer")
        }
        throw mismatch(type, expected: "an integer that fits \(type) (\(I.min)...\(I.max)), without rounding")
    }
}

extension JSONValueDecoding {
    /// The members of one object.
    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let object: JSONObject
        let options: JSONValueDecoder
        /// The object's own path, shared by its members.
        let path: CodingPathNode?

        init(object: JSONObject, decoding: JSONValueDecoding, path: CodingPathNode?) {
            self.object = object
            self.options = decoding.options
            self.path = path
        }

        var codingPath: [any CodingKey] { CodingPathNode.codingPath(path) }
        var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

        private func child(_ value: JSONValue, at key: some CodingKey) -> JSONValueDecoding {
            JSONValueDecoding(value: value, container: path, step: .key(key), options: options)
        }

        private func member(_ key: Key) throws -> JSONValueDecoding {
            guard let value = object[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key, .init(codingPath: codingPath, debugDescription: "no member '\(key.stringValue)'"))
            }
            return child(value, at: key)
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            (object[key.stringValue] ?? .null).isNull
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try member(key).decodeValue(type)
        }

        /// An optional member with one lookup (the protocol's default looks the key up three
        /// times: `contains`, `decodeNil`, `decode`): nil when missing or null.
        private func present<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
            guard let value = object[key.stringValue], !value.isNull else { return nil }
            return try child(value, at: key).decodeValue(type)
        }

        // Each overload the protocol has a default for: a generic one alone would not replace them.
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try present(type, key) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(type, key) }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(type, key) }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(type, key) }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try present(type, key) }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(type, key) }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try present(type, key) }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try present(type, key) }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try present(type, key) }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try present(type, key) }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try present(type, key) }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try present(type, key) }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try present(type, key) }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try present(type, key) }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try present(type, key) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try member(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try member(key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            child(object["super"] ?? .null, at: JSONKey("super"))
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            child(object[key.stringValue] ?? .null, at: key)
        }
    }

    /// The elements of one array.
    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        let options: JSONValueDecoder
        /// The array's own path, shared by its elements.
        let path: CodingPathNode?
        private(set) var currentIndex = 0

        init(elements: [JSONValue], decoding: JSONValueDecoding, path: CodingPathNode?) {
            self.elements = elements
            self.options = decoding.options
            self.path = path
        }

        var codingPath: [any CodingKey] { CodingPathNode.codingPath(path) }
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        /// The decoding of the current element, without moving past it: the index moves only
        /// once the element decoded, as in Foundation's JSONDecoder, so a caller that catches
        /// an element's error can decode the same element again (a placeholder that skips
        /// it) rather than the next one.
        private func current(_ type: Any.Type) throws -> JSONValueDecoding {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    type, .init(codingPath: CodingPathNode.codingPath(path, then: .index(currentIndex)), debugDescription: "the array has only \(elements.count) elements"))
            }
            return JSONValueDecoding(value: elements[currentIndex], container: path, step: .index(currentIndex), options: options)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, elements[currentIndex].isNull else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let decoded = try current(type).decodeValue(type)
            currentIndex += 1
            return decoded
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let nested = try current([String: JSONValue].self).container(keyedBy: type)
            currentIndex += 1
            return nested
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let nested = try current([JSONValue].self).unkeyedContainer()
            currentIndex += 1
            return nested
        }

        mutating func superDecoder() throws -> any Decoder {
            let decoder = try current(JSONValue.self)
            currentIndex += 1
            return decoder
        }
    }

    /// One scalar (or any value whose type decodes itself from a single value).
    struct SingleValue: SingleValueDecodingContainer {
        let decoding: JSONValueDecoding

        var codingPath: [any CodingKey] { decoding.codingPath }

        func decodeNil() -> Bool { decoding.value.isNull }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try decoding.decodeValue(type)
        }
    }
}

/// A coding key for an array index or a key no `CodingKeys` names.
struct JSONKey: CodingKey {
    private let string: String?
    let intValue: Int?

    /// The key's text; an index's is written only when asked for.
    var stringValue: String { string ?? "\(intValue ?? 0)" }

    init(_ string: String) {
        self.string = string
        intValue = nil
    }

    init(index: Int) {
        string = nil
        intValue = index
    }

    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(index: intValue) }
}

extension DecodingError {
    /// Where the error is, as `author.tags[2].name`, and what went wrong: one line for an
    /// error message.
    public var pathAndReason: String {
        let context: Context
        switch self {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c): context = c
        @unknown default: return "\(self)"
        }
        var path = ""
        for key in context.codingPath {
            if let index = key.intValue, key.stringValue == "\(index)" {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        if case .keyNotFound(let key, _) = self {
            path += path.isEmpty ? key.stringValue : "." + key.stringValue
        }
        return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
    }
}

extension JSONValue: Decodable {
    /// The value as it is, from ``JSONValueDecoder`` (a field of type `JSONValue` takes any
    /// JSON); from another decoder, the value its containers hold.
    public init(from decoder: any Decoder) throws {
        if let decoding = decoder as? JSONValueDecoding {
            self = decoding.value
            return
        }
        if let object = try? decoder.container(keyedBy: JSONKey.self) {
            var members = JSONObject()
            for key in object.allKeys { members[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(members)
        } else if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !array.isAtEnd { elements.append(try array.decode(JSONValue.self)) }
            self = .array(elements)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let flag = try? single.decode(Bool.self) {
                self = .bool(flag)
            } else if let integer = try? single.decode(Int64.self) {
                self = .int(integer)
            } else if let number = try? single.decode(Double.self) {
                self = .double(number)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }
}
