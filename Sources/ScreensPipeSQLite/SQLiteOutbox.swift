internal import GRDB
import ScreensPipeCore

/// The pending writes of one pipeline and target, in the cache database next to the write
/// journal (table `write_outbox`): kept in order, collapsed per key, removed once the
/// journal records their outcome. Screens' `CacheManager` keeps the same "pending to sync"
/// set; the journal is what makes replaying it exactly once.
struct SQLiteOutbox: OutboxStorage {
    static let table = CacheSchema.outboxTable

    private let pool: DatabasePool
    let pipeline: String
    let target: String

    /// The outbox in `store`'s database; its table is part of the cache schema.
    init(store: CacheStore, pipeline: String, target: String) {
        pool = store.pool
        self.pipeline = pipeline
        self.target = target
    }

    /// Keeps `operation` on `key` in one transaction, collapsed with the key's pending write;
    /// a collapsed write keeps the version the first one was based on.
    func keep(key: String, operation: OutboxOperation, row: String, baseVersion: String?) async throws(ScreensPipeError) -> OutboxKept {
        do {
            return try await pool.write { [pipeline, target] db in
                let existing = try Row.fetchOne(
                    db, sql: "SELECT sequence, operation FROM \(Self.table) WHERE pipeline = ? AND target = ? AND row_key = ?",
                    arguments: [pipeline, target, key])
                guard let existing, let before = OutboxOperation(rawValue: existing["operation"]) else {
                    try db.execute(
                        sql: """
                            INSERT INTO \(Self.table) (pipeline, target, row_key, operation, row, created_at, base_version)
                            VALUES (?, ?, ?, ?, ?, (julianday('now') - 2440587.5) * 86400.0, ?)
                            """,
                        arguments: [pipeline, target, key, operation.rawValue, row, baseVersion])
                    return .pending(operation, collapsed: false)
                }
                let sequence: Int64 = existing["sequence"]
                guard let collapsed = before.followed(by: operation) else {
                    try db.execute(sql: "DELETE FROM \(Self.table) WHERE sequence = ?", arguments: [sequence])
                    return .cancelled
                }
                // The first write's place in the order is kept; a new value resets the tries.
                try db.execute(
                    sql: """
                        UPDATE \(Self.table) SET operation = ?, row = ?, attempts = 0, last_error = NULL,
                            base_version = COALESCE(base_version, ?) WHERE sequence = ?
                        """,
                    arguments: [collapsed.rawValue, row, baseVersion, sequence])
                return .pending(collapsed, collapsed: true)
            }
        } catch {
            throw ScreensPipeError.cache("cannot keep a pending write in the outbox: \(error)")
        }
    }

    /// The pending writes, in replay order.
    func entries() async throws(ScreensPipeError) -> [OutboxEntry] {
        try await select(where: "", [])
    }

    /// One machine's file: a sync holds the pipeline's write lock throughout.
    var isShared: Bool { false }

    /// The next pending write after `sequence`; the sync's write lock is what holds it.
    func claimNext(after sequence: Int64, keys: Set<String>?) async throws(ScreensPipeError) -> (any OutboxClaim)? {
        var after = sequence
        while let next = try await select(where: "AND sequence > ?", [after], limit: 1).first {
            if keys?.contains(next.key) ?? true { return OutboxClaimUnderRunLock(outbox: self, entry: next) }
            after = next.sequence
        }
        return nil
    }

    /// The pending write of `key`, if any.
    func entry(key: String) async throws(ScreensPipeError) -> OutboxEntry? {
        try await select(where: "AND row_key = ?", [key]).first
    }

    private func select(where condition: String, _ values: [any DatabaseValueConvertible & Sendable], limit: Int? = nil) async throws(ScreensPipeError) -> [OutboxEntry] {
        do {
            return try await pool.read { [pipeline, target] db in
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT sequence, row_key, operation, row, created_at, attempts, last_error, base_version FROM \(Self.table)
                        WHERE pipeline = ? AND target = ? \(condition) ORDER BY sequence\(limit.map { " LIMIT \($0)" } ?? "")
                        """,
                    arguments: StatementArguments([pipeline, target] + values))
                return rows.compactMap { row -> OutboxEntry? in
                    guard let operation = OutboxOperation(rawValue: row["operation"]) else { return nil }
                    return OutboxEntry(
                        sequence: row["sequence"], key: row["row_key"], operation: operation, row: row["row"],
                        createdAt: row["created_at"], attempts: row["attempts"], lastError: row["last_error"],
                        baseVersion: row["base_version"])
                }
            }
        } catch {
            throw ScreensPipeError.cache("cannot read the outbox: \(error)")
        }
    }

    /// Removes a write once its outcome is recorded (sent) or given up (discarded). Only
    /// the version that was tried goes: a write collapsed into it meanwhile (`row` changed)
    /// stays pending. Returns whether it was removed.
    @discardableResult
    func remove(_ entry: OutboxEntry) async throws(ScreensPipeError) -> Bool {
        do {
            return try await pool.write { db in
                try db.execute(
                    sql: "DELETE FROM \(Self.table) WHERE sequence = ? AND operation = ? AND row = ?",
                    arguments: [entry.sequence, entry.operation.rawValue, entry.row])
                return db.changesCount > 0
            }
        } catch {
            throw ScreensPipeError.cache("cannot update the outbox: \(error)")
        }
    }

    /// Counts a failed try, with its reason.
    func recordFailure(_ entry: OutboxEntry, reason: String) async throws(ScreensPipeError) {
        do {
            try await pool.write { db in
                try db.execute(
                    sql: "UPDATE \(Self.table) SET attempts = attempts + 1, last_error = ? WHERE sequence = ?",
                    arguments: [reason, entry.sequence])
            }
        } catch {
            throw ScreensPipeError.cache("cannot update the outbox: \(error)")
        }
    }

    /// Forgets the pending write of `key`; whether there was one.
    func discard(key: String) async throws(ScreensPipeError) -> Bool {
        do {
            return try await pool.write { [pipeline, target] db in
                try db.execute(
                    sql: "DELETE FROM \(Self.table) WHERE pipeline = ? AND target = ? AND row_key = ?", arguments: [pipeline, target, key])
                return db.changesCount > 0
            }
        } catch {
            throw ScreensPipeError.cache("cannot update the outbox: \(error)")
        }
    }

    /// Forgets every pending write of this pipeline and target; how many there were.
    func clear() async throws(ScreensPipeError) -> Int {
        do {
            return try await pool.write { [pipeline, target] db in
                try db.execute(sql: "DELETE FROM \(Self.table) WHERE pipeline = ? AND target = ?", arguments: [pipeline, target])
                return db.changesCount
            }
        } catch {
            throw ScreensPipeError.cache("cannot update the outbox: \(error)")
        }
    }
}
