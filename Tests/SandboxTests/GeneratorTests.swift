import Sandbox
import ScreensJSON
import Testing

@Suite("Generated rows")
struct GeneratorTests {
    @Test("a million-row folder serves its count, pages of 1000, and row 999,999 exactly")
    func millionRows() async throws {
        try await withSandbox(.init { $0.generatedRows = 1_000_000 }) { client, _ in
            let body = try client.invoke("""
                [{"/bookmarks.bookmarksentry/get-entries":{"groupId":20143,"folderId":1000000,"start":999999,"end":1000050}},
                 {"/bookmarks.bookmarksentry/get-entries-count":{"groupId":20143,"folderId":1000000}}]
                """).expect(200)
            #expect(body.text.contains(#""entryId":9007199255740992,"#))
            let json = try body.json()
            #expect(json[1] == 1_000_000)
            let last = try #require(json[0]?[0])
            #expect(json[0]?.arrayValue?.count == 1)
            #expect(last["entryId"] == .int(9_007_199_254_740_993 + 999_999))
            #expect(last["name"] == "Generated bookmark 1000000")
            #expect(last["folderId"] == 1_000_000)

            let page = try client.invoke(#"{"/bookmarks.bookmarksentry/get-entries":{"groupId":20143,"folderId":1000000,"start":500000,"end":501000}}"#).expect(200).json()
            let ids = page.entryIds
            #expect(ids.count == 1_000)
            #expect(ids.first == Int64(9_007_199_254_740_993 + 500_000))
            #expect(ids == Array(ids.first!..<(ids.first! + 1_000)))
            // The same rows, twice: the generator is deterministic.
            let again = try client.invoke(#"{"/bookmarks.bookmarksentry/get-entries":{"groupId":20143,"folderId":1000000,"start":500000,"end":501000}}"#).expect(200).json()
            #expect(again == page)
        }
    }
}
