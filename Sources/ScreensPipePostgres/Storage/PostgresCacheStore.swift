import ScreensPipeCore
import ScreensBus
internal import PostgresNIO
internal import Logging
internal import Foundation

/// The offline cache in a PostgreSQL database that many processes on many machines share.
///
/// Pages have the same meaning as in ``CacheStore`` (the same writes give the same answers;
/// the cache suites run against both). On top, the store coordinates a fleet
/// (``beginRefresh(key:mayServeCache:)``): one process at a time refreshes a list, holding a
/// session-level advisory lock for the list's key on a connection of its own, and stages its
/// pages where readers do not see them; when the list is complete they replace the published
/// pages in one transaction. Meanwhile the other processes serve the last complete snapshot.
/// A process killed mid-refresh leaves the previous snapshot as it was, and its lock goes with
/// its connection.
///
/// Every statement binds its values as parameters; nothing from a page is spliced into SQL.
public final class PostgresCacheStore: CacheBackend {
    /// The database, without its password.
    public let target: PostgresTarget
    /// The database URL without its password.
    public var location: String { target.description }
    private let connections: RunningPostgresClient
    var client: PostgresClient { connections.client }
    static let quietLogger = Logger(label: "screens-pipe.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    private init(target: PostgresTarget, connections: RunningPostgresClient) {
        self.target = target
        self.connections = connections
    }

    /// Connects to `target` and creates the tables that are missing. A refused connection, a
    /// wrong password or a bad TLS setting fails here, naming the server (never the password).
    public static func open(_ target: PostgresTarget) async throws(ScreensPipeError) -> PostgresCacheStore {
        PostgresCacheStore(target: target, connections: try await RunningPostgresClient.open(target, purpose: "open the cache"))
    }

    /// Closes the connections.
    public func close() async { await connections.close() }

    // MARK: - Pages

    /// Stores `page` under `key` as ``CacheStore/write(key:pipeline:page:snapshot:)`` does.
    public func write(key: String, pipeline: String, page: FetchedPage, snapshot: String? = nil) async throws(ScreensPipeError) {
        let (text, rowIndex) = page.storedRows
        let index = rowIndex.map { ByteBuffer(bytes: $0) }
        let request = page.request
        try await perform("store page \(request.index)") { [client] in
            try await client.withTransaction(logger: Self.quietLogger) { connection in
                try await connection.query(
                    """
                    INSERT INTO screens_pipe_cache_page (key, page_index, pipeline, start_row, end_row, rows,
                        rows_in_page, row_count, continuation, fetched_at, byte_size, snapshot, page_count, row_index)
                    VALUES (\(key), \(request.index), \(pipeline), \(request.startRow), \(request.endRow), \(text),
                        \(page.rowsInPage), \(page.rowCount), \(page.continuation), \(page.fetchedAt.timeIntervalSince1970),
                        \(text.utf8.count), \(snapshot), \(page.pageCount), \(index))
                    ON CONFLICT (key, page_index) DO UPDATE SET pipeline = EXCLUDED.pipeline,
                        start_row = EXCLUDED.start_row, end_row = EXCLUDED.end_row, rows = EXCLUDED.rows,
                        rows_in_page = EXCLUDED.rows_in_page, row_count = EXCLUDED.row_count,
                        continuation = EXCLUDED.continuation, fetched_at = EXCLUDED.fetched_at,
                        byte_size = EXCLUDED.byte_size, snapshot = EXCLUDED.snapshot, page_count = EXCLUDED.page_count,
                        row_index = EXCLUDED.row_index
                    """, logger: Self.quietLogger)
                if request.index == 0, let rowCount = page.rowCount {
                    try await connection.query(
                        "DELETE FROM screens_pipe_cache_page WHERE key = \(key) AND page_index > 0 AND start_row >= \(rowCount)",
                        logger: Self.quietLogger)
                } else if request.index == 0, let pageCount = page.pageCount {
                    try await connection.query(
                        "DELETE FROM screens_pipe_cache_page WHERE key = \(key) AND page_index >= \(max(1, pageCount))",
                        logger: Self.quietLogger)
                } else if page.endsAsShortPage, page.pageCount == nil, try await Self.rowCount(connection, key: key) == nil {
                    try await connection.query(
                        "DELETE FROM screens_pipe_cache_page WHERE key = \(key) AND page_index > \(request.index)",
                        logger: Self.quietLogger)
                }
            }
        }
    }

    /// The stored page `page` of `key`, or nil.
    public func read(key: String, page: Int) async throws(ScreensPipeError) -> CachedPage? {
        try await perform("read page \(page)") { [client] in
            try await client.withConnection { connection in try await Self.page(connection, key: key, index: page, rowsAsTexts: false) }
        }
    }

    /// What the cache knows about `request`'s page of `key`, as ``CacheStore/lookup(key:request:rowsAsTexts:)`` answers.
    public func lookup(key: String, request: PageRequest, rowsAsTexts: Bool) async throws(ScreensPipeError) -> CacheLookup {
        try await perform("read page \(request.index)") { [client] in
            try await client.withConnection { connection -> CacheLookup in
                if let page = try await Self.page(connection, key: key, index: request.index, rowsAsTexts: rowsAsTexts) { return .page(page) }
                guard request.index > 0 else { return .miss }
                let first = try await connection.query(
                    "SELECT row_count, page_count, fetched_at FROM screens_pipe_cache_page WHERE key = \(key) AND page_index = 0",
                    logger: Self.quietLogger)
                for try await (rowCount, pageCount, fetchedAt) in first.decode((Int?, Int?, Double).self) {
                    // With a count (or numbered pages), short pages happen mid-list; only the count says where the list ends.
                    if let rowCount {
                        return request.startRow >= rowCount ? .endOfList(fetchedAt: Date(timeIntervalSince1970: fetchedAt)) : .miss
                    }
                    if let pageCount {
                        return request.index >= pageCount ? .endOfList(fetchedAt: Date(timeIntervalSince1970: fetchedAt)) : .miss
                    }
                }
                let short = try await connection.query(
                    """
                    SELECT fetched_at FROM screens_pipe_cache_page
                    WHERE key = \(key) AND page_index < \(request.index) AND rows_in_page < end_row - start_row AND continuation IS NULL
                    ORDER BY page_index LIMIT 1
                    """, logger: Self.quietLogger)
                for try await fetchedAt in short.decode(Double.self) {
                    return .endOfList(fetchedAt: Date(timeIntervalSince1970: fetchedAt))
                }
                return .miss
            }
        }
    }

    // MARK: - Management

    /// One summary per key, ordered by key.
    public func entries() async throws(ScreensPipeError) -> [CacheEntrySummary] {
        try await perform("list the entries") { [client] in
            let rows = try await client.query(
                """
                SELECT key,
                    (SELECT pipeline FROM screens_pipe_cache_page AS newest WHERE newest.key = page.key
                        ORDER BY fetched_at DESC LIMIT 1),
                    (SELECT row_count FROM screens_pipe_cache_page AS first WHERE first.key = page.key
                        AND first.page_index = 0),
                    COUNT(*), SUM(rows_in_page)::BIGINT, SUM(byte_size)::BIGINT, MIN(fetched_at), MAX(fetched_at)
                FROM screens_pipe_cache_page AS page GROUP BY key ORDER BY key COLLATE "C"
                """, logger: Self.quietLogger)
            var entries: [CacheEntrySummary] = []
            for try await (key, pipeline, rowCount, pages, count, bytes, oldest, newest) in rows.decode(
                (String, String, Int?, Int, Int, Int, Double, Double).self)
            {
                entries.append(
                    CacheEntrySummary(
                        key: key, pipeline: pipeline, pages: pages, rows: count, rowCount: rowCount, bytes: bytes,
                        oldestFetch: Date(timeIntervalSince1970: oldest), newestFetch: Date(timeIntervalSince1970: newest)))
            }
            return entries
        }
    }

    /// Totals over the whole cache; `fileSize` is the size of the page tables on the server.
    public func stats() async throws(ScreensPipeError) -> CacheStats {
        try await perform("read the totals") { [client, location] in
            let rows = try await client.query(
                """
                SELECT COUNT(DISTINCT key), COUNT(*), COALESCE(SUM(rows_in_page), 0)::BIGINT,
                    COALESCE(SUM(byte_size), 0)::BIGINT, MIN(fetched_at), MAX(fetched_at),
                    (pg_total_relation_size('screens_pipe_cache_page') + pg_total_relation_size('screens_pipe_cache_staged_page'))::BIGINT
                FROM screens_pipe_cache_page
                """, logger: Self.quietLogger)
            for try await (entries, pages, count, bytes, oldest, newest, size) in rows.decode(
                (Int, Int, Int, Int, Double?, Double?, Int).self)
            {
                return CacheStats(
                    path: location, fileSize: size, entries: entries, pages: pages, rows: count, bytes: bytes,
                    oldestFetch: oldest.map(Date.init(timeIntervalSince1970:)),
                    newestFetch: newest.map(Date.init(timeIntervalSince1970:)))
            }
            return CacheStats(
                path: location, fileSize: 0, entries: 0, pages: 0, rows: 0, bytes: 0, oldestFetch: nil, newestFetch: nil)
        }
    }

    /// Removes pages as ``CacheStore/clear(pipeline:keyPrefix:)`` does; returns how many.
    @discardableResult
    public func clear(pipeline: String? = nil, keyPrefix: String? = nil) async throws(ScreensPipeError) -> Int {
        try await perform("clear pages") { [client] in
            let rows = try await client.query(
                """
                WITH removed AS (
                    DELETE FROM screens_pipe_cache_page
                    WHERE (\(pipeline)::TEXT IS NULL OR pipeline = \(pipeline))
                        AND (\(keyPrefix)::TEXT IS NULL OR left(key, length(\(keyPrefix))) = \(keyPrefix))
                    RETURNING 1)
                SELECT COUNT(*) FROM removed
                """, logger: Self.quietLogger)
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }

    // MARK: - Class names

    /// The stored ids of `names` on `server`.
    public func classNameIds(server: String, names: [String]) async throws(ScreensPipeError) -> [String: Int64] {
        try await perform("read class names") { [client] in
            let rows = try await client.query(
                "SELECT value, class_name_id FROM screens_pipe_class_name WHERE server = \(server) AND value = ANY(\(names))",
                logger: Self.quietLogger)
            var ids: [String: Int64] = [:]
            for try await (name, id) in rows.decode((String, Int64).self) { ids[name] = id }
            return ids
        }
    }

    /// Stores `ids` for `server`, replacing what was there, in one transaction.
    public func storeClassNameIds(server: String, _ ids: [String: Int64]) async throws(ScreensPipeError) {
        let now = Date().timeIntervalSince1970
        try await perform("store class names") { [client] in
            try await client.withTransaction(logger: Self.quietLogger) { connection in
                for (name, id) in ids.sorted(by: { $0.key < $1.key }) {
                    try await connection.query(
                        """
                        INSERT INTO screens_pipe_class_name (server, value, class_name_id, fetched_at)
                        VALUES (\(server), \(name), \(id), \(now))
                        ON CONFLICT (server, value) DO UPDATE SET class_name_id = EXCLUDED.class_name_id, fetched_at = EXCLUDED.fetched_at
                        """, logger: Self.quietLogger)
                }
            }
        }
    }

    // MARK: - Fleet

    /// Takes `key`'s refresh lock, or serves the cache while another process holds it.
    ///
    /// When the lock is free, this process refreshes. When it is taken and a complete snapshot
    /// is published, that snapshot is served (if `mayServeCache`). With nothing published yet,
    /// or when the run must fetch, it waits for the lock; if the holder published a snapshot
    /// meanwhile, that one is served instead of fetching the list a second time.
    public func beginRefresh(key: String, mayServeCache: Bool) async throws(ScreensPipeError) -> CacheRefreshTurn {
        let connection = try await PostgresConnector.connect(target, purpose: "take the refresh lock of \(key)")
        do {
            let before = try await publishedMarker(key: key)
            var locked = false
            for try await value in try await connection.query(
                "SELECT pg_try_advisory_lock(hashtextextended(\("screens-pipe cache " + key), 0))", logger: Self.quietLogger
            ).decode(Bool.self) {
                locked = value
            }
            if !locked {
                if mayServeCache, before != nil {
                    try? await connection.close()
                    return .serveCache
                }
                // The answer comes when the lock is ours: read it to the end before going on.
                for try await _ in try await connection.query(
                    "SELECT pg_advisory_lock(hashtextextended(\("screens-pipe cache " + key), 0))", logger: Self.quietLogger) {}
                let after = try await publishedMarker(key: key)
                if mayServeCache, let after, after != before {
                    try? await connection.close()
                    return .serveCache
                }
            }
            // This process holds the lock: staged pages of a refresher that died are leftovers.
            try await client.query("DELETE FROM screens_pipe_cache_staged_page WHERE key = \(key)", logger: Self.quietLogger)
            return .refresh(PostgresRefreshLease(store: self, key: key, lockConnection: connection))
        } catch {
            try? await connection.close()
            throw PostgresConnector.failure(error, action: "take the refresh lock of \(key)", target: target)
        }
    }

    /// What identifies the published load of `key` (page 0's snapshot and fetch time), or nil.
    private func publishedMarker(key: String) async throws -> String? {
        let rows = try await client.query(
            """
            SELECT COALESCE(snapshot, '') || ' ' || fetched_at::TEXT FROM screens_pipe_cache_page
            WHERE key = \(key) AND page_index = 0
            """, logger: Self.quietLogger)
        for try await marker in rows.decode(String.self) { return marker }
        return nil
    }

    // MARK: - Internals

    private static func page(_ connection: PostgresConnection, key: String, index: Int, rowsAsTexts: Bool) async throws -> CachedPage? {
        let rows = try await connection.query(
            """
            SELECT pipeline, start_row, end_row, rows, row_count, continuation, fetched_at, byte_size, snapshot, page_count, row_index
            FROM screens_pipe_cache_page WHERE key = \(key) AND page_index = \(index)
            """, logger: quietLogger)
        for try await (pipeline, startRow, endRow, text, rowCount, continuation, fetchedAt, byteSize, snapshot, pageCount, rowIndex)
            in rows.decode((String, Int, Int, String, Int?, String?, Double, Int, String?, Int?, ByteBuffer?).self)
        {
            // Each row keeps its stored text, as in the SQLite cache: a replay writes what
            // the remote run wrote.
            var page = CachedPage(
                key: key, pipeline: pipeline, index: index, startRow: startRow, endRow: endRow, rows: [],
                rowCount: rowCount, continuation: continuation, fetchedAt: Date(timeIntervalSince1970: fetchedAt),
                byteSize: byteSize, snapshot: snapshot, pageCount: pageCount)
            try page.readRows(storedText: Array(text.utf8), rowIndex: rowIndex.map { Array($0.readableBytesView) }, asTexts: rowsAsTexts)
            return page
        }
        return nil
    }

    private static func rowCount(_ connection: PostgresConnection, key: String) async throws -> Int? {
        let rows = try await connection.query(
            "SELECT row_count FROM screens_pipe_cache_page WHERE key = \(key) AND page_index = 0", logger: quietLogger)
        for try await count in rows.decode(Int?.self) { return count }
        return nil
    }

    /// Runs database work, turning any failure into a `.cache` error that names the server.
    func perform<T: Sendable>(_ action: String, _ body: @Sendable () async throws -> T) async throws(ScreensPipeError) -> T {
        do {
            return try await body()
        } catch {
            throw PostgresConnector.failure(error, action: action + " in the cache", target: target)
        }
    }
}
