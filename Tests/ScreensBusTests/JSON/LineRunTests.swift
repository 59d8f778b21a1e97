import ScreensJSON
import TestSupport
import Testing

/// A page whose rows were written compactly from a formatted body holds them as JSON lines,
/// and the JSON-lines sink writes that run as it is; any other layout is written row by row.
/// Either way the texts are the same texts: equal, hashed and digested alike.
@Suite("JSON lines: a formatted page's rows as one run")
struct JSONLinesRunTests {
    private static let rows = [
        #"{"id":1,"name":"a b","tags":["x","y"],"note":null}"#,
        #"{"id":22,"name":"c\"d","tags":[],"note":{"k":1.50}}"#,
        #"{"id":333,"name":"","tags":["z"],"note":"\u00e9"}"#,
        #"{"id":4,"other":true}"#,
        #"{"id":55,"name":"e","tags":["w"],"note":-0.0}"#,
    ]

    /// The run of lines the sink would write for the rows of `body` at `selected`, or nil
    /// when they are not laid out as one.
    private static func run(_ body: String, selected: Range<Int>? = nil) throws -> String? {
        let (_, texts) = try JSONValue.parse(Array(body.utf8), keepingElementTextsAt: [], skippingElements: true, findingMembers: nil)
        let kept = try #require(texts)
        return kept.withTexts(count: kept.count) { text, ranges in
            JSONElementTexts.lineRun(in: text, ranges[(selected ?? ranges.indices)]).map { String(decoding: text[$0], as: UTF8.self) }
        }
    }

    private static let lines = rows.map { $0 + "\n" }.joined()

    @Test("pretty-printed and spaced pages: every row, in order, one per line, compact")
    func formattedPages() throws {
        for layout in [JSONLayouts.pretty as (Int) -> [UInt8], JSONLayouts.spaced] {
            let body = String(decoding: JSONLayouts.reformatted(Array("[\(Self.rows.joined(separator: ","))]".utf8), layout), as: UTF8.self)
            #expect(try Self.run(body) == Self.lines)
            #expect(try Self.run(body, selected: 1..<4) == Self.rows[1..<4].map { $0 + "\n" }.joined())
        }
    }

    @Test("a page that turns formatted after compact rows: the rows before are laid out as lines too")
    func formattedAfterCompactRows() throws {
        let body = "[\(Self.rows[0]),\(Self.rows[1]),\n  \(JSONLayouts.pretty(Self.rows[2])),\(Self.rows[3]), \(Self.rows[4])]"
        #expect(try Self.run(body) == Self.lines)
    }

    @Test("a compact page is its own text, not lines: written row by row")
    func compactPage() throws {
        #expect(try Self.run("[\(Self.rows.joined(separator: ","))]") == nil)
    }

    @Test("texts laid out as lines equal the same texts laid out otherwise, and hash alike; other texts differ")
    func equalityIgnoresLayout() throws {
        let pretty = String(decoding: JSONLayouts.reformatted(Array("[\(Self.rows.joined(separator: ","))]".utf8), JSONLayouts.pretty), as: UTF8.self)
        let lines = try #require(try JSONValue.parse(Array(pretty.utf8), keepingElementTextsAt: [], skippingElements: true, findingMembers: nil).texts)
        let commas = try #require(try JSONValue.parse(Array("[\(Self.rows.joined(separator: ","))]".utf8), keepingElementTextsAt: []).texts)
        var backToBack = JSONElementTexts()
        for row in Self.rows { row.utf8.withContiguousStorageIfAvailable { backToBack.append(textOfParsedValue: UnsafeRawBufferPointer($0)) } }
        #expect(lines == commas && commas == backToBack && lines == backToBack)
        #expect(Set([lines, commas, backToBack]).count == 1)
        #expect(lines.contentDigest == commas.contentDigest && commas.contentDigest == backToBack.contentDigest)
        let fewer = try #require(try JSONValue.parse(Array("[\(Self.rows.dropLast().joined(separator: ","))]".utf8), keepingElementTextsAt: []).texts)
        let split = try #require(try JSONValue.parse(Array(#"["a","bc"]"#.utf8), keepingElementTextsAt: []).texts)
        let otherSplit = try #require(try JSONValue.parse(Array(#"["ab","c"]"#.utf8), keepingElementTextsAt: []).texts)
        #expect(lines != fewer && split != otherSplit)
    }

    @Test("rows with a gap between them, or none: no run")
    func gaps() throws {
        let text = Array("\(Self.rows[0])\n\(Self.rows[1])\n".utf8)
        let first = 0..<Self.rows[0].utf8.count
        let second = (first.upperBound + 1)..<(text.count - 1)
        text.withUnsafeBufferPointer { buffer in
            #expect(JSONElementTexts.lineRun(in: buffer, [first, second][...]) == 0..<text.count)
            #expect(JSONElementTexts.lineRun(in: buffer, [second][...]) == second.lowerBound..<text.count)
            #expect(JSONElementTexts.lineRun(in: buffer, [first, (second.lowerBound + 1)..<second.upperBound][...]) == nil)
            #expect(JSONElementTexts.lineRun(in: buffer, [first.lowerBound..<(first.upperBound - 1)][...]) == nil)
            #expect(JSONElementTexts.lineRun(in: buffer, [][...]) == nil)
        }
    }
}
