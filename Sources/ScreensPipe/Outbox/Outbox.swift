internal import GRDB
import ScreensBus

/// What a pending write does to its entry.
public enum OutboxOperation: String, Sendable, Hashable, CaseIterable {
    /// Creates the entry.
    case add
    /// Changes an entry an earlier write created.
    case update
    /// Removes the entry.
    case delete

    /// The pending write that does what `self` and then `next` would do to one entry
    /// (`CommentUpdateInteractor` keeps one pending write per comment): an update after an
    /// add is still an add, a delete after an add is nothing (nil), and an add or update
    /// after a delete changes the entry the delete would have removed.
    func followed(by next: OutboxOperation) -> OutboxOperation? {
        switch (self, next) {
        case (.add, .delete): nil
        case (.add, _): .add
        case (.update, .delete), (.delete, .delete): .delete
        case (.update, _), (.delete, _): .update
        }
    }
}

/// One pending write of the outbox.
public struct OutboxEntry: Sendable, Hashable {
    /// Its place in the replay order: the first write to its key that is still pending.
    public var sequence: Int64
    /// The entry's key, the JSON array of the sink's `key` fields' values
    /// (`["https://example.com/1","20201"]`), as `outbox discard` takes it.
    public var key: String
    public var operation: OutboxOperation
    /// The row to write, as JSON text (for a delete, the row that names the entry).
    public var row: String
    /// When the write was first kept, seconds since 1970.
    public var createdAt: Double
    /// Times a sync tried it.
    public var attempts: Int
    /// Why the last try failed.
    public var lastError: String?
    /// The version (the sink's `version-field`, as JSON text) of the entry the first
    /// pending update was made from; nil when the row named none.
    public var baseVersion: String?
}

/// The pending writes of one pipeline and target, in the cache database next to the write
/// journal (table `write_outbox`): kept in order, collapsed per key, removed once the
/// journal records their outcome. Screens' `CacheManager` keeps the same "pending to sync"
/// set; the journal is what makes replaying it exactly once.
struct Outbox: Sendable {
    static let table = "write_outbox"

    private let pool: DatabasePool
    let pipeline: String
    let target: String

    init(store: CacheStore, pipeline: String, target: String) async throws(ScreensPipeError) {
        pool = store.pool
        self.pipeline = pipeline
        self.target = target
        do {
            try await pool.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS \(Self.table) (
                            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                            pipeline TEXT NOT NULL, target TEXT NOT NULL, row_key TEXT NOT NULL,
                            operation TEXT NOT NULL, row TEXT NOT NULL,
                            created_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT, base_version TEXT,
                            UNIQUE (pipeline, target, row_key))
                        """)
            }
        } catch {
            throw ScreensPipeError.cache("cannot open the outbox in \(store.path): \(error)")
        }
    }

    /// What keeping a write did to the outbox.
    enum Kept: Equatable {
        /// A new pending write, or one collapsed with the key's earlier pending write into
        /// `operation`.
        case pending(OutboxOperation, collapsed: Bool)
        /// A delete of an entry whose add was still pending: neither is sent.
        case cancelled
    }

    /// Keeps `operation` on `key` in one transaction, collapsed with the key's pending write;
    /// a collapsed write keeps the version the first one was based on.
    func keep(key: String, operation: OutboxOperation, row: String, baseVersion: String? = nil) async throws(ScreensPipeError) -> Kept {
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

    /// The pending write of `key`, if any.
    func entry(key: String) async throws(ScreensPipeError) -> OutboxEntry? {
        try await select(where: "AND row_key = ?", [key]).first
    }

    private func select(where condition: String, _ values: [String]) async throws(ScreensPipeError) -> [OutboxEntry] {
        do {
            return try await pool.read { [pipeline, target] db in
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT sequence, row_key, operation, row, created_at, attempts, last_error, base_version FROM \(Self.table)
                        WHERE pipeline = ? AND target = ? \(condition) ORDER BY sequence
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
