import ScreensBus

/// A path into a JSON row: `name`, `author.email`, `tags[0]`, `a["key with.dot"]`.
///
/// Shared by the `fields:` mapping and the filter language, so a path means the same thing
/// in both places. A path that does not lead anywhere resolves to nil, never to an error:
/// rows from portals are ragged, and "missing" is an answer the caller decides about.
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        /// An object member.
        case key(String)
        /// An array element; a negative index counts from the end (`-1` is the last).
        case index(Int)
    }

    /// The steps, outermost first; never empty.
    public let components: [Component]

    /// A path made of `components` (at least one).
    public init(components: [Component]) {
        precondition(!components.isEmpty, "a field path needs at least one component")
        self.components = components
    }

    /// Parses `text` such as `a.b[0].c` or `a["key with.dot"]`.
    ///
    /// - Throws: a `.configuration` error naming the column of the first bad character.
    public init(_ text: String) throws(ScreensPipeError) {
        let bytes = Array(text.utf8)
        do throws(FieldPathSyntaxError) {
            let (path, end) = try FieldPathParser.parse(bytes, at: 0)
            if end != bytes.count {
                throw FieldPathSyntaxError(offset: end, message: "unexpected '\(FieldPathParser.character(in: bytes, at: end))'")
            }
            self = path
        } catch {
            let column = FieldPathParser.column(of: error.offset, in: bytes)
            throw ScreensPipeError.configuration("invalid field path '\(text)': \(error.message) at column \(column)")
        }
    }

    /// Paths separated by commas, as `--fields` and `sink.fields` take them: `a, b.c, d[0]`.
    /// A comma inside a quoted key (`a["x,y"]`) does not separate.
    public static func list(_ text: String) throws(ScreensPipeError) -> [FieldPath] {
        var paths: [FieldPath] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                paths.append(try FieldPath(current.trimmingWhitespace))
                current = ""
                continue
            }
            current.append(character)
        }
        paths.append(try FieldPath(current.trimmingWhitespace))
        return paths
    }

    /// The value the path leads to in `value`, or nil when any step is missing.
    public func resolve(in value: JSONValue) -> JSONValue? {
        var current = value
        for component in components {
            switch (component, current) {
            case (.key(let key), .object(let object)):
                guard let next = object[key] else { return nil }
                current = next
            case (.index(let index), .array(let array)):
                let position = index < 0 ? array.count + index : index
                guard array.indices.contains(position) else { return nil }
                current = array[position]
            default:
                return nil
            }
        }
        return current
    }

    /// The canonical text of the path; parsing it gives the same path back.
    public var description: String {
        var text = ""
        for (position, component) in components.enumerated() {
            switch component {
            case .key(let key) where FieldPathParser.isPlainIdentifier(key):
                if position > 0 { text += "." }
                text += key
            case .key(let key):
                text += "[\"" + key.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\"]"
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }
}

/// Why a path (or a quoted key in it) could not be read, at a UTF-8 offset.
struct FieldPathSyntaxError: Error {
    var offset: Int
    var message: String
}

/// The path grammar, over UTF-8 bytes so the filter lexer can call it mid-expression:
///
///     path       := head ( "." identifier | "[" integer "]" | "[" quoted "]" )*
///     head       := identifier | "[" integer "]" | "[" quoted "]"
///     identifier := ( letter | "_" | "$" | "@" | non-ASCII ) ( that | digit | "-" )*
enum FieldPathParser {
    /// Parses a path starting at `start`; returns it and the offset just after it.
    static func parse(_ bytes: [UInt8], at start: Int) throws(FieldPathSyntaxError) -> (FieldPath, Int) {
        var components: [FieldPath.Component] = []
        var position = start
        if position < bytes.count, bytes[position] == UInt8(ascii: "[") {
            components.append(try bracket(bytes, &position))
        } else {
            components.append(.key(try identifier(bytes, &position)))
        }
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "."):
                position += 1
                components.append(.key(try identifier(bytes, &position)))
            case UInt8(ascii: "["):
                components.append(try bracket(bytes, &position))
            default:
                return (FieldPath(components: components), position)
            }
        }
        return (FieldPath(components: components), position)
    }

    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "@"), 0x80...0xFF:
            true
        default: false
        }
    }

    static func isIdentifierContinuation(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
    }

    /// Whether `key` can be written bare (`a.key`) rather than quoted (`a["key"]`).
    static func isPlainIdentifier(_ key: String) -> Bool {
        var bytes = key.utf8.makeIterator()
        guard let first = bytes.next(), isIdentifierStart(first) else { return false }
        while let byte = bytes.next() {
            if !isIdentifierContinuation(byte) { return false }
        }
        return true
    }

    private static func identifier(_ bytes: [UInt8], _ position: inout Int) throws(FieldPathSyntaxError) -> String {
        let start = position
        guard position < bytes.count, isIdentifierStart(bytes[position]) else {
            throw FieldPathSyntaxError(offset: position, message: position < bytes.count
                ? "expected a field name, found '\(character(in: bytes, at: position))'" : "expected a field name")
        }
        position += 1
        while position < bytes.count, isIdentifierContinuation(bytes[position]) { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// `[0]`, `[-1]`, `["key"]` or `['key']`, with `position` on the `[`.
    private static func bracket(_ bytes: [UInt8], _ position: inout Int) throws(FieldPathSyntaxError) -> FieldPath.Component {
        let open = position
        position += 1
        guard position < bytes.count else { throw FieldPathSyntaxError(offset: position, message: "unclosed '['") }
        let component: FieldPath.Component
        switch bytes[position] {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            component = .key(try quotedString(bytes, &position))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = position
            position += 1
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            guard let index = Int(String(decoding: bytes[start..<position], as: UTF8.self)) else {
                throw FieldPathSyntaxError(offset: start, message: "invalid array index")
            }
            component = .index(index)
        default:
            throw FieldPathSyntaxError(offset: position, message: "expected an index or a quoted key after '['")
        }
        guard position < bytes.count, bytes[position] == UInt8(ascii: "]") else {
            throw FieldPathSyntaxError(offset: position < bytes.count ? position : open, message: "expected ']'")
        }
        position += 1
        return component
    }

    /// A string in double or single quotes with `\"`, `\'`, `\\`, `\/`, `\n`, `\r`, `\t`,
    /// `\b`, `\f` and `\uXXXX` escapes, `position` on the opening quote. Also the filter's
    /// string literal, so both languages quote the same way.
    static func quotedString(_ bytes: [UInt8], _ position: inout Int) throws(FieldPathSyntaxError) -> String {
        let open = position
        let quote = bytes[position]
        position += 1
        var text: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            if byte == quote {
                position += 1
                return String(decoding: text, as: UTF8.self)
            }
            guard byte == UInt8(ascii: "\\") else {
                text.append(byte)
                position += 1
                continue
            }
            guard position + 1 < bytes.count else { break }
            let escaped = bytes[position + 1]
            position += 2
            switch escaped {
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
            case UInt8(ascii: "u"):
                let scalar = try unicodeEscape(bytes, &position)
                text.append(contentsOf: String(Character(scalar)).utf8)
            default:
                throw FieldPathSyntaxError(offset: position - 2, message: "unknown escape '\\\(character(in: bytes, at: position - 1))'")
            }
        }
        throw FieldPathSyntaxError(offset: open, message: "unterminated string")
    }

    /// The four hex digits after `\u` (and a low surrogate after a high one).
    private static func unicodeEscape(_ bytes: [UInt8], _ position: inout Int) throws(FieldPathSyntaxError) -> Unicode.Scalar {
        let start = position - 2
        func hex4() throws(FieldPathSyntaxError) -> UInt32 {
            guard position + 4 <= bytes.count,
                let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
            else { throw FieldPathSyntaxError(offset: start, message: "invalid \\u escape") }
            position += 4
            return value
        }
        let high = try hex4()
        if (0xD800...0xDBFF).contains(high) {
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                throw FieldPathSyntaxError(offset: start, message: "unpaired surrogate in \\u escape")
            }
            position += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low),
                let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            else { throw FieldPathSyntaxError(offset: start, message: "invalid surrogate pair in \\u escape") }
            return scalar
        }
        guard let scalar = Unicode.Scalar(high) else {
            throw FieldPathSyntaxError(offset: start, message: "unpaired surrogate in \\u escape")
        }
        return scalar
    }

    /// The character starting at a UTF-8 offset, for messages.
    static func character(in bytes: [UInt8], at offset: Int) -> String {
        guard offset < bytes.count else { return "" }
        var end = offset + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return String(decoding: bytes[offset..<end], as: UTF8.self)
    }

    /// The 1-based column (in characters) of a UTF-8 offset.
    static func column(of offset: Int, in bytes: [UInt8]) -> Int {
        String(decoding: bytes[0..<min(offset, bytes.count)], as: UTF8.self).count + 1
    }
}

