import Foundation
import ScreensBus
import ScreensPipe
import Testing

/// A replayed row that nothing changes is written from the text the cache stored: that text
/// must be exactly what the writer makes of the row, for every kind of value.
@Suite struct CacheRowTextTests {
    @Test func storedRowTextsAreTheWritersBytes() async throws {
        let directory = try TemporaryDirectory()
        let store = try CacheStore(path: directory.file("cache.sqlite"))
        // Duplicate keys as the parser keeps them: both, in order.
        var duplicates = JSONObject()
        duplicates.appendUnchecked(key: "dup", value: 1)
        duplicates.appendUnchecked(key: "dup", value: 2)
        let rows: [JSONValue] = [
            ["id": .int(Int64.max), "min": .int(Int64.min), "above53": .int(9_007_199_254_740_993)],
            ["huge": .number("123456789012345678901234567890"), "exp": .number("1E+400"), "pi": .double(3.25), "neg": .double(-0.0)],
            ["controls": "\u{1}\u{1f}\t\r\n\u{7f}", "backslash": #"C:\path\"x"#, "unicode": "Grüße 日本 👩‍👩‍👧 \u{2028}"],
            .object(duplicates),
            ["nested": ["a": [1, nil, true, false, ["b": "c"]], "empty": [:], "list": []]],
            "a bare string", 42, nil,
        ]
        let page = FetchedPage(request: CacheFixtures.request(0), rows: rows, rowCount: rows.count, origin: .remote)
        try await store.write(key: "k", pipeline: "p", page: page, snapshot: nil)

        let cached = try #require(try await store.read(key: "k", page: 0))
        let texts = try #require(cached.rowTexts)
        #expect(cached.rows == rows)
        #expect(texts.count == rows.count)
        for (index, row) in cached.rows.enumerated() {
            #expect(texts[index].map(Array.init) == row.jsonBytes, "row \(index)")
        }
        // The page the cache hands to a run carries them on.
        #expect(cached.fetchedPage(for: CacheFixtures.request(0)).rowTexts == texts)
    }

    @Test func aPagesTextsAndValuesStayInStep() throws {
        let (_, kept) = try JSONValue.parse(Array(#"[{"a":1.0},{"b":"x"}]"#.utf8), keepingElementTextsAt: [], skippingElements: true)
        let texts = try #require(kept)
        var page = FetchedPage(request: CacheFixtures.request(0), rowTexts: texts, origin: .remote)
        #expect(page.rowsAreTexts)
        #expect(page.rows == [["a": .double(1.0)], ["b": "x"]])

        // Other texts on a page kept as texts: its rows are still the rows it held.
        page.rowTexts = nil
        #expect(!page.rowsAreTexts)
        #expect(page.rows == [["a": .double(1.0)], ["b": "x"]])
        #expect(page.rowsInPage == 2)

        // New rows drop the texts, which were the old rows'.
        var replaced = FetchedPage(request: CacheFixtures.request(0), rowTexts: texts, origin: .remote)
        replaced.rows = [["c": 3]]
        #expect(replaced.rowTexts == nil)
        #expect(!replaced.rowsAreTexts)
        #expect(replaced.rowsInPage == 1)
    }
}
