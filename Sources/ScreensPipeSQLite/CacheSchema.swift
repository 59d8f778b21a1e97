import ScreensPipeCore
internal import GRDB

/// The versioned schema of the cache database. Add a migration for every change; never
/// edit a registered one (databases in the field have run it already).
enum CacheSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: pages") { db in
            // One row per page. `rows` is the JSON array text ScreensBus writes, so 64-bit
            // ids and strings come back exactly; `rows_in_page` and `byte_size` are kept so
            // `cache list` and `stats` need not parse it.
            try db.execute(
                sql: """
                    CREATE TABLE page (
                        key TEXT NOT NULL,
                        page_index INTEGER NOT NULL,
                        pipeline TEXT NOT NULL,
                        start_row INTEGER NOT NULL,
                        end_row INTEGER NOT NULL,
                        rows TEXT NOT NULL,
                        rows_in_page INTEGER NOT NULL,
                        row_count INTEGER,
                        continuation TEXT,
                        fetched_at DOUBLE NOT NULL,
                        byte_size INTEGER NOT NULL,
                        PRIMARY KEY (key, page_index)
                    );
                    CREATE INDEX page_by_pipeline ON page (pipeline);
                    """)
        }
        migrator.registerMigration("v2: snapshots") { db in
            // The load that stored each page, so a fallback can refuse to mix two loads of
            // one list. Pages stored before this migration have none (NULL).
            try db.execute(sql: "ALTER TABLE page ADD COLUMN snapshot TEXT")
        }
        migrator.registerMigration("page counts") { db in
            // A headless list without totalCount ends at its lastPage: page 0 keeps it, so a
            // cached load ends where the remote one did.
            try db.execute(sql: "ALTER TABLE page ADD COLUMN page_count INTEGER")
        }
        migrator.registerMigration("class names") { db in
            // A portal's asset class name ids (`classes:`), by server: they never change on a
            // running portal, so a second run needs no lookup.
            try db.execute(
                sql: """
                    CREATE TABLE class_name (
                        server TEXT NOT NULL,
                        value TEXT NOT NULL,
                        class_name_id INTEGER NOT NULL,
                        fetched_at DOUBLE NOT NULL,
                        PRIMARY KEY (server, value)
                    )
                    """)
        }
        migrator.registerMigration("list states") { db in
            // Incremental cursors and resume checkpoints (ListStateStore), one opaque JSON
            // document per pipeline and list, beside the pages they describe.
            try db.execute(
                sql: """
                    CREATE TABLE list_state (
                        pipeline TEXT NOT NULL,
                        list TEXT NOT NULL,
                        document TEXT NOT NULL,
                        committed_at DOUBLE NOT NULL,
                        PRIMARY KEY (pipeline, list)
                    )
                    """)
        }
        migrator.registerMigration("row indexes") { db in
            // Where each row of `rows` ends, sealed by a digest of the text: a replay that
            // keeps rows as texts reads them back without checking them again. NULL for
            // pages stored before, and for pages without their rows' texts.
            try db.execute(sql: "ALTER TABLE page ADD COLUMN row_index BLOB")
        }
        migrator.registerMigration("write outbox") { db in
            // Pending writes of the liferay sink's offline policies, one per key, replayed
            // in `sequence` order (OutboxStorage).
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS \(outboxTable) (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        pipeline TEXT NOT NULL, target TEXT NOT NULL, row_key TEXT NOT NULL,
                        operation TEXT NOT NULL, row TEXT NOT NULL,
                        created_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT, base_version TEXT,
                        UNIQUE (pipeline, target, row_key))
                    """)
        }
        migrator.registerMigration("write journal") { db in
            // The liferay sink's journal (WriteJournalStorage): files made before this
            // migration have the table already, created when a write first opened it.
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS \(journalTable) (
                        pipeline TEXT NOT NULL, target TEXT NOT NULL, row_key TEXT NOT NULL,
                        line INTEGER NOT NULL, state TEXT NOT NULL, content TEXT NOT NULL,
                        entry_id INTEGER, recorded_at REAL NOT NULL,
                        PRIMARY KEY (pipeline, target, row_key))
                    """)
        }
        return migrator
    }

    /// The outbox's table.
    static let outboxTable = "write_outbox"
    /// The write journal's table.
    static let journalTable = "write_journal_rows"

    /// Brings `pool` up to the current schema.
    ///
    /// Two runs that open a new file at the same moment both see it unmigrated; the loser's
    /// CREATE TABLE then fails on the winner's table. Checking again after a failure tells
    /// that case (the schema is complete) from a real error.
    static func migrate(_ pool: DatabasePool) throws {
        let migrator = migrator
        var attempt = 0
        while true {
            do {
                try migrator.migrate(pool)
                return
            } catch {
                attempt += 1
                if try pool.read(migrator.hasCompletedMigrations) { return }
                if attempt >= 3 { throw error }
            }
        }
    }
}
