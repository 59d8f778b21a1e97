import ScreensPipeCore
import ScreensBus
internal import PostgresNIO
internal import Logging
internal import Foundation
import Synchronization

/// One process's turn to refresh one list in a ``PostgresCacheStore``: the session-level
/// advisory lock lives on `lockConnection`, so it goes when the lease is released, when the
/// process ends, and when it dies (the server drops a dead client's session and its locks).
final class PostgresRefreshLease: CacheRefreshLease {
    private let store: PostgresCacheStore
    private let key: String
    /// The connection holding the lock until the load is published or given up; nil afterwards.
    private let lockConnection: Mutex<PostgresConnection?>

    init(store: PostgresCacheStore, key: String, lockConnection: PostgresConnection) {
        self.store = store
        self.key = key
        self.lockConnection = Mutex(lockConnection)
    }

    func write(pipeline: String, page: FetchedPage, snapshot: String, endsChain: Bool) async throws(ScreensPipeError) {
        let (text, rowIndex) = page.storedRows
        let index = rowIndex.map { ByteBuffer(bytes: $0) }
        let request = page.request
        let key = key
        let published = try await store.perform("stage page \(request.index)") { [client = store.client] in
            try await client.withTransaction(logger: PostgresCacheStore.quietLogger) { connection -> Bool in
                let logger = PostgresCacheStore.quietLogger
                // Concurrent prefetches of this process stage pages of the same load: one at a
                // time decides whether the load is complete and publishes it, exactly once.
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtextextended(\("screens-pipe publish " + key), 0))", logger: logger)
                try await connection.query(
                    """
                    INSERT INTO screens_pipe_cache_staged_page (key, snapshot, page_index, pipeline, start_row, end_row,
                        rows, rows_in_page, row_count, continuation, fetched_at, byte_size, page_count, ends_chain, row_index)
                    VALUES (\(key), \(snapshot), \(request.index), \(pipeline), \(request.startRow), \(request.endRow),
                        \(text), \(page.rowsInPage), \(page.rowCount), \(page.continuation),
                        \(page.fetchedAt.timeIntervalSince1970), \(text.utf8.count), \(page.pageCount), \(endsChain), \(index))
                    ON CONFLICT (key, snapshot, page_index) DO UPDATE SET rows = EXCLUDED.rows,
                        rows_in_page = EXCLUDED.rows_in_page, row_count = EXCLUDED.row_count,
                        continuation = EXCLUDED.continuation, fetched_at = EXCLUDED.fetched_at,
                        byte_size = EXCLUDED.byte_size, page_count = EXCLUDED.page_count, ends_chain = EXCLUDED.ends_chain,
                        row_index = EXCLUDED.row_index
                    """, logger: logger)
                var staged: [StoredLoadPage] = []
                for try await (index, endRow, rowsInPage, startRow, rowCount, pageCount, chainEnd, continues) in try await connection.query(
                    """
                    SELECT page_index, end_row, rows_in_page, start_row, row_count, page_count, ends_chain, continuation IS NOT NULL
                    FROM screens_pipe_cache_staged_page WHERE key = \(key) AND snapshot = \(snapshot) ORDER BY page_index
                    """, logger: logger
                ).decode((Int, Int, Int, Int, Int?, Int?, Bool, Bool).self) {
                    staged.append(
                        StoredLoadPage(
                            index: index, endRow: endRow, isShort: rowsInPage < endRow - startRow && !continues, rowCount: rowCount,
                            pageCount: pageCount, endsChain: chainEnd))
                }
                guard let last = StoredLoadPage.lastPageOfCompleteList(staged) else { return false }
                try await connection.query("DELETE FROM screens_pipe_cache_page WHERE key = \(key)", logger: logger)
                try await connection.query(
                    """
                    INSERT INTO screens_pipe_cache_page (key, page_index, pipeline, start_row, end_row, rows,
                        rows_in_page, row_count, continuation, fetched_at, byte_size, snapshot, page_count, row_index)
                    SELECT key, page_index, pipeline, start_row, end_row, rows, rows_in_page, row_count, continuation,
                        fetched_at, byte_size, snapshot, page_count, row_index
                    FROM screens_pipe_cache_staged_page
                    WHERE key = \(key) AND snapshot = \(snapshot) AND page_index <= \(last)
                    """, logger: logger)
                try await connection.query("DELETE FROM screens_pipe_cache_staged_page WHERE key = \(key)", logger: logger)
                return true
            }
        }
        if published { await release() }
    }

    /// A lease dropped without ``release()`` (a fetcher abandoned mid-load) still ends its
    /// session, and with it the lock: postgres-nio treats a connection freed while open as a
    /// bug. Its staged pages stay until the next refresh of the list removes them.
    deinit {
        guard let connection = lockConnection.withLock({ held -> PostgresConnection? in
            defer { held = nil }
            return held
        }) else { return }
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    func release() async {
        guard let connection = lockConnection.withLock({ held -> PostgresConnection? in
            defer { held = nil }
            return held
        }) else { return }
        // Pages of a load that did not complete are of no use to anyone.
        _ = try? await store.client.query(
            "DELETE FROM screens_pipe_cache_staged_page WHERE key = \(key)", logger: PostgresCacheStore.quietLogger)
        // Closing the session releases its advisory locks.
        try? await connection.close()
    }
}
