import Sandbox
import ScreensJSON
import Testing

@Suite("Permission filtering (hideEvery)")
struct PermissionFilteringTests {
    @Test("pages come back short mid-list while the count still includes the hidden rows")
    func shortPages() async throws {
        let all = try await withSandbox { client, _ in
            try client.invoke(#"{"/bookmarks.bookmarksentry/get-entries":{"groupId":20143,"folderId":0,"start":-1,"end":-1}}"#).expect(200).json().entryIds
        }
        try await withSandbox(.init { $0.hideEvery = 5 }) { client, _ in
            let body = try client.invoke("""
                [{"/bookmarks.bookmarksentry/get-entries":{"groupId":20143,"folderId":0,"start":0,"end":50}},
                 {"/bookmarks.bookmarksentry/get-entries-count":{"groupId":20143,"folderId":0}}]
                """).expect(200).json()
            #expect(body[1] == 73)
            let first = body[0]?.entryIds ?? []
            #expect(first.count == 40)
            let second = try client.invoke(#"{"/bookmarks.bookmarksentry/get-entries":{"groupId":20143,"folderId":0,"start":50,"end":75}}"#).expect(200).json().entryIds
            // Indices 54, 59, 64, 69 are hidden in [50, 73).
            #expect(second.count == 19)
            let visible = all.enumerated().filter { $0.offset % 5 != 4 }.map(\.element)
            #expect(first + second == visible)

            let headless = try client.get("/o/headless-delivery/v1.0/sites/20143/structured-contents?page=1&pageSize=25&flatten=true", headers: [TestHTTPClient.testUser]).expect(200).json()
            #expect(headless["items"]?.arrayValue?.count == 20)
            #expect(headless["totalCount"] == 73)
            let rest = try client.get("/rest/bookmarks/offset?offset=0&limit=25").expect(200).json()
            #expect(rest["data"]?["records"]?.arrayValue?.count == 20)
            #expect(rest["meta"]?["total"] == 73)
        }
    }
}
