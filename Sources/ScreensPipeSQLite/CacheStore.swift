import ScreensPipeCore
import ScreensBus
import Synchronization
internal import Foundation
internal import GRDB
public import Logging

/// The SQLite database that holds cached pages.
///
/// One file, WAL mode, so readers never block the writer and two runs can share it; a busy
/// timeout makes a second process wait for the write lock instead of failing. Every page
/// write is one transaction, so a process killed at any moment leaves the last committed
/// state: a page is either fully stored or not at all.
///
/// A run opens the store with ``open(spec:environment:)`` and then only makes async page
/// calls (``write(key:pipeline:page:)``, ``read(key:page:)``, ``lookup(key:request:rowsAsTexts:)``):
/// they suspend while SQLite works (or waits out the busy timeout) on GRDB's own threads,
/// never holding a thread of the cooperative pool.
public final class CacheStore: CacheBackend {
    /// The database file.
    public let path: String
    /// The database file.
    public var location: String { path }
    /// How long a load waits for another process's load of the same list (``beginRefresh(key:mayServeCache:)``).
    public let lockWait: Duration
    let pool: DatabasePool

    /// How long a write waits for another process's write lock before it fails.
    private static let busyTimeout: Double = 60

    /// Opens (creating if needed) the cache database at `path`.
    ///
    /// Missing directories are created with mode 0700; with `ownsDirectory` (the default
    /// location, or a `--cache-dir`) the directory is tightened to 0700 even if it existed.
    /// The database file and its -wal/-shm companions get mode 0600, whatever the umask.
    public init(path: String, ownsDirectory: Bool = false, lockWait: Duration = RunLock.defaultWait) throws(ScreensPipeError) {
        self.path = path
        self.lockWait = lockWait
        try CacheLocation.prepareDirectory(CacheLocation.parent(of: path), owned: ownsDirectory)
        try CacheLocation.prepareFile(path)
        var configuration = Configuration()
        configuration.label = "screens-pipe.cache"
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.prepareDatabase { db in
            // In WAL mode NORMAL loses no committed transaction when the process dies; only
            // a power cut can lose the last ones, and the database stays consistent either way.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            pool = try Self.openPool(path: path, configuration: configuration)
        } catch {
            throw ScreensPipeError.cache("cannot open the cache database \(path): \(error)")
        }
        CacheLocation.tightenCompanions(of: path)
    }

    /// Opens the pool and brings the schema up to date. Two processes creating one database
    /// at once race to switch it to WAL, and SQLite answers the loser `SQLITE_BUSY` at once,
    /// without calling the busy handler (waiting there could deadlock). The loser tries again,
    /// backing off, for as long as the busy timeout would have waited.
    private static func openPool(path: String, configuration: Configuration) throws -> DatabasePool {
        let deadline = ContinuousClock.now + .seconds(busyTimeout)
        var delay = Duration.milliseconds(5)
        while true {
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try CacheSchema.migrate(pool)
                return pool
            } catch let error as DatabaseError
                where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) && ContinuousClock.now < deadline
            {
                // A thread of its own (see ``open(spec:environment:)``), so sleeping blocks no task.
                Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds))
                delay = min(delay * 2, .milliseconds(200))
            }
        }
    }

    /// Opens the database a pipeline's `cache:` section names, or the default one.
    public convenience init(spec: CacheSpec?, environment: [String: String]) throws(ScreensPipeError) {
        let lockWait = spec?.lockWait ?? RunLock.defaultWait
        if let path = spec?.path {
            try self.init(path: path, lockWait: lockWait)
        } else {
            try self.init(path: CacheLocation.runPath(environment: environment), ownsDirectory: true, lockWait: lockWait)
        }
    }

    /// Opens the database as ``init(spec:environment:)`` does, on a thread of its own: opening
    /// brings the schema up to date, which waits for another process's write lock (up to the
    /// busy timeout), and that wait must not hold a thread of the cooperative pool.
    public static func open(spec: CacheSpec?, environment: [String: String]) async throws(ScreensPipeError) -> CacheStore {
        let opened: Result<CacheStore, ScreensPipeError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    returning: Result { () throws(ScreensPipeError) in try CacheStore(spec: spec, environment: environment) })
            }
            thread.name = "screens-pipe.cache-open"
            thread.start()
        }
        return try opened.get()
    }

    /// `$SCREENS_PIPE_CACHE_DIR/cache.sqlite`, else `$XDG_CACHE_HOME/screens-pipe/cache.sqlite`,
    /// else `~/.cache/screens-pipe/cache.sqlite`.
    public static func defaultPath(environment: [String: String]) -> String {
        CacheLocation.defaultPath(environment: environment)
    }

    // MARK: - Loads

    /// Takes `key`'s load lock, waiting up to ``lockWait`` for another process's load of the
    /// list (see ``SQLiteRefreshLease``). The caller decides afterwards whether that load
    /// made its own unnecessary (`cache-first` reads what it stored).
    ///
    /// A second load of the same list in this process (a fan-out whose parent rows repeat a
    /// value) goes on beside the first, as it always did: it must not wait for a lock that
    /// the first holds while the first waits, in the ordered relay, for it to be delivered.
    public func beginRefresh(key: String, mayServeCache: Bool) async throws(ScreensPipeError) -> CacheRefreshTurn {
        try await beginRefresh(key: key, mayServeCache: mayServeCache, logger: Logger(label: "screens-pipe.cache"))
    }

    /// ``beginRefresh(key:mayServeCache:)``, saying through `logger` whom it waits for.
    public func beginRefresh(key: String, mayServeCache: Bool, logger: Logger) async throws(ScreensPipeError) -> CacheRefreshTurn {
        let loadKey = path + "\u{0}" + key
        guard Self.loadsInProcess.withLock({ $0.insert(loadKey).inserted }) else { return .solo }
        let lock: RunLock
        do throws(ScreensPipeError) {
            lock = try await RunLock.acquire(
                .cacheRefresh(key: key), at: .directory(CacheLocation.parent(of: path)), wait: lockWait, logger: logger)
        } catch {
            Self.endLoadInProcess(loadKey)
            throw error
        }
        return .refresh(SQLiteRefreshLease(store: self, key: key, lock: lock) { Self.endLoadInProcess(loadKey) })
    }

    /// The lists (database path and key) this process holds a load lock of.
    private static let loadsInProcess = Mutex<Set<String>>([])

    private static func endLoadInProcess(_ loadKey: String) {
        _ = loadsInProcess.withLock { $0.remove(loadKey) }
    }

    // MARK: - Pages

    /// Stores `page` under `key`, replacing what was there, in one transaction.
    ///
    /// A page that shows where the list ends also removes the key's pages past that end
    /// (the list got shorter since they were stored): page 0 with a row count removes the
    /// pages starting at or after the count; without a count, a short page removes the
    /// pages after it.
    public func write(key: String, pipeline: String, page: FetchedPage, snapshot: String? = nil) async throws(ScreensPipeError) {
        let (text, index) = page.storedRows
        let request = page.request
        try await performAsync("store page \(request.index)") { [pool] in
            try await pool.write { db in
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO page (key, page_index, pipeline, start_row, end_row, rows,
                            rows_in_page, row_count, continuation, fetched_at, byte_size, snapshot, page_count, row_index)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        key, request.index, pipeline, request.startRow, request.endRow, text,
                        page.rowsInPage, page.rowCount, page.continuation,
                        page.fetchedAt.timeIntervalSince1970, text.utf8.count, snapshot, page.pageCount,
                        index.map { Data($0) },
                    ])
                if request.index == 0, let rowCount = page.rowCount {
                    try db.execute(
                        sql: "DELETE FROM page WHERE key = ? AND page_index > 0 AND start_row >= ?",
                        arguments: [key, rowCount])
                } else if request.index == 0, let pageCount = page.pageCount {
                    try db.execute(
                        sql: "DELETE FROM page WHERE key = ? AND page_index >= ?", arguments: [key, max(1, pageCount)])
                } else if page.endsAsShortPage, page.pageCount == nil,
                    try Self.rowCount(db, key: key) == nil
                {
                    try db.execute(
                        sql: "DELETE FROM page WHERE key = ? AND page_index > ?", arguments: [key, request.index])
                }
            }
        }
    }

    /// The stored page `page` of `key`, or nil.
    public func read(key: String, page: Int) async throws(ScreensPipeError) -> CachedPage? {
        try await performAsync("read page \(page)") { [pool] in
            try await pool.read { db in try Self.page(db, key: key, index: page, rowsAsTexts: false) }
        }
    }

    /// What the cache knows about `request`'s page of `key`: the page, the end of the list,
    /// or nothing. See ``CacheLookup/endOfList(fetchedAt:)`` for how the end is known.
    public func lookup(key: String, request: PageRequest, rowsAsTexts: Bool) async throws(ScreensPipeError) -> CacheLookup {
        try await performAsync("read page \(request.index)") { [pool] in
            try await pool.read { db in
                if let page = try Self.page(db, key: key, index: request.index, rowsAsTexts: rowsAsTexts) { return .page(page) }
                guard request.index > 0 else { return .miss }
                if let first = try Row.fetchOne(
                    db, sql: "SELECT row_count, page_count, fetched_at FROM page WHERE key = ? AND page_index = 0",
                    arguments: [key])
                {
                    // With a count (or numbered pages), short pages happen mid-list (permission
                    // filtering); only the count says where the list ends.
                    if let rowCount: Int = first["row_count"] {
                        guard request.startRow >= rowCount else { return .miss }
                        return .endOfList(fetchedAt: Date(timeIntervalSince1970: first["fetched_at"]))
                    }
                    if let pageCount: Int = first["page_count"] {
                        guard request.index >= pageCount else { return .miss }
                        return .endOfList(fetchedAt: Date(timeIntervalSince1970: first["fetched_at"]))
                    }
                }
                if let shortPageTime = try Double.fetchOne(
                    db,
                    sql: """
                        SELECT fetched_at FROM page
                        WHERE key = ? AND page_index < ? AND rows_in_page < end_row - start_row AND continuation IS NULL
                        ORDER BY page_index LIMIT 1
                        """,
                    arguments: [key, request.index])
                {
                    return .endOfList(fetchedAt: Date(timeIntervalSince1970: shortPageTime))
                }
                return .miss
            }
        }
    }

    // MARK: - Management

    /// One summary per key, ordered by key.
    public func entries() throws(ScreensPipeError) -> [CacheEntrySummary] {
        try perform("list the entries") {
            try pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT key,
                            (SELECT pipeline FROM page AS newest WHERE newest.key = page.key
                                ORDER BY fetched_at DESC LIMIT 1) AS pipeline,
                            (SELECT row_count FROM page AS first WHERE first.key = page.key
                                AND first.page_index = 0) AS row_count,
                            COUNT(*) AS pages, SUM(rows_in_page) AS rows, SUM(byte_size) AS bytes,
                            MIN(fetched_at) AS oldest, MAX(fetched_at) AS newest
                        FROM page GROUP BY key ORDER BY key
                        """
                ).map { row in
                    CacheEntrySummary(
                        key: row["key"], pipeline: row["pipeline"], pages: row["pages"], rows: row["rows"],
                        rowCount: row["row_count"], bytes: row["bytes"],
                        oldestFetch: Date(timeIntervalSince1970: row["oldest"]),
                        newestFetch: Date(timeIntervalSince1970: row["newest"]))
                }
            }
        }
    }

    /// Totals over the whole database.
    public func stats() throws(ScreensPipeError) -> CacheStats {
        let row = try perform("read the totals") {
            try pool.read { db in
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(DISTINCT key) AS entries, COUNT(*) AS pages,
                            COALESCE(SUM(rows_in_page), 0) AS rows, COALESCE(SUM(byte_size), 0) AS bytes,
                            MIN(fetched_at) AS oldest, MAX(fetched_at) AS newest
                        FROM page
                        """)
            }
        }
        let oldest: Double? = row?["oldest"]
        let newest: Double? = row?["newest"]
        return CacheStats(
            path: path, fileSize: CacheLocation.fileSize(path) + CacheLocation.fileSize(path + "-wal"),
            entries: row?["entries"] ?? 0, pages: row?["pages"] ?? 0, rows: row?["rows"] ?? 0,
            bytes: row?["bytes"] ?? 0, oldestFetch: oldest.map(Date.init(timeIntervalSince1970:)),
            newestFetch: newest.map(Date.init(timeIntervalSince1970:)))
    }

    /// Removes the pages stored by `pipeline` and/or under keys starting with `keyPrefix`
    /// (both given: pages matching both); neither given removes every page.
    /// Returns how many pages were removed.
    @discardableResult
    public func clear(pipeline: String? = nil, keyPrefix: String? = nil) throws(ScreensPipeError) -> Int {
        try perform("clear pages") {
            try pool.write { db in
                try db.execute(
                    sql: """
                        DELETE FROM page
                        WHERE (?1 IS NULL OR pipeline = ?1)
                            AND (?2 IS NULL OR substr(key, 1, length(?2)) = ?2)
                        """,
                    arguments: [pipeline, keyPrefix])
                return db.changesCount
            }
        }
    }

    /// The lines of `PRAGMA integrity_check`: `["ok"]` for a sound database.
    public func integrityCheck() throws(ScreensPipeError) -> [String] {
        try perform("check integrity") {
            try pool.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        }
    }

    // MARK: - Internals

    private static func page(_ db: Database, key: String, index: Int, rowsAsTexts: Bool) throws -> CachedPage? {
        // A cursor's row reads straight from SQLite, so the rows text is borrowed, not copied twice.
        let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM page WHERE key = ? AND page_index = ?", arguments: [key, index])
        guard let row = try cursor.next() else { return nil }
        // The stored text is read as bytes (no String in between) and each row keeps its
        // bytes, the text it was received as: a row nothing changes is written from them.
        let text: [UInt8] = try row.withUnsafeData(named: "rows") { data in data?.withUnsafeBytes { [UInt8]($0) } ?? [] }
        let rowIndex: [UInt8]? = rowsAsTexts ? try row.withUnsafeData(named: "row_index") { data in data.map { [UInt8]($0) } } : nil
        var page = CachedPage(
            key: key, pipeline: row["pipeline"], index: index, startRow: row["start_row"], endRow: row["end_row"],
            rows: [], rowCount: row["row_count"], continuation: row["continuation"],
            fetchedAt: Date(timeIntervalSince1970: row["fetched_at"]), byteSize: row["byte_size"], snapshot: row["snapshot"],
            pageCount: row["page_count"])
        try page.readRows(storedText: text, rowIndex: rowIndex, asTexts: rowsAsTexts)
        return page
    }

    private static func rowCount(_ db: Database, key: String) throws -> Int? {
        try Int.fetchOne(db, sql: "SELECT row_count FROM page WHERE key = ? AND page_index = 0", arguments: [key])
    }

    /// Runs an async database operation, turning any failure into a `.cache` error that
    /// names the file, and GRDB's cancellation into a `.cancelled` one.
    func performAsync<T: Sendable>(
        _ action: String, _ body: @Sendable () async throws -> T
    ) async throws(ScreensPipeError) -> T {
        do {
            return try await body()
        } catch let error as ScreensPipeError {
            throw error
        } catch is CancellationError {
            throw ScreensPipeError.cancelled("cancelled before the cache could \(action)")
        } catch {
            throw ScreensPipeError.cache("cannot \(action) in the cache database \(path): \(error)")
        }
    }

    /// Runs a database operation, turning any failure into a `.cache` error that names the file.
    private func perform<T>(_ action: String, _ body: () throws -> T) throws(ScreensPipeError) -> T {
        do {
            return try body()
        } catch let error as ScreensPipeError {
            throw error
        } catch {
            throw ScreensPipeError.cache("cannot \(action) in the cache database \(path): \(error)")
        }
    }
}
