import Foundation
import ScreensBus
import ScreensPipe
import ScreensPipeTesting
import Synchronization
import Testing

/// Collects what a fetcher hands to `provisional`.
final class ProvisionalPages: Sendable {
    private let pages = Mutex<[FetchedPage]>([])
    var all: [FetchedPage] { pages.withLock { $0 } }
    var callback: @Sendable (FetchedPage) async -> Void {
        { page in self.pages.withLock { $0.append(page) } }
    }
}

/// A temporary directory removed when the value is dropped at the end of a test.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("screens-pipe-cache-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}

enum CacheFixtures {
    static let pagination = PaginationSpec(firstPageSize: 4, pageSize: 3)

    /// `count` bookmark-like rows with ids past 2^53.
    static func rows(_ count: Int, tag: String = "v1") -> [JSONValue] {
        (0..<count).map { index in
            ["entryId": .int(9_007_199_254_740_993 + Int64(index)), "name": .string("\(tag) bookmark \(index)")]
        }
    }

    static func request(_ index: Int) -> PageRequest {
        PageRequest(index: index, pagination: pagination)
    }

    /// Loads every page the way the pipeline does (docs/architecture.md, "Pagination"): up to page 0's row count,
    /// else until the first short page.
    static func loadAll(_ fetcher: some PageFetcher) async throws(ScreensPipeError) -> [FetchedPage] {
        var pages: [FetchedPage] = []
        var rowCount: Int?
        var index = 0
        while true {
            let request = request(index)
            if let rowCount, request.startRow >= rowCount { break }
            let page = try await fetcher.fetch(request)
            pages.append(page)
            if index == 0 { rowCount = page.rowCount }
            if rowCount == nil, page.rows.count < request.endRow - request.startRow { break }
            index += 1
        }
        return pages
    }

    static func bookmarksSpec(
        server: ServerAddress = .sandbox, auth: AuthSpec? = .basic(username: "test@liferay.com", password: "secret"),
        params: JSONObject = ["groupId": 20143, "folderId": 0], locale: String? = nil, sort: String? = nil,
        pagination: PaginationSpec = pagination, cache: CacheSpec? = CacheSpec(),
        headers: [HeaderSpec] = []
    ) -> PipelineSpec {
        PipelineSpec(
            name: "bookmarks",
            source: SourceSpec(
                type: .liferayJSONWS(
                    JSONWSSourceSpec(
                        rows: ServiceCall(service: "/bookmarks.bookmarksentry/get-entries", params: params),
                        count: ServiceCall(service: "/bookmarks.bookmarksentry/get-entries-count", params: params),
                        sort: sort)),
                server: server, auth: auth, pagination: pagination, headers: headers),
            convert: ConvertSpec(model: .bookmark, locale: locale), cache: cache)
    }
}

/// The stand-in must page like a server, or the policy tests prove nothing.
@Suite struct ScriptedSourceTests {
    @Test func servesFluentPagesWithCountOnPageZero() async throws {
        let source = ScriptedSource(rows: CacheFixtures.rows(9))
        let pages = try await CacheFixtures.loadAll(source)
        #expect(pages.map(\.rows.count) == [4, 3, 2])
        #expect(pages.map(\.rowCount) == [9, nil, nil])
        #expect(pages.flatMap(\.rows) == CacheFixtures.rows(9))
    }

    @Test func failsTheWayItIsTold() async {
        let source = ScriptedSource(rows: CacheFixtures.rows(2))
        for (mode, code) in [
            (ScriptedSource.Mode.down, ScreensPipeError.Code.connectivity), (.unauthorized, .authentication),
            (.notFound, .http),
        ] {
            source.mode = mode
            await #expect(throws: ScreensPipeError.self) { _ = try await source.fetch(CacheFixtures.request(0)) }
            do {
                _ = try await source.fetch(CacheFixtures.request(0))
            } catch {
                #expect(error.code == code)
            }
        }
    }
}
