import Testing

@testable import ScreensBus
@testable import ScreensJSON

/// Rows kept as texts: checked like a parse, parsed only when read, and read as a parse
/// would have read them, through pages and their events.
@Suite("Rows kept as texts")
struct LazyRowValuesTests {
    static let body = Array(#"[[{"id":1,"s":"\u00e9"} , {"id":18446744073709551617,"t":[1.50,null]},"x",[]],4]"#.utf8)

    private func lazyRows() throws -> (value: JSONValue, rows: LazyRowValues) {
        let kept = try JSONValue.parse(Self.body, keepingElementTextsAt: [.index(0)], skippingElements: true)
        return (kept.value, LazyRowValues(texts: try #require(kept.texts)))
    }

    @Test("skipped rows leave nulls in the tree; their texts parse to what a full parse gives")
    func skippedRowsReadBackExactly() throws {
        let (value, rows) = try lazyRows()
        #expect(value == [[.null, .null, .null, .null], 4])
        let full = try JSONValue(parsing: Self.body)
        #expect(rows.count == 4)
        #expect(rows.rows == full[0]?.arrayValue)
        #expect(rows.row(at: 1) == full[0]?[1])
    }

    @Test("skipping accepts and refuses exactly what parsing does, with the same error", arguments: [
        #"[[{"a":1,}],1]"#, #"[[{"a":01}],1]"#, #"[["\u12"],1]"#, "[[\"\u{01}\"],1]", #"[[tru],1]"#, #"[[{"a" 1}],1]"#,
        #"[[[1,2],1]"#, #"[[1.],1]"#, #"[[-],1]"#, #"[["\ud800"],1]"#, #"[[{"a":[}],1]"#, #"[[1 2],1]"#, #"[[1],1] x"#,
        "[[\"\\q\"],1]", #"[["é"],1]"#, #"[[1e],1]"#, #"[[{1:2}],1]"#, #"[[-01],1]"#, #"[[1.e5],1]"#, #"[[1e+],1]"#,
        #"[[01.5],1]"#, #"[[--1],1]"#, #"[[+1],1]"#, #"[[1E400,-0,0.0e-0],1]"#, #"[[1.5E+2,1e-,2],1]"#, #"[[.5],1]"#,
        // A key that starts as the row before's did (skipped keys are compared in place).
        #"[[{"ab":1},{"ab":2,"ab":3},{"abc":4},{"ba":5}],1]"#, #"[[{"ab":1},{"ab"#, #"[[{"ab":1},{"ab":"#,
        #"[[{"ab":1},{"ab":2,"ab"":3}],1]"#, "[[{\"ab\":1},{\"ab\u{01}\":2}],1]", #"[[{"abcdefghijk":1},{"abcdefghijk"#,
        #"[[{"abcdefghijk":1},{"abcdefghijkl":2},{"abcdefghijk":3}],1]"#, #"[[{"ab":1},{"ab":2}],[{"ab":3}]]"#,
    ])
    func skippingRefusesWhatParsingRefuses(_ text: String) {
        var bytes = Array(text.utf8)
        if text == #"[["é"],1]"# { bytes = [0x5B, 0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D, 0x2C, 0x31, 0x5D] }  // invalid UTF-8
        let parsed = Result { () throws(JSONParseError) in try JSONValue(parsing: bytes) }
        let skipped = Result { () throws(JSONParseError) in try JSONValue.parse(bytes, keepingElementTextsAt: [.index(0)], skippingElements: true).value }
        switch (parsed, skipped) {
        case (.failure(let a), .failure(let b)): #expect(a == b)
        case (.success(let value), .success(let kept)): #expect(kept[0]?.arrayValue?.count == value[0]?.arrayValue?.count)
        default: Issue.record("parse \(parsed) and skip \(skipped) disagree on \(text)")
        }
    }

    @Test("skipping accepts deep rows up to the parser's depth limit and refuses one more level")
    func depthLimit() {
        let inner = JSONParser.maxDepth - 2
        let deep = "[[" + String(repeating: "[", count: inner) + String(repeating: "]", count: inner) + "],1]"
        #expect((try? JSONValue.parse(Array(deep.utf8), keepingElementTextsAt: [.index(0)], skippingElements: true)) != nil)
        let deeper = "[[" + String(repeating: "[", count: inner + 1) + String(repeating: "]", count: inner + 1) + "],1]"
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array(deeper.utf8), keepingElementTextsAt: [.index(0)], skippingElements: true) }
        let selection = JSONMemberSelection(slots: [Array("a".utf8): 0])
        #expect(throws: JSONParseError.self) {
            try JSONValue.parse(Array(deeper.utf8), keepingElementTextsAt: [.index(0)], skippingElements: true, findingMembers: selection)
        }
    }

    @Test("finding members while skipping accepts and refuses exactly what parsing does", arguments: [
        #"[[{"a":1,}],1]"#, #"[[{"a":01}],1]"#, #"[[{"a" 1}],1]"#, #"[[{"a":[}],1]"#, #"[[{1:2}],1]"#, #"[[{"a":1},{"a"#,
        #"[[{"ab":1},{"ab":2,"ab":3},{"abc":4},{"ba":5}],1]"#, #"[[{"ab":1},{"ab"#, #"[[{"ab":1},{"ab":"#,
        #"[[{"ab":1},{"ab":2,"ab"":3}],1]"#, "[[{\"ab\":1},{\"ab\u{01}\":2}],1]", #"[[{"a\u0062":1},{"a\u00":2}],1]"#,
        #"[[{"a\u0062":1},{"a\q":2}],1]"#, #"[[{"abcdefghijk":1},{"abcdefghijkl":2},{"abcdefghijk":3}],1]"#,
        #"[[1,{"ab":{"ab":{"ab":1}}},"x",[{"ab":2}],{}],1]"#, #"[[ { "ab" : 1 } , { "ab" :2,"a" : [ 1 , { } ] } ],1]"#,
    ])
    func findingMembersRefusesWhatParsingRefuses(_ text: String) {
        let bytes = Array(text.utf8)
        let selection = JSONMemberSelection(slots: [Array("ab".utf8): 0, Array("a".utf8): 1])
        let parsed = Result { () throws(JSONParseError) in try JSONValue(parsing: bytes) }
        let found = Result { () throws(JSONParseError) in
            try JSONValue.parse(bytes, keepingElementTextsAt: [.index(0)], skippingElements: true, findingMembers: selection)
        }
        switch (parsed, found) {
        case (.failure(let a), .failure(let b)): #expect(a == b)
        case (.success(let value), .success(let kept)):
            #expect(kept.value[0]?.arrayValue?.count == value[0]?.arrayValue?.count)
            #expect(kept.texts?.memberTape != nil)
        default: Issue.record("parse \(parsed) and finding members \(found) disagree on \(text)")
        }
    }

    @Test("a page of tiny rows gives up the members' positions rather than grow them to many times the body")
    func tinyRowsGiveUpTheirPositions() throws {
        let slots = Dictionary(uniqueKeysWithValues: (0..<9).map { (Array("key\($0)".utf8), $0) })
        let selection = JSONMemberSelection(slots: slots)
        let tiny = Array(("[" + Array(repeating: "{}", count: 10_000).joined(separator: ",") + "]").utf8)
        let kept = try #require(try JSONValue.parse(tiny, keepingElementTextsAt: [], skippingElements: true, findingMembers: selection).texts)
        #expect(kept.count == 10_000 && kept.memberTape == nil)
        // Rows of an ordinary size keep them.
        let row = #"{"key0":"a value of some length","key1":12345,"key8":true,"other":"more text to make an ordinary row"}"#
        let ordinary = Array(("[" + Array(repeating: row, count: 2_000).joined(separator: ",") + "]").utf8)
        let found = try #require(try JSONValue.parse(ordinary, keepingElementTextsAt: [], skippingElements: true, findingMembers: selection).texts)
        #expect(found.count == 2_000 && found.memberTape?.entries.count == 2_000 * 19)
    }

    @Test("the members found while skipping are where each row's compact text has them")
    func foundMembersAreInTheCompactTexts() throws {
        let body = Array(
            #"""
            {"items": [ {"ab": 1, "a" : "x y"}, {"a":[1, {"ab":2}],"ab":"z"}, {"ab":1,"ab":{ "k" : null }},
              {}, "row", [1], {"a\u0062":3,"a":4}, {"b":5}, {"a":  true  ,"c":"é"} ], "ab": 0}
            """#.utf8)
        let selection = JSONMemberSelection(slots: [Array("ab".utf8): 0, Array("a".utf8): 1])
        let kept = try JSONValue.parse(body, keepingElementTextsAt: [.key("items")], skippingElements: true, findingMembers: selection)
        let texts = try #require(kept.texts)
        let tape = try #require(texts.memberTape)
        let rows = try #require(try JSONValue(parsing: body)["items"]?.arrayValue)
        #expect(tape.stride == 5 && tape.entries.count == rows.count * 5)
        var described: [String] = []
        for (index, row) in rows.enumerated() {
            let text = Array(try #require(texts[index]))
            let entries = Array(tape.entries[(index * 5)..<(index * 5 + 5)])
            guard entries[0] == JSONMemberTape.Status.object.rawValue else {
                described.append("unread")
                continue
            }
            var members: [String] = []
            for (slot, key) in ["ab", "a"].enumerated() {
                let (start, end) = (entries[1 + slot * 2], entries[2 + slot * 2])
                guard start >= 0 else {
                    #expect(row[key] == nil, "row \(index): \(key) was not found")
                    continue
                }
                let member = Array(text[start..<end])
                #expect(try JSONValue(parsing: member) == row[key], "row \(index): \(key)")
                members.append("\(key)=\(String(decoding: member, as: UTF8.self))")
            }
            described.append(members.joined(separator: " "))
        }
        #expect(described == [
            #"ab=1 a="x y""#, #"ab="z" a=[1,{"ab":2}]"#, #"ab={"k":null}"#, "", "unread", "unread", "unread", "", "a=true",
        ])
    }

    @Test("a page of rows kept as texts: counts never parse, outcomes and events read as for parsed rows")
    func pageEvents() throws {
        let (_, rows) = try lazyRows()
        let response = ListResponse(pipeline: "p", page: 0, startRow: 10, endRow: 14, rowCount: nil, rows: 4, origin: .remote)
        var lazy = PageEvents(response: response)
        lazy.appendSelected(rows: rows, firstRow: 10, count: 3)
        var eager = PageEvents(response: response)
        for position in 0..<3 { eager.appendSelected(row: 10 + position, item: rows.row(at: position), text: rows.texts[position]) }
        #expect(lazy.outcomeCount == 3 && lazy.selectedCount == 3 && lazy.errorCount == 0)
        #expect(lazy.outcomes == eager.outcomes)
        #expect(lazy == eager)
        #expect(Array(lazy.events) == Array(eager.events))
        #expect(lazy.text(ofOutcome: 1).map { String(decoding: $0, as: UTF8.self) } == #"{"id":18446744073709551617,"t":[1.50,null]}"#)
        #expect((0..<3).allSatisfy { lazy.isSelected($0) })
        // A sink copies them from the buffer they share: the first 3 texts, in order.
        let shared = lazy.withSelectedTexts { text, ranges in ranges.map { Array(text[$0]) } }
        #expect(shared == (0..<3).map { Array(lazy.text(ofOutcome: $0)!) })
        #expect(eager.withSelectedTexts { _, ranges in ranges.count } == nil)

        // An error after them turns them into ordinary outcomes, in order, texts kept.
        lazy.appendError(ListError(pipeline: "p", page: 0, row: 13, kind: "convert", message: "m"))
        eager.appendError(ListError(pipeline: "p", page: 0, row: 13, kind: "convert", message: "m"))
        #expect(lazy.outcomes == eager.outcomes && lazy.outcomeCount == 4 && !lazy.isSelected(3))
        #expect(lazy.text(ofOutcome: 0) == rows.texts[0])
        #expect(lazy.errors.count == 1)
        #expect(lazy.withSelectedTexts { _, ranges in ranges.count } == nil)
    }
}
