import Foundation
import PostgresNIO
import ScreensBus
import ScreensPipe
import Testing

/// Many processes on one PostgreSQL cache: one refreshes a list at a time, the others serve
/// the last complete snapshot, and a refresh that does not complete leaves it as it was.
/// Each store here stands for a process (its own connections).
@Suite(.enabled(if: PostgresTesting.isAvailable, PostgresTesting.needed))
struct PostgresCacheFleetTests {
    /// 6 rows in pages of 4 and 3: page 0 (4 rows, count 6) and page 1 (2 rows) make the list.
    private func pages(tag: String) -> [FetchedPage] {
        [
            FetchedPage(request: CacheFixtures.request(0), rows: CacheFixtures.rows(4, tag: tag), rowCount: 6, origin: .remote),
            FetchedPage(request: CacheFixtures.request(1), rows: CacheFixtures.rows(2, tag: tag), origin: .remote),
        ]
    }

    private func lease(_ turn: CacheRefreshTurn, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> any CacheRefreshLease {
        guard case .refresh(let lease) = turn else {
            Issue.record("expected this process to refresh, got \(turn)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return lease
    }

    private func isServing(_ turn: CacheRefreshTurn) -> Bool {
        if case .serveCache = turn { return true }
        return false
    }

    @Test func othersServeTheLastCompleteSnapshotWhileOneRefreshes() async throws {
        let first = try await PostgresCacheStore.open(try await PostgresTesting.freshDatabase())
        let second = try await PostgresCacheStore.open(first.target)
        // Load 1 completes: published to everyone, and the lock is free again.
        let load1 = try lease(try await first.beginRefresh(key: "k", mayServeCache: true))
        for page in pages(tag: "load1") { try await load1.write(pipeline: "p", page: page, snapshot: "load1", endsChain: false) }
        #expect(try await second.read(key: "k", page: 1)?.rows == CacheFixtures.rows(2, tag: "load1"))

        // Load 2 is under way: its first page is staged, invisible.
        let load2 = try lease(try await first.beginRefresh(key: "k", mayServeCache: true))
        try await load2.write(pipeline: "p", page: pages(tag: "load2")[0], snapshot: "load2", endsChain: false)
        #expect(isServing(try await second.beginRefresh(key: "k", mayServeCache: true)))
        #expect(try await second.read(key: "k", page: 0)?.rows == CacheFixtures.rows(4, tag: "load1"))
        #expect(try await second.read(key: "k", page: 0)?.snapshot == "load1")

        // Load 2 gives up (the run failed): load 1 is still what everyone reads, and the lock is free.
        await load2.release()
        #expect(try await second.read(key: "k", page: 0)?.rows == CacheFixtures.rows(4, tag: "load1"))
        let load3 = try lease(try await second.beginRefresh(key: "k", mayServeCache: true))
        await load3.release()
        await first.close()
        await second.close()
    }

    @Test func aWaiterServesWhatTheRefresherPublishedInsteadOfFetchingAgain() async throws {
        let first = try await PostgresCacheStore.open(try await PostgresTesting.freshDatabase())
        let second = try await PostgresCacheStore.open(first.target)
        let third = try await PostgresCacheStore.open(first.target)
        let refresh = try lease(try await first.beginRefresh(key: "k", mayServeCache: true))
        // Nothing is published yet: the others wait for the lock instead of fetching too.
        let waiter = Task { try await second.beginRefresh(key: "k", mayServeCache: true) }
        let mustFetch = Task { try await third.beginRefresh(key: "k", mayServeCache: false) }
        // Both are waiting for the lock (the server says so) before the refresher completes.
        try await waitForLockWaiters(2, in: first.target)
        for page in pages(tag: "fresh") { try await refresh.write(pipeline: "p", page: page, snapshot: "fresh", endsChain: false) }
        // A run that must fetch (remote-only, --refresh) gets its own turn after the wait; the
        // waiter is served what was published, whichever of the two the server lets in first.
        let own = try lease(try await mustFetch.value)
        await own.release()
        #expect(isServing(try await waiter.value))
        #expect(try await second.read(key: "k", page: 0)?.snapshot == "fresh")
        await first.close()
        await second.close()
        await third.close()
    }

    /// Polls the server until `count` sessions of `target`'s database wait for a lock.
    private func waitForLockWaiters(_ count: Int, in target: PostgresTarget) async throws {
        for _ in 0..<3_000 {
            let waiting = try await PostgresTesting.withConnection(target) { connection in
                var waiting = 0
                for try await number in try await connection.query(
                    "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
                    logger: PostgresTesting.logger
                ).decode(Int.self) { waiting = number }
                return waiting
            }
            if waiting >= count { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("\(count) sessions never waited for the lock")
        throw CancellationError()
    }

    @Test func aListIsPublishedOnlyWhenItsLastPageIsStaged() async throws {
        let store = try await PostgresCacheStore.open(try await PostgresTesting.freshDatabase())
        // Without a count: published at the first short page, pages past it are not.
        let byShortPage = try lease(try await store.beginRefresh(key: "short", mayServeCache: true))
        try await byShortPage.write(
            pipeline: "p", page: FetchedPage(request: CacheFixtures.request(0), rows: CacheFixtures.rows(4), origin: .remote),
            snapshot: "s", endsChain: false)
        #expect(try await store.read(key: "short", page: 0) == nil)
        try await byShortPage.write(
            pipeline: "p", page: FetchedPage(request: CacheFixtures.request(1), rows: CacheFixtures.rows(1), origin: .remote),
            snapshot: "s", endsChain: false)
        #expect(try await store.read(key: "short", page: 1)?.rows.count == 1)

        // A chained source's last page is full but names no next page.
        let chained = try lease(try await store.beginRefresh(key: "chain", mayServeCache: true))
        try await chained.write(
            pipeline: "p", page: FetchedPage(request: CacheFixtures.request(0), rows: CacheFixtures.rows(4), origin: .remote),
            snapshot: "c", endsChain: true)
        #expect(try await store.read(key: "chain", page: 0)?.rows.count == 4)

        // Pages staged out of order (prefetch) publish when the gap closes.
        let outOfOrder = try lease(try await store.beginRefresh(key: "gap", mayServeCache: true))
        let loaded = pages(tag: "gap")
        try await outOfOrder.write(pipeline: "p", page: loaded[1], snapshot: "g", endsChain: false)
        #expect(try await store.read(key: "gap", page: 1) == nil)
        try await outOfOrder.write(pipeline: "p", page: loaded[0], snapshot: "g", endsChain: false)
        #expect(try await store.read(key: "gap", page: 1)?.rows == CacheFixtures.rows(2, tag: "gap"))
        await store.close()
    }
}
