import TestSupport
import Testing

@testable import ScreensBus
@testable import ScreensJSON

/// A page's rows checked against the shape of the row before: the same rows accepted and
/// refused with the same errors, and the same member positions, as when each row is read
/// member by member; and the shape is used where rows share it.
@Suite("Rows checked against the row before's shape")
struct RowShapeTests {
    static let base = #"{"id":1,"name":"a b","url":"https://example.com/1","tags":[1,{"id":2}],"ok":true,"none":null}"#
    static let selection = JSONMemberSelection(slots: [Array("id".utf8): 0, Array("url".utf8): 1, Array("none".utf8): 2])

    /// Rows that differ from `base` in one place each: another key, a key of the same length,
    /// a member more or less, whitespace between tokens, an escaped key, a repeated key.
    static let variants = [
        base,
        #"{"id":1,"name":"a b","url":"https://example.com/1","tags":[1,{"id":2}],"ok":true,"none":null,"more":5}"#,
        #"{"id":1,"name":"a b","url":"https://example.com/1","tags":[1,{"id":2}],"ok":true}"#,
        #"{"id":1,"nama":"a b","url":"x","tags":[],"ok":false,"none":null}"#,
        #"{"id":1,"name":"a b","url" :"x","tags":[],"ok":false,"none":null}"#,
        #"{"id":1,"name":"a b","url": "x","tags":[],"ok":false,"none":null}"#,
        #"{"id":1,"name":"a b","url":"x" ,"tags":[],"ok":false,"none":null}"#,
        #"{"id":1,"name":"a b","url":"x","tags":[],"ok":false,"none":null }"#,
        #"{ "id":1,"name":"a b","url":"x","tags":[],"ok":false,"none":null}"#,
        #"{"id":1,"name":"a b","u\u0072l":"x","tags":[],"ok":false,"none":null}"#,
        #"{"id":1,"name":"a b","url":"x","url":"y","ok":false,"none":null}"#,
        #"{"id":{"id":3},"name":"a b","url":["x"],"tags":"t","ok":1.5e3,"none":"n"}"#,
        #"{"url":"first","id":1,"name":"a b","tags":[],"ok":false,"none":null}"#,
        #"{}"#,
        #"{"id":1}"#,
        #"{"id":1,"name":"a b","url":"x","tags":[],"ok":false,"none":null,"id":2}"#,
        #"{"id":1,"name":"a b","url":"x","tags":[],"ok":false,"nonf":null}"#,
        #"{"id":10.5e-3,"name":"é \u00e9","url":"x","tags":[],"ok":false,"none":-7}"#,
        #"{"id":0,"name":"","url":"\"","tags":[],"ok":false,"none":12E+2}"#,
    ]

    @Test("pages whose rows change shape anywhere read as when every row is read member by member")
    func changingShapes() throws {
        var random = SplitMix64(seed: 0x5A4E_0001)
        for _ in 0..<300 {
            let rows = (0..<Int.random(in: 1...12, using: &random)).map { _ in
                Int.random(in: 0..<3, using: &random) == 0 ? Self.variants.randomElement(using: &random)! : Self.base
            }
            try expectSameReading(Array(("[" + rows.joined(separator: ",") + "]").utf8))
        }
    }

    @Test("a row that has the shape up to a bad value is refused with the parse's error", arguments: [
        #"{"id":01,"name":"a b","url":"x","tags":[],"ok":true,"none":null}"#,
        #"{"id":1,"name":"a\qb","url":"x","tags":[],"ok":true,"none":null}"#,
        #"{"id":1,"name":"a b","url":"x","tags":[1,],"ok":true,"none":null}"#,
        #"{"id":1,"name":"a b","url":"x","tags":[],"ok":tru,"none":null}"#,
        #"{"id":1,"name":"a b","url":"x","tags":[],"ok":true,"none":nul}"#,
        #"{"id":1,"name":"a b","url":"x","tags":[],"ok":true,"none":null,}"#,
        #"{"id":1,"name":"a b","url":"x","tags":[],"ok":true,"none":null"#,
        #"{"id":1,"name":"a b","url":"x","tags":[],"ok":true,"none""#,
        #"{"id":1,"name":"a b","url":"x","tags":[],"ok":true,"#,
        #"{"id":1,"name":"a b","url":"x","tags":[],"ok":true "none":null}"#,
        #"{"id":1,"name":"a b","url":"x","tags":[],"ok":true,"none":null]"#,
        #"{"id":1,"name":"a b","url":"x","tags":{"a":1,},"ok":true,"none":null}"#,
        #"{"id":-,"name":"a b","url":"x","tags":[],"ok":true,"none":null}"#,
        "{\"id\":1,\"name\":\"a\u{01}b\",\"url\":\"x\",\"tags\":[],\"ok\":true,\"none\":null}",
        #"{"id":1,"name":"a b","url":"x","tags":[],"ok":true,"none":null} x"#,
        #"{"id":1.,"name":"a b","url":"x","tags":[],"ok":true,"none":null}"#,
        #"{"id":12E,"name":"a b","url":"x","tags":[],"ok":true,"none":null}"#,
        #"{"id":12x,"name":"a b","url":"x","tags":[],"ok":true,"none":null}"#,
        #"{"id":123"#,
        #"{"id":1,"name":"a b"#,
        "{\"id\":1,\"name\":\"a\u{7F}\u{80}b\",\"url\":\"x\",\"tags\":[],\"ok\":true,\"none\":null}",
    ])
    func badValueAfterTheShape(_ bad: String) throws {
        let good = #"{"id":7,"name":"c d","url":"y","tags":[2],"ok":false,"none":null}"#
        for prefix in [[good, good], [good, good, good, good]] {
            try expectSameReading(Array(("[" + (prefix + [bad]).joined(separator: ",") + "]").utf8))
            try expectSameReading(Array(("[" + (prefix + [bad, good]).joined(separator: ",") + "]").utf8))
        }
        // A row nested too deep for the parser, after rows of the shape.
        let deep = String(repeating: "[", count: JSONParser.maxDepth) + String(repeating: "]", count: JSONParser.maxDepth)
        try expectSameReading(Array(("[" + good + "," + good + "," + good.replacingOccurrences(of: "[2]", with: deep) + "]").utf8))
    }

    @Test("integers of every length to 40 digits, ended by any byte, at every alignment, read alike")
    func integersOfEveryLength() throws {
        let good = #"{"id":7,"name":"c d","url":"y","tags":[2],"ok":false,"none":null}"#
        let enders = [",", ".5", "e3", "E+1", "x", "}", " ", "\u{7F}", "\u{80}", "/", ":", "0", ""]
        for length in 1...40 {
            let digits = String((0..<length).map { Character(String(($0 * 7 + 3) % 10)) })
            for ender in enders {
                for pad in ["", "a", "ab", "abcdefg"] {
                    let row = #"{"id":"# + digits + ender + #","name":"\#(pad)","url":"y","tags":[2],"ok":false,"none":null}"#
                    try expectSameReading(Array(("[" + good + "," + good + "," + row + "]").utf8))
                    // As the last bytes of the input too, where no word can be read past them.
                    try expectSameReading(Array(("[" + good + "," + #"{"id":"# + digits + ender).utf8))
                }
            }
        }
    }

    @Test("zeros, nulls and the other literals, ended by any byte, read alike")
    func zerosAndLiterals() throws {
        let good = #"{"id":7,"name":"c d","url":"y","tags":[2],"ok":false,"none":null}"#
        let values = ["0", "00", "01", "0.5", "0e1", "0E", "-0", "0-", "null", "nul", "nulll", "nullx", "nuLL", "true", "tru", "truex", "false", "fals"]
        let enders = [",", "}", " ", "0", "9", ".", "e", "x", ""]
        for value in values {
            for ender in enders {
                for member in ["id", "none"] {
                    let row = good.replacingOccurrences(of: member == "id" ? #""id":7"# : #""none":null"#, with: "\"\(member)\":" + value + ender)
                    try expectSameReading(Array(("[" + good + "," + good + "," + row + "]").utf8))
                    try expectSameReading(Array(("[" + good + "," + #"{"id":"# + value + ender).utf8))
                }
            }
        }
    }

    @Test("a page that gives its member positions up part way reads its later rows, of another shape too, without them")
    func positionsGivenUpPartWay() throws {
        // Rows this small give the positions up after a few dozen rows (see
        // LazyRowValuesTests.tinyRowsGiveUpTheirPositions); the keys read before stay cached.
        let rows = Array(repeating: #"{"id":1}"#, count: 2_000) + [#"{"id":2,"url":"x"}"#, #"{"url":"y","id":3}"#, #"{"id":4}"#]
        let bytes = Array(("[" + rows.joined(separator: ",") + "]").utf8)
        let found = try JSONValue.parse(bytes, keepingElementTextsAt: [], skippingElements: true, findingMembers: Self.selection)
        let texts = try #require(found.texts)
        #expect(texts.memberTape == nil)
        #expect(LazyRowValues(texts: texts).rows == (try JSONValue(parsing: bytes)).arrayValue)
    }

    @Test("rows of one shape are checked against it, pretty-printed and spaced ones too; rows that keep changing shape are not")
    func theShapeIsUsed() throws {
        let uniform = "[" + Array(repeating: Self.base, count: 100).joined(separator: ",") + "]"
        #expect(try shapeCounts(uniform) == (matched: 99, missed: 0))
        let spaced = "[" + Array(repeating: #"{ "id": 1, "name": "x" }"#, count: 100).joined(separator: ",\n") + "]"
        #expect(try shapeCounts(spaced) == (matched: 99, missed: 0))
        let pretty = JSONLayouts.pretty("[" + Array(repeating: Self.base, count: 100).joined(separator: ",") + "]")
        #expect(try shapeCounts(pretty) == (matched: 99, missed: 0))
        // Two shapes in turn: each row misses the other's shape, until it is given up.
        let alternating = "[" + (0..<100).map { $0 % 2 == 0 ? #"{"a":1}"# : #"{"b":1}"# }.joined(separator: ",") + "]"
        #expect(try shapeCounts(alternating) == (matched: 0, missed: 16))
        // Rows wider than RowShape.maximumMembers are read member by member, never learnt.
        let wide = "{" + (0...RowShape.maximumMembers).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        #expect(try shapeCounts("[" + Array(repeating: wide, count: 3).joined(separator: ",") + "]") == (matched: 0, missed: 0))
        let widest = "{" + (0..<RowShape.maximumMembers).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        #expect(try shapeCounts("[" + Array(repeating: widest, count: 3).joined(separator: ",") + "]") == (matched: 2, missed: 0))
    }

    /// How many rows of `text` (an array of rows) matched the shape of a row before, and how
    /// many did not.
    private func shapeCounts(_ text: String) throws -> (matched: Int, missed: Int) {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer.baseAddress!, start: 0, end: buffer.count)
            parser.skipsRecordedElements = true
            _ = try parser.parseDocument(keepingElementTextsAt: [])
            return (parser.rowShape.matched, parser.rowShape.missed)
        }
    }

    /// Checks that `bytes` (an array of rows) is accepted or refused alike, with the same
    /// error, by a parse, a check and a check finding members, and that the members found are
    /// where each row has them.
    private func expectSameReading(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let parsed = Result { () throws(JSONParseError) in try JSONValue(parsing: bytes) }
        let skipped = Result { () throws(JSONParseError) in try JSONValue.parse(bytes, keepingElementTextsAt: [], skippingElements: true) }
        let found = Result { () throws(JSONParseError) in
            try JSONValue.parse(bytes, keepingElementTextsAt: [], skippingElements: true, findingMembers: Self.selection)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        switch (parsed, skipped, found) {
        case (.failure(let error), .failure(let skipError), .failure(let findError)):
            #expect(skipError == error, "\(text)", sourceLocation: sourceLocation)
            #expect(findError == error, "\(text)", sourceLocation: sourceLocation)
        case (.success(let value), .success(let kept), .success(let withMembers)):
            let rows = try #require(value.arrayValue, sourceLocation: sourceLocation)
            let texts = try #require(kept.texts, sourceLocation: sourceLocation)
            #expect(LazyRowValues(texts: texts).rows == rows, "\(text)", sourceLocation: sourceLocation)
            let foundTexts = try #require(withMembers.texts, sourceLocation: sourceLocation)
            let tape = try #require(foundTexts.memberTape, sourceLocation: sourceLocation)
            try expectMembers(tape, in: foundTexts, rows: rows, text: text, sourceLocation: sourceLocation)
            // The same positions when a stage finds them in the kept texts, 256 rows at a time.
            let again = texts.memberTape(finding: Self.selection, elements: 0..<texts.count)
            #expect(again.entries == tape.entries, "\(text)", sourceLocation: sourceLocation)
        default:
            Issue.record("parse \(parsed), skip \(skipped) and find \(found) disagree on \(text)", sourceLocation: sourceLocation)
        }
    }

    /// Checks each row's entries in `tape` against the parsed `rows`: an object whose keys
    /// have no escapes (values may) has each selected member where its compact text has it (the last of a
    /// repeated key), or none when it has none; any other row is unread.
    private func expectMembers(_ tape: JSONMemberTape, in texts: JSONElementTexts, rows: [JSONValue], text: String, sourceLocation: SourceLocation) throws {
        let keys = ["id", "url", "none"]
        for (index, row) in rows.enumerated() {
            let entries = Array(tape.entries[(index * tape.stride)..<((index + 1) * tape.stride)])
            let rowText = Array(try #require(texts[index], sourceLocation: sourceLocation))
            // The one key written with an escape among the rows above.
            let escapedKey = Array(#""u\u0072l":"#.utf8)
            guard case .object = row, rowText.firstRange(of: escapedKey) == nil else {
                #expect(entries[0] == JSONMemberTape.Status.unread.rawValue, "row \(index) of \(text)", sourceLocation: sourceLocation)
                continue
            }
            #expect(entries[0] == JSONMemberTape.Status.object.rawValue, "row \(index) of \(text)", sourceLocation: sourceLocation)
            for (slot, key) in keys.enumerated() {
                let (start, end) = (entries[1 + slot * 2], entries[2 + slot * 2])
                if start < 0 {
                    #expect(row[key] == nil, "row \(index) of \(text): \(key) not found", sourceLocation: sourceLocation)
                } else {
                    #expect(try JSONValue(parsing: Array(rowText[start..<end])) == row[key], "row \(index) of \(text): \(key)", sourceLocation: sourceLocation)
                }
            }
        }
    }
}

@Suite("Byte comparison of keys and shape prefixes")
struct BytesEqualTests {
    @Test("equal exactly when the bytes are, for every length to 40 and every place of a difference")
    func everyLengthAndDifference() {
        var random = SplitMix64(seed: 0xB17E_5E01)
        for count in 0...40 {
            for place in -1..<count {
                // Padded past `count` with bytes that differ, which must never count.
                let a = (0..<(count + 8)).map { _ in UInt8.random(in: 0...255, using: &random) }
                var b = Array(a[..<count]) + (0..<8).map { _ in UInt8.random(in: 0...255, using: &random) }
                if place >= 0 { b[place] &+= UInt8.random(in: 1...255, using: &random) }
                for readable in [true, false] {
                    let equal = a.withUnsafeBufferPointer { a in
                        b.withUnsafeBufferPointer { b in
                            JSONParser.bytesEqual(a.baseAddress!, b.baseAddress!, count: count, lastWordReadable: readable)
                        }
                    }
                    #expect(equal == (place < 0), "count \(count), difference at \(place)")
                }
            }
        }
    }
}
