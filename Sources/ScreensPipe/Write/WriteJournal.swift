internal import GRDB

/// Each row's outcome, kept in the cache database next to the pages (its own table), so a
/// rerun skips what was done and resolves what a crash left undecided.
///
/// A row is `pending` from just before its request is sent until its answer is recorded;
/// a process killed in between leaves it `pending`, and the next run looks the entry up by
/// its key before it creates anything. Rows are identified by pipeline, target (server and
/// site, never credentials) and key.
struct WriteJournal: Sendable {
    enum State: String, Sendable {
        case pending, created, updated, unchanged
    }

    struct Record: Sendable {
        var state: State
        /// The stored values when the outcome was recorded (``JournaledRow/content``).
        var content: String
        var entryId: Int64?
    }

    private let pool: DatabasePool
    let pipeline: String
    let target: String
    /// Whether writers this journal never hears of may write the same target: replicas on
    /// several machines that take turns through a PostgreSQL run lock, each with a journal
    /// of its own. Rows this journal does not know are then looked up by key before they
    /// are created (architecture.md, "Running twice at once").
    var othersMayWrite = false

    /// Opens the journal in `store`'s database, creating its table on first use.
    init(store: CacheStore, pipeline: String, target: String) async throws(ScreensPipeError) {
        pool = store.pool
        self.pipeline = pipeline
        self.target = target
        do {
            try await pool.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS write_journal (
                            pipeline TEXT NOT NULL, target TEXT NOT NULL, row_key TEXT NOT NULL,
                            line INTEGER NOT NULL, state TEXT NOT NULL, content TEXT NOT NULL,
                            entry_id INTEGER, recorded_at REAL NOT NULL,
                            PRIMARY KEY (pipeline, target, row_key))
                        """)
            }
        } catch {
            throw ScreensPipeError.cache("cannot open the write journal in \(store.path): \(error)")
        }
    }

    /// Every recorded row of this pipeline and target, by key.
    func records() async throws(ScreensPipeError) -> [String: Record] {
        do {
            return try await pool.read { [pipeline, target] db in
                var records: [String: Record] = [:]
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT row_key, state, content, entry_id FROM write_journal WHERE pipeline = ? AND target = ?",
                    arguments: [pipeline, target])
                while let row = try rows.next() {
                    guard let state = State(rawValue: row["state"]) else { continue }
                    records[row["row_key"]] = Record(state: state, content: row["content"], entryId: row["entry_id"])
                }
                return records
            }
        } catch {
            throw ScreensPipeError.cache("cannot read the write journal: \(error)")
        }
    }

    /// Records rows' states in one transaction: all of them or none.
    func record<Row: JournaledRow>(_ entries: [(row: Row, state: State, entryId: Int64?)]) async throws(ScreensPipeError) {
        guard !entries.isEmpty else { return }
        do {
            try await pool.write { [pipeline, target] db in
                // One statement compiled once for the whole batch.
                let statement = try db.cachedStatement(
                    sql: """
                        INSERT INTO write_journal (pipeline, target, row_key, line, state, content, entry_id, recorded_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, julianday('now'))
                        ON CONFLICT (pipeline, target, row_key) DO UPDATE SET
                            line = excluded.line, state = excluded.state, content = excluded.content,
                            entry_id = COALESCE(excluded.entry_id, write_journal.entry_id), recorded_at = excluded.recorded_at
                        """)
                for entry in entries {
                    try statement.execute(arguments: [
                        pipeline, target, entry.row.key, entry.row.line, entry.state.rawValue, entry.row.content, entry.entryId,
                    ])
                }
            }
        } catch {
            throw ScreensPipeError.cache("cannot record write outcomes in the journal: \(error)")
        }
    }

    /// Forgets a row that was pending and then refused by the portal: nothing was created.
    func forget<Row: JournaledRow>(_ rows: [Row]) async throws(ScreensPipeError) {
        guard !rows.isEmpty else { return }
        do {
            try await pool.write { [pipeline, target] db in
                for row in rows {
                    try db.execute(
                        sql: "DELETE FROM write_journal WHERE pipeline = ? AND target = ? AND row_key = ?",
                        arguments: [pipeline, target, row.key])
                }
            }
        } catch {
            throw ScreensPipeError.cache("cannot update the write journal: \(error)")
        }
    }
}

/// A row as the journal knows it: what identifies the entry, and what it holds.
protocol JournaledRow: Sendable {
    /// The input line (or list position) the row came from.
    var line: Int { get }
    /// The declared key fields' values, joined: the same text for the same entry.
    var key: String { get }
    /// The values the portal stores, to tell a changed row from one already written.
    var content: String { get }
}

extension BookmarkRow: JournaledRow {}
