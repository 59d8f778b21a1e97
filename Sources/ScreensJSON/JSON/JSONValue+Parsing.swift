extension JSONValue {
    /// Parses one JSON document (RFC 8259, strict) from UTF-8 bytes.
    ///
    /// Whitespace around the value is allowed; anything else after it is an error.
    public init(parsing buffer: UnsafeRawBufferPointer) throws(JSONParseError) {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            throw JSONParseError(offset: 0, message: "unexpected end of input")
        }
        var parser = JSONParser(bytes: base.assumingMemoryBound(to: UInt8.self), start: 0, end: buffer.count)
        self = try parser.parseDocument()
    }

    /// Checks one JSON document exactly as ``init(parsing:)-(UnsafeRawBufferPointer)`` would
    /// (the same input refused with the same error) without building its value.
    public static func validate(_ buffer: UnsafeRawBufferPointer) throws(JSONParseError) {
        _ = try validateFindingWhitespace(buffer)
    }

    /// Checks one JSON document as ``validate(_:)`` does, and tells whether it has whitespace
    /// between or around its tokens: one without is its own compact text.
    package static func validateFindingWhitespace(_ buffer: UnsafeRawBufferPointer) throws(JSONParseError) -> Bool {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            throw JSONParseError(offset: 0, message: "unexpected end of input")
        }
        var parser = JSONParser(bytes: base.assumingMemoryBound(to: UInt8.self), start: 0, end: buffer.count)
        // One document, usually one row: no key repeats at its place, so caching keys would
        // only cost an allocation per document.
        parser.cachesKeys = false
        try parser.skipValue()
        parser.skipWhitespace()
        if parser.index != buffer.count { throw JSONParseError(offset: parser.index, message: "unexpected characters after the value") }
        return parser.skippedWhitespace > 0
    }

    /// Parses one JSON document (RFC 8259, strict) from UTF-8 bytes.
    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in try JSONValue(parsing: buffer) }
        }
        self = try result.get()
    }

    /// Parses one JSON document (RFC 8259, strict) from a string's UTF-8.
    public init(parsing string: String) throws(JSONParseError) {
        var string = string
        let result = string.withUTF8 { utf8 in
            Result { () throws(JSONParseError) in try JSONValue(parsing: UnsafeRawBufferPointer(utf8)) }
        }
        self = try result.get()
    }

    /// Parses JSON lines: one document per `\n`-terminated line, blank lines skipped.
    ///
    /// A value may not span lines. Error offsets count from the start of `bytes`, not the line.
    public static func parseLines(_ bytes: [UInt8]) throws(JSONParseError) -> [JSONValue] {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in try parseLines(buffer) }
        }
        return try result.get()
    }

    /// Parses JSON lines from a buffer: one document per `\n`-terminated line, blank lines
    /// skipped; error offsets count from the start of `buffer`.
    public static func parseLines(_ buffer: UnsafeRawBufferPointer) throws(JSONParseError) -> [JSONValue] {
        guard let base = buffer.baseAddress else { return [] }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var values: [JSONValue] = []
        // One parser for all lines, so rows of one shape share its key cache and capacity hints.
        var parser = JSONParser(bytes: bytes, start: 0, end: 0)
        var lineStart = 0
        while lineStart < buffer.count {
            var lineEnd = lineStart
            var blank = true
            while lineEnd < buffer.count, bytes[lineEnd] != JSONByte.newline {
                switch bytes[lineEnd] {
                case JSONByte.space, JSONByte.tab, JSONByte.carriageReturn: break
                default: blank = false
                }
                lineEnd += 1
            }
            if !blank {
                parser.restart(start: lineStart, end: lineEnd)
                values.append(try parser.parseDocument())
            }
            lineStart = lineEnd + 1
        }
        return values
    }
}
