import Testing

@testable import ScreensBus

@Suite("JSON element texts")
struct JSONElementTextsTests {
    private func parse(_ text: String) throws -> (elements: [JSONValue], texts: JSONElementTexts)? {
        try JSONValue.parseArrayKeepingTexts(Array(text.utf8))
    }

    @Test("each element keeps its bytes as they were, whitespace around it left out")
    func keepsElementBytes() throws {
        let parsed = try #require(try parse(#" [ {"a": 1}, 18446744073709551617 ,"\u00e9",[] ] "#))
        #expect(parsed.elements == [["a": 1], .number("18446744073709551617"), "é", []])
        let texts = (0..<parsed.texts.count).map { parsed.texts[$0].map { String(decoding: $0, as: UTF8.self) } }
        #expect(texts == [#"{"a": 1}"#, "18446744073709551617", #""\u00e9""#, "[]"])
    }

    @Test("an element with a line break inside has no text: a JSON line cannot carry it")
    func lineBreaksHaveNoText() throws {
        let parsed = try #require(try parse("[{\"a\":\n1},{\"b\":\r2},{\"c\":\"\\n\"}]"))
        #expect(parsed.texts[0] == nil && parsed.texts[1] == nil)
        #expect(parsed.texts[2].map(Array.init) == Array(#"{"c":"\n"}"#.utf8))
    }

    @Test("an empty array, a document that is not an array, and bad input")
    func otherDocuments() throws {
        #expect(try parse("[]")?.texts.count == 0)
        #expect(try parse(#"{"items":[1]}"#) == nil)
        #expect(throws: JSONParseError.self) { try parse("[1,2] x") }
        #expect(throws: JSONParseError.self) { try parse("[1,") }
        #expect(throws: JSONParseError.self) { try parse("") }
        #expect(throws: JSONParseError.self) { try parse(#"{"a":}"#) }
        #expect(throws: JSONParseError.self) { try JSONValue.parseArrayKeepingTexts([0x5B, 0x22, 0xFF, 0x22, 0x5D]) }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParseError.self) { try parse(deep) }
    }
}
