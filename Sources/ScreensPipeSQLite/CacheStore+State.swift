import ScreensPipeCore
import ScreensBus
internal import Foundation
internal import GRDB

/// The list-state table: each list's incremental cursor and resume checkpoint, in the
/// cache's database so that a state and the pages it describes live and go together.
extension CacheStore {
    func stateRecord(pipeline: String, list: String) async throws(ScreensPipeError) -> ListStateRecord? {
        try await performAsync("read the state of \(pipeline)") { [pool] in
            try await pool.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT document, committed_at FROM list_state WHERE pipeline = ? AND list = ?",
                    arguments: [pipeline, list]
                ).map(Self.stateRecord)
            }
        }
    }

    /// Replaces the record in one transaction: a reader sees the old document or the new one.
    func commitState(_ record: ListStateRecord, pipeline: String, list: String) async throws(ScreensPipeError) {
        try await performAsync("commit the state of \(pipeline)") { [pool] in
            try await pool.write { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO list_state (pipeline, list, document, committed_at) VALUES (?, ?, ?, ?)",
                    arguments: [pipeline, list, record.document, record.committedAt.timeIntervalSince1970])
            }
        }
    }

    func removeState(pipeline: String, list: String) async throws(ScreensPipeError) -> Bool {
        try await performAsync("reset the state of \(pipeline)") { [pool] in
            try await pool.write { db in
                try db.execute(sql: "DELETE FROM list_state WHERE pipeline = ? AND list = ?", arguments: [pipeline, list])
                return db.changesCount > 0
            }
        }
    }

    func stateRecords(pipeline: String?) async throws(ScreensPipeError) -> [(key: StateKey, record: ListStateRecord)] {
        try await performAsync("list the states") { [pool] in
            try await pool.read { db in
                let rows =
                    if let pipeline {
                        try Row.fetchAll(
                            db, sql: "SELECT * FROM list_state WHERE pipeline = ? ORDER BY pipeline, list", arguments: [pipeline])
                    } else {
                        try Row.fetchAll(db, sql: "SELECT * FROM list_state ORDER BY pipeline, list")
                    }
                return rows.map { row in (key: StateKey(pipeline: row["pipeline"], list: row["list"]), record: Self.stateRecord(row)) }
            }
        }
    }

    private static func stateRecord(_ row: Row) -> ListStateRecord {
        ListStateRecord(document: row["document"], committedAt: Date(timeIntervalSince1970: row["committed_at"]))
    }
}
