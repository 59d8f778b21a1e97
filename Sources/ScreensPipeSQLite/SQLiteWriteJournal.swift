internal import GRDB
import ScreensPipeCore

/// The write journal's records in the SQLite cache database (the `write_journal_rows`
/// table), one pipeline and target per value. Every method is one transaction, so a
/// process killed at any moment leaves the records before it or after it.
struct SQLiteWriteJournal: WriteJournalStorage {
    /// Rows keyed by ``WriteKey/encode(_:)``.
    static let table = CacheSchema.journalTable
    /// The table of earlier versions, keyed by ``WriteKey/legacy(_:)``: read, never written;
    /// each of its rows moves to ``table`` when a row of the input claims it.
    static let legacyTable = "write_journal"

    private let pool: DatabasePool
    let pipeline: String
    let target: String

    /// The journal in `store`'s database; its table is part of the cache schema.
    init(store: CacheStore, pipeline: String, target: String) {
        pool = store.pool
        self.pipeline = pipeline
        self.target = target
    }

    func records() async throws(ScreensPipeError) -> (current: [String: WriteJournal.Record], legacy: [String: WriteJournal.Record]) {
        do {
            return try await pool.read { [pipeline, target] db in
                func fetch(_ table: String) throws -> [String: WriteJournal.Record] {
                    var records: [String: WriteJournal.Record] = [:]
                    let rows = try Row.fetchCursor(
                        db, sql: "SELECT row_key, state, content, entry_id FROM \(table) WHERE pipeline = ? AND target = ?",
                        arguments: [pipeline, target])
                    while let row = try rows.next() {
                        guard let state = WriteJournal.State(rawValue: row["state"]) else { continue }
                        records[row["row_key"]] = WriteJournal.Record(state: state, content: row["content"], entryId: row["entry_id"])
                    }
                    return records
                }
                let legacy = try db.tableExists(Self.legacyTable) ? try fetch(Self.legacyTable) : [:]
                return (try fetch(Self.table), legacy)
            }
        } catch {
            throw ScreensPipeError.cache("cannot read the write journal: \(error)")
        }
    }

    func migrate(key: String, line: Int, legacyKey: String, record: WriteJournal.Record) async throws(ScreensPipeError) {
        do {
            try await pool.write { [pipeline, target] db in
                try db.execute(
                    sql: """
                        INSERT INTO \(Self.table) (pipeline, target, row_key, line, state, content, entry_id, recorded_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, julianday('now'))
                        ON CONFLICT (pipeline, target, row_key) DO NOTHING
                        """,
                    arguments: [pipeline, target, key, line, record.state.rawValue, record.content, record.entryId])
                try db.execute(
                    sql: "DELETE FROM \(Self.legacyTable) WHERE pipeline = ? AND target = ? AND row_key = ?",
                    arguments: [pipeline, target, legacyKey])
            }
        } catch {
            throw ScreensPipeError.cache("cannot update the write journal: \(error)")
        }
    }

    func record(_ entries: [JournalEntry]) async throws(ScreensPipeError) {
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
                        pipeline, target, entry.key, entry.line, entry.state.rawValue, entry.content, entry.entryId,
                    ])
                }
            }
        } catch {
            throw ScreensPipeError.cache("cannot record write outcomes in the journal: \(error)")
        }
    }

    func restore(key: String, to record: WriteJournal.Record) async throws(ScreensPipeError) {
        do {
            try await pool.write { [pipeline, target] db in
                try db.execute(
                    sql: """
                        UPDATE \(Self.table) SET state = ?, content = ?, entry_id = ?, recorded_at = julianday('now')
                        WHERE pipeline = ? AND target = ? AND row_key = ?
                        """,
                    arguments: [record.state.rawValue, record.content, record.entryId, pipeline, target, key])
            }
        } catch {
            throw ScreensPipeError.cache("cannot update the write journal: \(error)")
        }
    }

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

    func forget(keys: [String]) async throws(ScreensPipeError) {
        guard !keys.isEmpty else { return }
        do {
            try await pool.write { [pipeline, target] db in
                for key in keys {
                    try db.execute(
                        sql: "DELETE FROM \(Self.table) WHERE pipeline = ? AND target = ? AND row_key = ?",
                        arguments: [pipeline, target, key])
                }
            }
        } catch {
            throw ScreensPipeError.cache("cannot update the write journal: \(error)")
        }
    }
}
