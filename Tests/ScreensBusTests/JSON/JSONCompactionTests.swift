import TestSupport
import Testing

@testable import ScreensBus
@testable import ScreensJSON

/// Pages formatted for people (pretty-printed, spaced, whitespace anywhere between tokens)
/// read exactly as their compact form: the same values, the same row texts byte for byte, the
/// same member positions, and the same errors at the same offsets of the body as sent.
@Suite("Whitespace between tokens")
struct JSONCompactionTests {
    static let rows = [
        #"{"entryId":9007199254740993,"name":"a  b\t\"c\" \\","url":"https://example.com/1","tags":[1,{"id":2},[]],"ok":true,"none":null,"n":-1.50e+3}"#,
        #"{"entryId":9007199254740994,"name":"x, y: {z}","url":"https://example.com/2","tags":[],"ok":false,"none":null,"n":0}"#,
        #"{"entryId":9007199254740995,"name":"\u00e9\/ é","url":"https://example.com/3","tags":[{}],"ok":true,"none":null,"n":12}"#,
    ]
    static let page = #"{"actions":{},"items":["# + (rows + rows + rows).joined(separator: ",") + #"],"lastPage":1,"page":1,"totalCount":9}"#
    static let selection = JSONMemberSelection(slots: [Array("entryId".utf8): 0, Array("url".utf8): 1, Array("none".utf8): 2])

    @Test("pretty-printed, spaced and compact pages give the same value, the same row texts and the same member positions")
    func formatsReadAlike() throws {
        let compact = Array(Self.page.utf8)
        let reference = try read(compact)
        for (name, formatted) in [
            ("pretty", JSONLayouts.reformatted(compact) { JSONLayouts.pretty($0) }),
            ("spaced", JSONLayouts.reformatted(compact) { JSONLayouts.spaced($0) }),
            ("tabs and CR", JSONLayouts.reformatted(compact) { _ in Array("\r\n\t \t".utf8) }),
        ] {
            #expect(formatted != compact)
            let read = try read(formatted)
            #expect(read.value == reference.value, "\(name)")
            #expect(read.texts == reference.texts, "\(name)")
            #expect(read.tape == reference.tape, "\(name)")
            #expect(read.arrayText == reference.arrayText, "\(name)")
        }
    }

    @Test("whitespace of every kind at every token boundary, at random, reads as the compact page")
    func randomWhitespaceAtEveryBoundary() throws {
        let compact = Array(Self.page.utf8)
        let reference = try read(compact)
        var random = SplitMix64(seed: 0x0039_0001)
        let kinds: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]
        for _ in 0..<200 {
            let formatted = JSONLayouts.reformatted(compact) { _ in
                (0..<Int.random(in: 0...9, using: &random)).map { _ in kinds.randomElement(using: &random)! }
            }
            let read = try read(formatted)
            #expect(read.value == reference.value)
            #expect(read.texts == reference.texts)
            #expect(read.tape == reference.tape)
        }
    }

    @Test("the copy leaves strings untouched and whitespace beside a token that delimits itself out")
    func compactedBytes() throws {
        let cases: [(String, String?)] = [
            ("{ \"a b\" :\t[ 1 ,\r\n2 ] }", #"{"a b":[1,2]}"#),
            (#"[ "x \" y" , "\\" , "\\\" " ]"#, #"["x \" y","\\","\\\" "]"#),
            ("  true  ", "true"),
            ("[1 2]", nil),
            ("[- 1]", nil),
            ("[tr ue]", nil),
            ("[1 .5]", nil),
            (#"["a" "b"]"#, #"["a""b"]"#),
            ("[\"unterminated  ]", "[\"unterminated  ]"),
            ("[ \"ends in a backslash \\", "[\"ends in a backslash \\"),
            ("[ 1 ,\u{01}, 2 ]", "[1,\u{01},2]"),
            ("[ 1,\u{01} 2 ]", nil),
        ]
        for (input, expected) in cases {
            let copy = Array(input.utf8).withUnsafeBufferPointer { JSONCompaction.compacted($0) }
            #expect(copy.map { String(decoding: $0, as: UTF8.self) } == expected, "\(input)")
        }
    }

    @Test("bad pages formatted for people are refused with the error and offset of the body as sent", arguments: [
        "{\n  \"items\": [\n    {\"a\": 1 2}\n  ]\n}",
        "{\n  \"items\": [\n    {\"a\": - 1}\n  ]\n}",
        "{\n  \"items\": [\n    {\"a\": tru e}\n  ]\n}",
        "{\n  \"items\": [\n    {\"a\": 1},\n  ]\n}",
        "{\n  \"items\": [\n    {\"a\": \"x\u{01}\"}\n  ]\n}",
        "{\n  \"items\": [\n    {\"a\": 1}\n  ]\n} x",
        "{\n  \"items\": [\n    {\"a\": 01}\n  ]\n}",
        "{\n  \"items\": [\n    {\"a\": \"open\n  ]\n}",
        "{\n  \"items\": [\n    {\"a\" \"b\": 1}\n  ]\n}",
        "{\n  \"items\": [\n \u{0B}   {\"a\": 1}\n  ]\n}",
    ])
    func refusedAsSent(_ text: String) throws {
        let bytes = Array(text.utf8)
        let expected = parserError(bytes)
        #expect(expected != nil)
        for members in [nil, Self.selection] {
            let error = Result { () throws(JSONParseError) in
                try JSONValue.parse(bytes, keepingElementTextsAt: [.key("items")], skippingElements: true, findingMembers: members)
            }
            guard case .failure(let error) = error else {
                Issue.record("accepted: \(text)")
                continue
            }
            #expect(error == expected, "\(text)")
        }
    }

    @Test("nesting too deep is refused at the same depth and offset, pretty-printed or not")
    func deepNestingStaysBounded() throws {
        for depth in [JSONParser.maxDepth, JSONParser.maxDepth + 1, 100_000] {
            let compact = Array(("{\"items\":[" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "]}").utf8)
            // One indentation a line, not one a level: 100,000 levels of it would be 10 GB.
            let pretty = JSONLayouts.reformatted(compact) { $0 < 0 ? [0x20] : [0x0A, 0x20, 0x20] }
            for bytes in [compact, pretty] {
                let plain = parserError(bytes)
                let kept = Result { () throws(JSONParseError) in
                    try JSONValue.parse(bytes, keepingElementTextsAt: [.key("items")], skippingElements: true, findingMembers: Self.selection)
                }
                switch kept {
                case .failure(let error): #expect(error == plain)
                case .success: #expect(plain == nil && depth < JSONParser.maxDepth)
                }
            }
        }
    }

    @Test("an element with whitespace appended to kept texts is compacted, strings untouched")
    func appendCompacts() throws {
        var texts = JSONElementTexts()
        for text in ["{ \"a\" : \"x  y\" ,\n \"b\" :\t[ 1 ] }", "  7 ", "\"\\\" \""] {
            Array(text.utf8).withUnsafeBytes { texts.append(textOfParsedValue: $0) }
        }
        #expect((0..<texts.count).map { String(decoding: texts[$0]!, as: UTF8.self) } == [#"{"a":"x  y","b":[1]}"#, "7", #""\" ""#])
    }

    // MARK: Helpers

    private struct Read: Equatable {
        var value: JSONValue
        var texts: [[UInt8]]
        var tape: [Int]?
        var arrayText: [UInt8]
    }

    /// The page read as an HTTP source reads it: rows at `items` only checked, members found.
    private func read(_ bytes: [UInt8]) throws -> Read {
        let (value, texts) = try JSONValue.parse(bytes, keepingElementTextsAt: [.key("items")], skippingElements: true, findingMembers: Self.selection)
        let kept = try #require(texts)
        let full = try JSONValue.parse(bytes, keepingElementTextsAt: [.key("items")])
        #expect(full.value == (try JSONValue(parsing: bytes)))
        #expect(full.texts == kept)
        return Read(
            value: full.value, texts: (0..<kept.count).map { Array(kept[$0]!) }, tape: kept.memberTape?.entries, arrayText: kept.arrayText)
    }

    private func parserError(_ bytes: [UInt8]) -> JSONParseError? {
        do throws(JSONParseError) {
            _ = try JSONValue(parsing: bytes)
            return nil
        } catch { return error }
    }
}
