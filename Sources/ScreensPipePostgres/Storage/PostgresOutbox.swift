import ScreensPipeCore
internal import PostgresNIO
internal import Logging
import Synchronization

/// The pending writes of one pipeline and target in PostgreSQL (the `screens_pipe_write_outbox`
/// table), beside the shared write journal: replicas that share the cache share one outbox,
/// and any of them keeps writes in it or syncs it.
///
/// A sync claims one write at a time: a transaction on a connection of its own selects the
/// first pending write with `FOR UPDATE SKIP LOCKED` and holds its row lock while the write
/// is sent; the write is removed (or its failure counted) and the transaction committed once
/// the journal holds the outcome. Another replica's sync skips the locked row and takes the
/// next. The lock is a transaction's, not a claim column with a lease, because a lease can
/// run out while its holder is still waiting for the portal's answer, and a second replica
/// would then send the write again before the first recorded it; a row lock lives exactly as
/// long as its holder's connection. A holder killed mid-send (kill -9) closes that connection,
/// the server rolls the transaction back, and the next sync takes the write: the journal
/// marked it `pending` before it was sent, so the writer looks the entry up by key instead
/// of sending it blindly. (A holder cut off from the database without dying keeps the lock
/// until the server notices the dead connection: its TCP keepalive.)
final class PostgresOutbox: OutboxStorage {
    private let database: PostgresTarget
    private let connections: RunningPostgresClient
    private var client: PostgresClient { connections.client }
    let pipeline: String
    let target: String
    private static var logger: Logger { PostgresCacheStore.quietLogger }

    private init(database: PostgresTarget, connections: RunningPostgresClient, pipeline: String, target: String) {
        self.database = database
        self.connections = connections
        self.pipeline = pipeline
        self.target = target
    }

    /// Connects to `database` and creates the tables that are missing.
    static func open(_ database: PostgresTarget, pipeline: String, target: String) async throws(ScreensPipeError) -> PostgresOutbox {
        PostgresOutbox(
            database: database, connections: try await RunningPostgresClient.open(database, purpose: "open the outbox"),
            pipeline: pipeline, target: target)
    }

    var isShared: Bool { true }

    /// Keeps `operation` on `key` in one transaction, collapsed with the key's pending write.
    /// Keeps of one pipeline and target take turns (a transaction's advisory lock), and a
    /// pending write a sync holds is waited for: it is either sent and gone, or still there
    /// to collapse into.
    func keep(key: String, operation: OutboxOperation, row: String, baseVersion: String?) async throws(ScreensPipeError) -> OutboxKept {
        try await perform("keep a pending write in the outbox") { [client, pipeline, target] in
            try await client.withTransaction(logger: Self.logger) { connection -> OutboxKept in
                let turn = "screens-pipe outbox \(pipeline.utf8.count):\(pipeline) \(target)"
                _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(turn), 0))", logger: Self.logger)
                var existing: (Int64, String)?
                for try await found in try await connection.query(
                    """
                    SELECT sequence, operation FROM screens_pipe_write_outbox
                    WHERE pipeline = \(pipeline) AND target = \(target) AND row_key = \(key) FOR UPDATE
                    """, logger: Self.logger
                ).decode((Int64, String).self) { existing = found }
                guard let existing, let before = OutboxOperation(rawValue: existing.1) else {
                    _ = try await connection.query(
                        """
                        INSERT INTO screens_pipe_write_outbox (pipeline, target, row_key, operation, row, created_at, base_version)
                        VALUES (\(pipeline), \(target), \(key), \(operation.rawValue), \(row), EXTRACT(EPOCH FROM clock_timestamp()),
                            \(baseVersion))
                        """, logger: Self.logger)
                    return .pending(operation, collapsed: false)
                }
                let sequence = existing.0
                guard let collapsed = before.followed(by: operation) else {
                    _ = try await connection.query("DELETE FROM screens_pipe_write_outbox WHERE sequence = \(sequence)", logger: Self.logger)
                    return .cancelled
                }
                // The first write's place in the order is kept; a new value resets the tries.
                _ = try await connection.query(
                    """
                    UPDATE screens_pipe_write_outbox SET operation = \(collapsed.rawValue), row = \(row), attempts = 0,
                        last_error = NULL, base_version = COALESCE(base_version, \(baseVersion))
                    WHERE sequence = \(sequence)
                    """, logger: Self.logger)
                return .pending(collapsed, collapsed: true)
            }
        }
    }

    /// The pending writes, in replay order (those other replicas hold too).
    func entries() async throws(ScreensPipeError) -> [OutboxEntry] {
        try await perform("read the outbox") { [client, pipeline, target] in
            try await Self.decode(
                client.query(
                    """
                    SELECT \(unescaped: Self.columns) FROM screens_pipe_write_outbox
                    WHERE pipeline = \(pipeline) AND target = \(target) ORDER BY sequence
                    """, logger: Self.logger))
        }
    }

    func entry(key: String) async throws(ScreensPipeError) -> OutboxEntry? {
        try await perform("read the outbox") { [client, pipeline, target] in
            try await Self.decode(
                client.query(
                    """
                    SELECT \(unescaped: Self.columns) FROM screens_pipe_write_outbox
                    WHERE pipeline = \(pipeline) AND target = \(target) AND row_key = \(key)
                    """, logger: Self.logger)
            ).first
        }
    }

    private static let columns = "sequence, row_key, operation, row, created_at, attempts, last_error, base_version"

    private static func decode(_ rows: PostgresRowSequence) async throws -> [OutboxEntry] {
        var entries: [OutboxEntry] = []
        for try await (sequence, key, operation, row, createdAt, attempts, lastError, baseVersion) in rows.decode(
            (Int64, String, String, String, Double, Int64, String?, String?).self)
        {
            guard let operation = OutboxOperation(rawValue: operation) else { continue }
            entries.append(
                OutboxEntry(
                    sequence: sequence, key: key, operation: operation, row: row, createdAt: createdAt, attempts: Int(attempts),
                    lastError: lastError, baseVersion: baseVersion))
        }
        return entries
    }

    @discardableResult
    func remove(_ entry: OutboxEntry) async throws(ScreensPipeError) -> Bool {
        try await perform("update the outbox") { [client] in
            try await Self.count(
                client.query(
                    """
                    WITH gone AS (DELETE FROM screens_pipe_write_outbox
                        WHERE sequence = \(entry.sequence) AND operation = \(entry.operation.rawValue) AND row = \(entry.row) RETURNING 1)
                    SELECT COUNT(*) FROM gone
                    """, logger: Self.logger)) > 0
        }
    }

    func recordFailure(_ entry: OutboxEntry, reason: String) async throws(ScreensPipeError) {
        try await perform("update the outbox") { [client] in
            _ = try await client.query(
                "UPDATE screens_pipe_write_outbox SET attempts = attempts + 1, last_error = \(reason) WHERE sequence = \(entry.sequence)",
                logger: Self.logger)
        }
    }

    func discard(key: String) async throws(ScreensPipeError) -> Bool {
        try await perform("update the outbox") { [client, pipeline, target] in
            try await Self.count(
                client.query(
                    """
                    WITH gone AS (DELETE FROM screens_pipe_write_outbox
                        WHERE pipeline = \(pipeline) AND target = \(target) AND row_key = \(key) RETURNING 1)
                    SELECT COUNT(*) FROM gone
                    """, logger: Self.logger)) > 0
        }
    }

    func clear() async throws(ScreensPipeError) -> Int {
        try await perform("update the outbox") { [client, pipeline, target] in
            try await Self.count(
                client.query(
                    """
                    WITH gone AS (DELETE FROM screens_pipe_write_outbox WHERE pipeline = \(pipeline) AND target = \(target) RETURNING 1)
                    SELECT COUNT(*) FROM gone
                    """, logger: Self.logger))
        }
    }

    private static func count(_ rows: PostgresRowSequence) async throws -> Int {
        var total = 0
        for try await count in rows.decode(Int.self) { total += count }
        return total
    }

    /// Takes the next pending write no other sync holds, on a connection of its own whose
    /// open transaction holds the row lock until the claim is settled or released.
    func claimNext(after sequence: Int64, keys: Set<String>?) async throws(ScreensPipeError) -> (any OutboxClaim)? {
        let connection = try await PostgresConnector.connect(database, purpose: "claim a pending write of the outbox")
        do {
            _ = try await connection.query("BEGIN", logger: Self.logger)
            let query: PostgresQuery =
                if let keys {
                    """
                    SELECT \(unescaped: Self.columns) FROM screens_pipe_write_outbox
                    WHERE pipeline = \(pipeline) AND target = \(target) AND sequence > \(sequence) AND row_key = ANY(\(Array(keys)))
                    ORDER BY sequence LIMIT 1 FOR UPDATE SKIP LOCKED
                    """
                } else {
                    """
                    SELECT \(unescaped: Self.columns) FROM screens_pipe_write_outbox
                    WHERE pipeline = \(pipeline) AND target = \(target) AND sequence > \(sequence)
                    ORDER BY sequence LIMIT 1 FOR UPDATE SKIP LOCKED
                    """
                }
            guard let entry = try await Self.decode(connection.query(query, logger: Self.logger)).first else {
                try? await connection.close()
                return nil
            }
            return PostgresOutboxClaim(entry: entry, connection: connection, database: database)
        } catch {
            try? await connection.close()
            throw PostgresConnector.failure(error, action: "claim a pending write of the outbox", target: database)
        }
    }

    private func perform<T: Sendable>(_ action: String, _ body: @Sendable () async throws -> T) async throws(ScreensPipeError) -> T {
        do {
            return try await body()
        } catch {
            throw PostgresConnector.failure(error, action: action, target: database)
        }
    }
}

/// A pending write held by the open transaction of its claim's own connection.
final class PostgresOutboxClaim: OutboxClaim {
    let entry: OutboxEntry
    private let connection: Mutex<PostgresConnection?>
    private let database: PostgresTarget
    private static var logger: Logger { PostgresCacheStore.quietLogger }

    init(entry: OutboxEntry, connection: PostgresConnection, database: PostgresTarget) {
        self.entry = entry
        self.connection = Mutex(connection)
        self.database = database
    }

    /// Deletes the write and commits, which lets it go; whether it was there.
    func remove() async throws(ScreensPipeError) -> Bool {
        try await settle(
            """
            WITH gone AS (DELETE FROM screens_pipe_write_outbox WHERE sequence = \(entry.sequence) RETURNING 1)
            SELECT COUNT(*) FROM gone
            """)
    }

    func recordFailure(reason: String) async throws(ScreensPipeError) {
        _ = try await settle(
            """
            WITH tried AS (UPDATE screens_pipe_write_outbox SET attempts = attempts + 1, last_error = \(reason)
                WHERE sequence = \(entry.sequence) RETURNING 1)
            SELECT COUNT(*) FROM tried
            """)
    }

    /// Runs `statement` (which counts the rows it changed) and commits; the claim is over
    /// either way.
    private func settle(_ statement: PostgresQuery) async throws(ScreensPipeError) -> Bool {
        guard let connection = take() else {
            throw ScreensPipeError.cache("the claim of pending write \(entry.sequence) was already settled")
        }
        do {
            var changed = 0
            for try await count in try await connection.query(statement, logger: Self.logger).decode(Int.self) { changed += count }
            _ = try await connection.query("COMMIT", logger: Self.logger)
            try? await connection.close()
            return changed > 0
        } catch {
            try? await connection.close()
            throw PostgresConnector.failure(error, action: "update the outbox", target: database)
        }
    }

    /// Closing the connection rolls the transaction back and lets the write go.
    func release() async {
        try? await take()?.close()
    }

    private func take() -> PostgresConnection? {
        connection.withLock { held in
            defer { held = nil }
            return held
        }
    }
}
