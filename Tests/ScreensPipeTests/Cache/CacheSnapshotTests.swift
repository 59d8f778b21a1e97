import Foundation
import TestSupport
import PostgresNIO
import ScreensBus
@testable import ScreensPipeCore
@testable import ScreensPipeSQLite
@testable import ScreensPipePostgres
import ScreensPipe
import ScreensPipeTesting
import Testing

/// A run never mixes two loads of a list: falls back to the cache only before any page came
/// from the server, then reads one snapshot to the end; a cache that cannot be written
/// does not stop the run. Real SQLite, and real PostgreSQL when the test server runs.
@Suite struct CacheSnapshotTests {
    let directory: TemporaryDirectory
    private let opened: OpenedCacheBackend
    /// The cache under test: the SQLite file, or a fresh PostgreSQL database after `use(.postgres)`.
    var store: any CacheBackend { opened.store }
    let source = ScriptedSource(rows: CacheFixtures.rows(9))
    let key = CacheKey(text: "snapshot-key")

    init() throws {
        directory = try TemporaryDirectory()
        opened = OpenedCacheBackend(try CacheStore(path: directory.file("cache.sqlite")))
    }

    /// Runs the test on `backend`.
    private func use(_ backend: CacheBackendKind) async throws { try await opened.use(backend, in: directory) }

    /// A fetcher is one run.
    private func run(_ policy: CachePolicy) throws(ScreensPipeError) -> CachedPageFetcher {
        try CachedPageFetcher(base: source, store: store, policy: policy, key: key, pipeline: "bookmarks")
    }

    @Test(arguments: CacheBackendKind.available)
    func aFailureAfterAServerPageIsAnErrorNotAFallback(backend: CacheBackendKind) async throws {
        try await use(backend)
        _ = try await CacheFixtures.loadAll(try run(.remoteFirst))
        let second = try run(.remoteFirst)
        _ = try await second.fetch(CacheFixtures.request(0))
        source.mode = .down
        do {
            _ = try await second.fetch(CacheFixtures.request(1))
            Issue.record("page 1 must not come from the cache after page 0 came from the server")
        } catch {
            #expect(error.code == .connectivity)
            #expect(error.page == 1)
            #expect(error.message.contains("never delivered mixed from two loads"), "\(error.message)")
        }
    }

    @Test(arguments: CacheBackendKind.available)
    func aFallbackReadsTheSnapshotToTheEndWithoutAskingAgain(backend: CacheBackendKind) async throws {
        try await use(backend)
        _ = try await CacheFixtures.loadAll(try run(.remoteFirst))
        let offline = try run(.remoteFirst)
        source.mode = .down
        let page0 = try await offline.fetch(CacheFixtures.request(0))
        #expect(page0.origin == .cache)
        let asked = source.fetches
        // The server is back, but this run reads its snapshot to the end.
        source.mode = .up
        source.rows = CacheFixtures.rows(9, tag: "v2")
        let page1 = try await offline.fetch(CacheFixtures.request(1))
        let page2 = try await offline.fetch(CacheFixtures.request(2))
        #expect(source.fetches == asked)
        #expect([page1, page2].allSatisfy { $0.origin == .cache })
        #expect((page0.rows + page1.rows + page2.rows) == CacheFixtures.rows(9))
    }

    @Test(arguments: CacheBackendKind.available)
    func pagesOfTwoLoadsAreNeverCombined(backend: CacheBackendKind) async throws {
        try await use(backend)
        _ = try await CacheFixtures.loadAll(try run(.remoteFirst))
        // A second load stores a new page 0, then fails at page 1: in SQLite the cache now holds
        // page 0 of the second load and pages 1-2 of the first; PostgreSQL never published it.
        source.rows = CacheFixtures.rows(9, tag: "v2")
        let interrupted = try run(.remoteFirst)
        _ = try await interrupted.fetch(CacheFixtures.request(0))
        source.mode = .down
        _ = try? await interrupted.fetch(CacheFixtures.request(1))

        let offline = try run(.remoteFirst)
        let page0 = try await offline.fetch(CacheFixtures.request(0))
        #expect(page0.origin == .cache)
        guard backend.publishesEachPage else {
            // The interrupted load stayed staged: the first load is read whole.
            let rest = [try await offline.fetch(CacheFixtures.request(1)), try await offline.fetch(CacheFixtures.request(2))]
            #expect((page0.rows + rest.flatMap(\.rows)) == CacheFixtures.rows(9))
            return
        }
        #expect(page0.rows == Array(CacheFixtures.rows(9, tag: "v2")[0..<4]))
        do {
            _ = try await offline.fetch(CacheFixtures.request(1))
            Issue.record("page 1 of the first load must not follow page 0 of the second")
        } catch {
            #expect(error.code == .cache)
            #expect(error.message.contains("from another load"), "\(error.message)")
        }
    }

    @Test(arguments: CacheBackendKind.available)
    func cacheOnlyReadsOneSnapshotToo(backend: CacheBackendKind) async throws {
        try await use(backend)
        _ = try await CacheFixtures.loadAll(try run(.remoteOnly))
        source.rows = CacheFixtures.rows(9, tag: "v2")
        _ = try await run(.remoteOnly).fetch(CacheFixtures.request(0))
        let reader = try run(.cacheOnly)
        let page0 = try await reader.fetch(CacheFixtures.request(0))
        guard backend.publishesEachPage else {
            // Page 0 of the second load was never published: the first load is read whole.
            let page1 = try await reader.fetch(CacheFixtures.request(1))
            #expect((page0.rows + page1.rows) == Array(CacheFixtures.rows(9)[0..<7]))
            return
        }
        await #expect(throws: ScreensPipeError.self) { _ = try await reader.fetch(CacheFixtures.request(1)) }
    }

    @Test(arguments: CacheBackendKind.available)
    func aCacheThatCannotBeWrittenDoesNotStopTheRun(backend: CacheBackendKind) async throws {
        try await use(backend)
        // Another process makes every write fail, as a full disk would.
        switch store {
        case let postgres as PostgresCacheStore:
            try await PostgresTesting.withConnection(postgres.target) { connection in
                try await connection.query(
                    """
                    CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device'; END $$
                    """, logger: PostgresTesting.logger)
                for table in ["screens_pipe_cache_page", "screens_pipe_cache_staged_page"] {
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON \(table) FOR EACH ROW EXECUTE FUNCTION refuse()"),
                        logger: PostgresTesting.logger)
                }
            }
        default:
            let script = """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1])
                c.execute("CREATE TRIGGER refuse BEFORE INSERT ON page BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END")
                c.commit()
                """
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script, directory.file("cache.sqlite")]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let pages = try await CacheFixtures.loadAll(try run(.remoteFirst))
        #expect(pages.flatMap(\.rows) == source.rows)
        #expect(try await store.read(key: key.text, page: 0) == nil)
    }

    @Test func agesReadAsPeopleSayThem() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(CachedPageFetcher.age(of: now.addingTimeInterval(-45), now: now) == "45 s")
        #expect(CachedPageFetcher.age(of: now.addingTimeInterval(-11_520), now: now) == "3 h 12 min")
        #expect(CachedPageFetcher.age(of: now.addingTimeInterval(-187_200), now: now) == "2 days 4 h")
        #expect(CachedPageFetcher.age(of: Date(timeIntervalSince1970: -1e300), now: now).hasSuffix("h"))
    }
}
