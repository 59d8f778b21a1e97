import ScreensPipeCore
internal import PostgresNIO
internal import Logging

/// The tables screens-pipe keeps in a PostgreSQL database, all named `screens_pipe_*` so they
/// can live beside anything else. Created when missing; every statement is idempotent, and
/// concurrent first runs are serialised by a transaction-level advisory lock.
enum PostgresSchema {
    static let statements: [PostgresQuery] = [
        // Pages as the SQLite cache keeps them: `rows` is the JSON array text ScreensBus wrote
        // (text, not jsonb, so 64-bit ids, key order and escapes come back byte for byte).
        """
        CREATE TABLE IF NOT EXISTS screens_pipe_cache_page (
            key TEXT NOT NULL, page_index BIGINT NOT NULL, pipeline TEXT NOT NULL,
            start_row BIGINT NOT NULL, end_row BIGINT NOT NULL, rows TEXT NOT NULL,
            rows_in_page BIGINT NOT NULL, row_count BIGINT, continuation TEXT,
            fetched_at DOUBLE PRECISION NOT NULL, byte_size BIGINT NOT NULL, snapshot TEXT, page_count BIGINT,
            PRIMARY KEY (key, page_index))
        """,
        "CREATE INDEX IF NOT EXISTS screens_pipe_cache_page_by_pipeline ON screens_pipe_cache_page (pipeline)",
        // A refresh in progress: pages of one load, invisible to readers until the load is
        // complete and replaces the published pages in one transaction.
        """
        CREATE TABLE IF NOT EXISTS screens_pipe_cache_staged_page (
            key TEXT NOT NULL, snapshot TEXT NOT NULL, page_index BIGINT NOT NULL, pipeline TEXT NOT NULL,
            start_row BIGINT NOT NULL, end_row BIGINT NOT NULL, rows TEXT NOT NULL,
            rows_in_page BIGINT NOT NULL, row_count BIGINT, continuation TEXT,
            fetched_at DOUBLE PRECISION NOT NULL, byte_size BIGINT NOT NULL, page_count BIGINT,
            ends_chain BOOLEAN NOT NULL,
            PRIMARY KEY (key, snapshot, page_index))
        """,
        // Where each row of `rows` ends, sealed by a digest (as in the SQLite cache): a replay
        // reads the rows by it without checking them again. NULL for pages stored before.
        "ALTER TABLE screens_pipe_cache_page ADD COLUMN IF NOT EXISTS row_index BYTEA",
        "ALTER TABLE screens_pipe_cache_staged_page ADD COLUMN IF NOT EXISTS row_index BYTEA",
        """
        CREATE TABLE IF NOT EXISTS screens_pipe_class_name (
            server TEXT NOT NULL, value TEXT NOT NULL, class_name_id BIGINT NOT NULL,
            fetched_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (server, value))
        """,
        """
        CREATE TABLE IF NOT EXISTS screens_pipe_list_state (
            pipeline TEXT NOT NULL, list TEXT NOT NULL, document TEXT NOT NULL,
            committed_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (pipeline, list))
        """,
        // Who holds a run lock (Locking/PostgresAdvisoryLock.swift): information for the
        // message a waiting run prints; the lock itself is an advisory lock.
        """
        CREATE TABLE IF NOT EXISTS screens_pipe_run_lock (
            scope TEXT PRIMARY KEY, pid BIGINT NOT NULL, host TEXT NOT NULL, since DOUBLE PRECISION NOT NULL)
        """,
    ]

    /// What the last statements create: a database that has them has everything.
    private static let newestObjects: PostgresQuery = """
        SELECT to_regclass('screens_pipe_run_lock') IS NOT NULL AND EXISTS (
            SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
            AND table_name = 'screens_pipe_cache_staged_page' AND column_name = 'row_index')
        """

    /// Creates what is missing, in one transaction.
    ///
    /// A database that already has everything is left alone: the statements take table
    /// locks even when they change nothing (`ALTER TABLE ... ADD COLUMN IF NOT EXISTS` an
    /// exclusive one, `CREATE INDEX IF NOT EXISTS` a share lock), and a process opening the
    /// cache while another publishes a refresh into those tables deadlocked with it.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        var current = false
        for try await value in try await connection.query(newestObjects, logger: logger).decode(Bool.self) { current = value }
        if current { return }
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended('screens-pipe schema', 0))", logger: logger)
            for statement in statements {
                try await connection.query(statement, logger: logger)
            }
        }
    }

    /// Opens a connection of its own to `target` and brings the schema up to date: a refused
    /// connection, a wrong password or a database that refuses the tables fails here, with the
    /// reason, before any page is fetched.
    static func prepare(_ target: PostgresTarget, purpose: String) async throws(ScreensPipeError) {
        let connection = try await PostgresConnector.connect(target, purpose: purpose)
        let logger = Logger(label: "screens-pipe.postgres")
        do {
            try await migrate(connection, logger: logger)
        } catch {
            try? await connection.close()
            throw PostgresConnector.failure(error, action: "create the screens_pipe tables", target: target)
        }
        try? await connection.close()
    }
}
