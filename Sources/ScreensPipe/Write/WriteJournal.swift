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

    /// Rows keyed by ``WriteKey/encode(_:)``.
    static let table = "write_journal_rows"
    /// The table of earlier versions, keyed by ``WriteKey/legacy(_:)``: read, never written;
    /// each of its rows moves to ``table`` when a row of the input claims it.
    static let legacyTable = "write_journal"

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
                        CREATE TABLE IF NOT EXISTS \(Self.table) (
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

    /// Every recorded row of this pipeline and target, by key, with those an earlier
    /// version recorded in the legacy form.
    func records() async throws(ScreensPipeError) -> JournalRecords {
        do {
            return try await pool.read { [pipeline, target] db in
                func fetch(_ table: String) throws -> [String: Record] {
                    var records: [String: Record] = [:]
                    let rows = try Row.fetchCursor(
                        db, sql: "SELECT row_key, state, content, entry_id FROM \(table) WHERE pipeline = ? AND target = ?",
                        arguments: [pipeline, target])
                    while let row = try rows.next() {
                        guard let state = State(rawValue: row["state"]) else { continue }
                        records[row["row_key"]] = Record(state: state, content: row["content"], entryId: row["entry_id"])
                    }
                    return records
                }
                let legacy = try db.tableExists(Self.legacyTable) ? try fetch(Self.legacyTable) : [:]
                return JournalRecords(current: try fetch(Self.table), legacy: legacy)
            }
        } catch {
            throw ScreensPipeError.cache("cannot read the write journal: \(error)")
        }
    }

    /// Moves an entry an earlier version recorded (``JournalRecords/claimLegacy(_:)``) to the
    /// current form, in one transaction: the legacy row is gone once the current one exists.
    func migrate<Row: JournaledRow>(_ row: Row, _ record: Record) async throws(ScreensPipeError) {
        do {
            try await pool.write { [pipeline, target] db in
                try db.execute(
                    sql: """
                        INSERT INTO \(Self.table) (pipeline, target, row_key, line, state, content, entry_id, recorded_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, julianday('now'))
                        ON CONFLICT (pipeline, target, row_key) DO NOTHING
                        """,
                    arguments: [pipeline, target, row.key, row.line, record.state.rawValue, record.content, record.entryId])
                try db.execute(
                    sql: "DELETE FROM \(Self.legacyTable) WHERE pipeline = ? AND target = ? AND row_key = ?",
                    arguments: [pipeline, target, row.legacyKey])
            }
        } catch {
            throw ScreensPipeError.cache("cannot update the write journal: \(error)")
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
                        INSERT INTO \(Self.table) (pipeline, target, row_key, line, state, content, entry_id, recorded_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, julianday('now'))
                        ON CONFLICT (pipeline, target, row_key) DO UPDATE SET
                            line = excluded.line, state = excluded.state, content = excluded.content,
                            entry_id = COALESCE(excluded.entry_id, \(Self.table).entry_id), recorded_at = excluded.recorded_at
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

    /// Puts back what the journal knew of an entry before a request about it was refused:
    /// the entry exists, with the values and id it had, so the next run updates it instead
    /// of creating a second one. (Only a refused create may be forgotten.)
    func restore<Row: JournaledRow>(_ row: Row, to record: Record) async throws(ScreensPipeError) {
        do {
            try await pool.write { [pipeline, target] db in
                try db.execute(
                    sql: """
                        UPDATE \(Self.table) SET state = ?, content = ?, entry_id = ?, recorded_at = julianday('now')
                        WHERE pipeline = ? AND target = ? AND row_key = ?
                        """,
                    arguments: [record.state.rawValue, record.content, record.entryId, pipeline, target, row.key])
            }
        } catch {
            throw ScreensPipeError.cache("cannot update the write journal: \(error)")
        }
    }

    /// Forgets every row this pipeline and target keep pending (`write --forget-pending`),
    /// after the user checked on the portal that their requests were not carried out: a row
    /// without an entry id is forgotten (the next run creates it), and one with an id (an
    /// update) keeps its entry with unknown values (the next run updates it). Returns how
    /// many rows it changed.
    func forgetPending() async throws(ScreensPipeError) -> Int {
        do {
            return try await pool.write { [pipeline, target] db in
                var changed = 0
                for table in [Self.table, Self.legacyTable] {
                    guard try db.tableExists(table) else { continue }
                    try db.execute(
                        sql: "DELETE FROM \(table) WHERE pipeline = ? AND target = ? AND state = 'pending' AND entry_id IS NULL",
                        arguments: [pipeline, target])
                    changed += db.changesCount
                    try db.execute(
                        sql: "UPDATE \(table) SET state = 'updated', content = '' WHERE pipeline = ? AND target = ? AND state = 'pending'",
                        arguments: [pipeline, target])
                    changed += db.changesCount
                }
                return changed
            }
        } catch {
            throw ScreensPipeError.cache("cannot update the write journal: \(error)")
        }
    }

    /// Forgets a row that was pending and then refused by the portal: nothing was created.
    func forget<Row: JournaledRow>(_ rows: [Row]) async throws(ScreensPipeError) {
        guard !rows.isEmpty else { return }
        do {
            try await pool.write { [pipeline, target] db in
                for row in rows {
                    try db.execute(
                        sql: "DELETE FROM \(Self.table) WHERE pipeline = ? AND target = ? AND row_key = ?",
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
    /// The declared key fields' values (``WriteKey/encode(_:)``): the same text for the same
    /// entry, and a different text for a different one.
    var key: String { get }
    /// The values the portal stores, to tell a changed row from one already written.
    var content: String { get }
    /// ``key`` as journals of earlier versions wrote it (the same when its form never changed).
    var legacyKey: String { get }
    /// ``content`` as journals of earlier versions wrote it.
    var legacyContent: String { get }
}

extension JournaledRow {
    var legacyKey: String { key }
    var legacyContent: String { content }
}

/// What the journal knows of a pipeline and target: the records by key, and those an
/// earlier version wrote with keys in the legacy form, until a row claims them.
struct JournalRecords: Sendable {
    private var current: [String: WriteJournal.Record]
    private var legacy: [String: WriteJournal.Record]

    init(current: [String: WriteJournal.Record] = [:], legacy: [String: WriteJournal.Record] = [:]) {
        self.current = current
        self.legacy = legacy
    }

    /// The record of the entry with this key (current form).
    subscript(key: String) -> WriteJournal.Record? {
        get { current[key] }
        set { current[key] = newValue }
    }

    /// The legacy record of `row`'s entry, when the journal has none in the current form:
    /// moved to the current form (its content too, when it holds the row's values), so it
    /// answers for this row only. The legacy form could not tell some rows apart; the
    /// first of them gets the record, and the others are new entries, never its entry.
    mutating func claimLegacy<Row: JournaledRow>(_ row: Row) -> WriteJournal.Record? {
        guard current[row.key] == nil, var record = legacy.removeValue(forKey: row.legacyKey) else { return nil }
        if record.content == row.legacyContent { record.content = row.content }
        current[row.key] = record
        return record
    }
}

extension BookmarkRow: JournaledRow {}
