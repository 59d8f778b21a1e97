/// The elements of one JSON array as the bytes they were read from: one range per element
/// into a shared copy of the array's text.
///
/// A stage that leaves a row unchanged can write these bytes instead of encoding the row
/// again. That is only right where the text is exactly what ``JSONWriter`` writes for the
/// parsed value, as for text that ``JSONWriter`` produced itself (the cache stores pages
/// that way); ``JSONValue/parseArrayKeepingTexts(_:)`` keeps the bytes and says nothing
/// about their form.
public struct JSONElementTexts: Sendable, Hashable {
    private let text: [UInt8]
    /// Each element's bytes; empty for one with a line break inside (the parser marks it).
    private let ranges: [Range<Int>]

    /// How many elements the array had.
    public var count: Int { ranges.count }

    /// The bytes of element `index`, or nil when they hold a line break (whitespace between
    /// tokens, which JSON lines cannot carry inside a line: such an element is written anew).
    public subscript(index: Int) -> ArraySlice<UInt8>? {
        let range = ranges[index]
        return range.isEmpty ? nil : text[range]
    }

    init(text: [UInt8], ranges: [Range<Int>]) {
        self.text = text
        self.ranges = ranges
    }
}

extension JSONValue {
    /// Parses one document (as ``init(parsing:)-([UInt8])`` does) that must be an array, and
    /// keeps the bytes of each of its elements; nil when the document is valid JSON but not
    /// an array.
    public static func parseArrayKeepingTexts(_ bytes: [UInt8]) throws(JSONParseError) -> (elements: [JSONValue], texts: JSONElementTexts)? {
        guard !bytes.isEmpty else { throw JSONParseError(offset: 0, message: "unexpected end of input") }
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) -> ([JSONValue], [Range<Int>])? in
                var parser = JSONParser(bytes: buffer.baseAddress!, start: 0, end: buffer.count)
                var ranges: [Range<Int>] = []
                guard let elements = try parser.parseArrayDocument(ranges: &ranges) else {
                    _ = try parser.parseDocument()
                    return nil
                }
                return (elements, ranges)
            }
        }
        guard let (elements, ranges) = try result.get() else { return nil }
        return (elements, JSONElementTexts(text: bytes, ranges: ranges))
    }
}
