import Foundation
import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The cache's class-name table and the page count a headless list without totalCount keeps.
@Suite struct ClassNameCacheTests {
    @Test(arguments: CacheBackendKind.available)
    func classNameIdsAreKeptPerServer(backend: CacheBackendKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory)
        let names = ["com.liferay.journal.model.JournalArticle", "com.liferay.bookmarks.model.BookmarksEntry"]
        #expect(try await store.classNameIds(server: "https://a.example.com", names: names).isEmpty)
        try await store.storeClassNameIds(server: "https://a.example.com", [names[0]: 20109, names[1]: Int64.max])
        try await store.storeClassNameIds(server: "https://b.example.com", [names[0]: 31])
        #expect(try await store.classNameIds(server: "https://a.example.com", names: names) == [names[0]: 20109, names[1]: Int64.max])
        #expect(try await store.classNameIds(server: "https://b.example.com", names: names) == [names[0]: 31])
        // A second store on the file sees them: the next run asks the portal nothing.
        let again = try await backend.reopen(store)
        #expect(try await again.classNameIds(server: "https://b.example.com", names: [names[0]]) == [names[0]: 31])
    }

    @Test(arguments: CacheBackendKind.available)
    func aStoredPageCountEndsTheCachedList(backend: CacheBackendKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory)
        var first = FetchedPage(
            request: PageRequest(index: 0, startRow: 0, endRow: 10, includesRowCount: true), rows: [1, 2], origin: .remote)
        first.pageCount = 2
        try await store.write(key: "k", pipeline: "p", page: first, snapshot: nil)
        let cached = try #require(try await store.read(key: "k", page: 0))
        #expect(cached.pageCount == 2)
        #expect(cached.fetchedPage(for: first.request).pageCount == 2)
        // Page 1 is inside the list (a miss), page 2 past its end.
        #expect(try await store.lookup(key: "k", request: PageRequest(index: 1, startRow: 10, endRow: 20, includesRowCount: false)) == .miss)
        guard case .endOfList = try await store.lookup(key: "k", request: PageRequest(index: 2, startRow: 20, endRow: 30, includesRowCount: false)) else {
            Issue.record("page 2 is past the stored lastPage")
            return
        }
    }
}
