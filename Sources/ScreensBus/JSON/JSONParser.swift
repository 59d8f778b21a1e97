/// A strict RFC 8259 parser over a borrowed byte buffer.
///
/// It works on a raw pointer and an index range so that errors carry offsets into the whole
/// input, which lets JSON lines parse each line in place without copying. Containers recurse
/// (bounded by ``maxDepth``), scalars do not.
struct JSONParser {
    /// Deepest nesting of arrays and objects accepted; one more is an error, not a stack overflow.
    static let maxDepth = 512

    let bytes: UnsafePointer<UInt8>
    /// One past the last byte this parser may read.
    let end: Int
    /// The next byte to read.
    var index: Int
    var depth = 0

    init(bytes: UnsafePointer<UInt8>, start: Int, end: Int) {
        self.bytes = bytes
        self.index = start
        self.end = end
    }

    /// Parses exactly one value surrounded by optional whitespace, up to `end`.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        if index != end { throw error(at: index, "unexpected characters after the value") }
        return value
    }

    func error(at offset: Int, _ message: String) -> JSONParseError {
        JSONParseError(offset: offset, message: message)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < end {
            switch bytes[index] {
            case JSONByte.space, JSONByte.tab, JSONByte.newline, JSONByte.carriageReturn: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard index < end else { throw error(at: index, "unexpected end of input") }
        switch bytes[index] {
        case JSONByte.quote: return .string(try parseString())
        case JSONByte.openBrace: return try parseObject()
        case JSONByte.openBracket: return try parseArray()
        case JSONByte.minus, JSONByte.zero ... JSONByte.nine: return try parseNumber()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default:
            throw error(at: index, "expected a value")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let text = literal.utf8Start
        for offset in 0..<literal.utf8CodeUnitCount {
            guard index < end else { throw error(at: index, "unexpected end of input") }
            guard bytes[index] == text[offset] else { throw error(at: index, "invalid literal, expected \(literal)") }
            index += 1
        }
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > Self.maxDepth {
            throw error(at: index, "nesting deeper than \(Self.maxDepth) levels")
        }
        index += 1
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < end, bytes[index] == JSONByte.closeBracket {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard index < end else { throw error(at: index, "unexpected end of input, expected ',' or ']'") }
            switch bytes[index] {
            case JSONByte.comma: index += 1
            case JSONByte.closeBracket:
                index += 1
                return .array(elements)
            default: throw error(at: index, "expected ',' or ']'")
            }
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var object = JSONObject()
        skipWhitespace()
        if index < end, bytes[index] == JSONByte.closeBrace {
            index += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard index < end else { throw error(at: index, "unexpected end of input, expected a string key") }
            guard bytes[index] == JSONByte.quote else { throw error(at: index, "expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard index < end else { throw error(at: index, "unexpected end of input, expected ':'") }
            guard bytes[index] == JSONByte.colon else { throw error(at: index, "expected ':'") }
            index += 1
            let value = try parseValue()
            // Duplicates are kept in order; JSONObject's lookup scans from the end, so the last wins.
            object.appendUnchecked(key: key, value: value)
            skipWhitespace()
            guard index < end else { throw error(at: index, "unexpected end of input, expected ',' or '}'") }
            switch bytes[index] {
            case JSONByte.comma: index += 1
            case JSONByte.closeBrace:
                index += 1
                return .object(object)
            default: throw error(at: index, "expected ',' or '}'")
            }
        }
    }
}

/// The ASCII bytes JSON syntax is made of.
enum JSONByte {
    static let tab: UInt8 = UInt8(ascii: "\t")
    static let newline: UInt8 = UInt8(ascii: "\n")
    static let carriageReturn: UInt8 = UInt8(ascii: "\r")
    static let space: UInt8 = UInt8(ascii: " ")
    static let quote: UInt8 = UInt8(ascii: "\"")
    static let backslash: UInt8 = UInt8(ascii: "\\")
    static let slash: UInt8 = UInt8(ascii: "/")
    static let comma: UInt8 = UInt8(ascii: ",")
    static let colon: UInt8 = UInt8(ascii: ":")
    static let minus: UInt8 = UInt8(ascii: "-")
    static let plus: UInt8 = UInt8(ascii: "+")
    static let dot: UInt8 = UInt8(ascii: ".")
    static let zero: UInt8 = UInt8(ascii: "0")
    static let nine: UInt8 = UInt8(ascii: "9")
    static let openBracket: UInt8 = UInt8(ascii: "[")
    static let closeBracket: UInt8 = UInt8(ascii: "]")
    static let openBrace: UInt8 = UInt8(ascii: "{")
    static let closeBrace: UInt8 = UInt8(ascii: "}")
}
