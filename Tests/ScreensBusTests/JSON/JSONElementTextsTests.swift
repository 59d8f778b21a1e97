import Testing

@testable import ScreensBus
@testable import ScreensJSON

@Suite("JSON element texts")
struct JSONElementTextsTests {
    private func parse(_ text: String) throws -> (elements: [JSONValue], texts: JSONElementTexts)? {
        try JSONValue.parseArrayKeepingTexts(Array(text.utf8))
    }

    private func strings(_ texts: JSONElementTexts?) -> [String]? {
        texts.map { texts in (0..<texts.count).map { String(decoding: texts[$0] ?? [], as: UTF8.self) } }
    }

    @Test("each element keeps its bytes as received: escapes, number texts and member order")
    func keepsElementBytes() throws {
        let parsed = try #require(try parse(#"[{"b":1,"a":1.50},18446744073709551617,"\u00e9\/",[],1E+2,-0.0]"#))
        #expect(parsed.elements.count == 6 && parsed.elements[2] == "é/" && parsed.elements[0]["a"]?.doubleValue == 1.5)
        for position in 0..<parsed.texts.count {
            #expect(try JSONValue(parsing: Array(parsed.texts[position]!)) == parsed.elements[position])
        }
        #expect(
            strings(parsed.texts) == [#"{"b":1,"a":1.50}"#, "18446744073709551617", #""\u00e9\/""#, "[]", "1E+2", "-0.0"])
        #expect(String(decoding: parsed.texts.arrayText, as: UTF8.self) == #"[{"b":1,"a":1.50},18446744073709551617,"\u00e9\/",[],1E+2,-0.0]"#)
    }

    @Test("whitespace between tokens is left out (a pretty-printed body), whitespace inside strings is kept")
    func compactsWhitespace() throws {
        let body = "[\n  {\n    \"a\" : \"x y\\\" }\\n\",\r\n\t\"b\" : [ 1 , 2 ]\n  },\n  3\n]\n"
        let parsed = try #require(try parse(body))
        #expect(strings(parsed.texts) == [#"{"a":"x y\" }\n","b":[1,2]}"#, "3"])
        // Every text reads back as its element.
        for position in 0..<parsed.texts.count {
            #expect(try JSONValue(parsing: Array(parsed.texts[position]!)) == parsed.elements[position])
        }
    }

    @Test("the rows at a path: a JSON-WS batch, a headless page, a nested REST path")
    func rowsAtAPath() throws {
        let batch = try JSONValue.parse(Array(#"[[{"id":1},{"id":2.0}],2]"#.utf8), keepingElementTextsAt: [.index(0)])
        #expect(strings(batch.texts) == [#"{"id":1}"#, #"{"id":2.0}"#])
        #expect(batch.value == [[["id": 1], ["id": 2.0]], 2])

        let headless = try JSONValue.parse(
            Array(#"{"actions":{"items":[9]},"items":[ {"k": [1]} , {"k":[]} ],"lastPage":1}"#.utf8), keepingElementTextsAt: [.key("items")])
        #expect(strings(headless.texts) == [#"{"k":[1]}"#, #"{"k":[]}"#])

        let nested = try JSONValue.parse(
            Array(#"{"data":{"meta":[[0]],"results":[[1,2],{"a":{"results":[7]}}]}}"#.utf8),
            keepingElementTextsAt: [.key("data"), .key("results")])
        #expect(strings(nested.texts) == ["[1,2]", #"{"a":{"results":[7]}}"#])

        let second = try JSONValue.parse(Array("[[1],[2,3],[4]]".utf8), keepingElementTextsAt: [.index(1)])
        #expect(strings(second.texts) == ["2", "3"])
    }

    @Test("a key repeated on the path: the last one's array, as the tree reads it")
    func repeatedKeyTakesTheLast() throws {
        let parsed = try JSONValue.parse(Array(#"{"items":[1,2,3],"items":[4]}"#.utf8), keepingElementTextsAt: [.key("items")])
        #expect(parsed.value["items"] == [4])
        #expect(strings(parsed.texts) == ["4"])
    }

    @Test("a repeated key whose last value is not an array, or lacks the rest of the path: no texts")
    func repeatedKeyReplacesTheArray() throws {
        #expect(try JSONValue.parse(Array(#"{"items":[1],"items":{}}"#.utf8), keepingElementTextsAt: [.key("items")]).texts == nil)
        #expect(try JSONValue.parse(Array(#"{"items":[1],"items":null}"#.utf8), keepingElementTextsAt: [.key("items")]).texts == nil)
        #expect(
            try JSONValue.parse(Array(#"{"a":{"b":[1]},"a":{"c":[2]}}"#.utf8), keepingElementTextsAt: [.key("a"), .key("b")]).texts == nil)
        #expect(try JSONValue.parse(Array(#"{"a":{"b":[1]},"a":5}"#.utf8), keepingElementTextsAt: [.key("a"), .key("b")]).texts == nil)
        let kept = try JSONValue.parse(Array(#"{"a":{"b":[1]},"a":{"b":[2,3]}}"#.utf8), keepingElementTextsAt: [.key("a"), .key("b")])
        #expect(strings(kept.texts) == ["2", "3"])
    }

    @Test("no array at the path: no texts")
    func noArrayAtThePath() throws {
        #expect(try JSONValue.parse(Array(#"{"items":{"a":[1]}}"#.utf8), keepingElementTextsAt: [.key("items")]).texts == nil)
        #expect(try JSONValue.parse(Array(#"{"other":[1]}"#.utf8), keepingElementTextsAt: [.key("items")]).texts == nil)
        #expect(try JSONValue.parse(Array("[[1]]".utf8), keepingElementTextsAt: [.index(3)]).texts == nil)
        #expect(try JSONValue.parse(Array(#"{"items":[]}"#.utf8), keepingElementTextsAt: [.key("items")]).texts?.count == 0)
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
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array(#"{"items":[1,}"#.utf8), keepingElementTextsAt: [.key("items")]) }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParseError.self) { try parse(deep) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array(deep.utf8), keepingElementTextsAt: [.index(0), .index(0)]) }
    }

    @Test("the content digest: equal texts agree; any changed byte, and any moved boundary, differ")
    func contentDigestSeesEveryByte() throws {
        // A long row (four-lane blocks, then words, then a tail) and a short one.
        let long = #"{"uuid":"00000000-0000-4000-8000-000000001389","name":"Generated bookmark 5001","n":12345}"#
        let text = "[\(long),\"ab\"]"
        let base = try #require(try parse(text)).texts
        #expect(try #require(try parse(text)).texts.contentDigest == base.contentDigest)
        var bytes = Array(text.utf8)
        var digests: Set<UInt64> = [base.contentDigest]
        // Each letter or digit in turn changed for another: every position is read.
        for position in bytes.indices where bytes[position] >= UInt8(ascii: "0") && bytes[position] <= UInt8(ascii: "9") || bytes[position] >= UInt8(ascii: "a") && bytes[position] <= UInt8(ascii: "z") {
            let original = bytes[position]
            bytes[position] = original == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1")
            let changed = try #require(try JSONValue.parseArrayKeepingTexts(bytes)).texts
            #expect(digests.insert(changed.contentDigest).inserted, "position \(position)")
            bytes[position] = original
        }
        // The same bytes split into rows differently.
        let split = try #require(try parse(#"["a","bc"]"#)).texts.contentDigest
        #expect(split != (try #require(try parse(#"["ab","c"]"#)).texts.contentDigest))
    }
}

