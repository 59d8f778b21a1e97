import ScreensPipeCore
internal import PostgresNIO
internal import Logging

/// The write journal's records in PostgreSQL (the `screens_pipe_write_journal` table), one
/// pipeline and target per value, shared by every replica that names the database: the
/// journal a shared outbox relies on, so a write one replica sent and recorded (or left
/// `pending` when it died mid-send) is settled by the next replica from that record. Every
/// method is one transaction.
final class PostgresWriteJournal: WriteJournalStorage {
    private let target: PostgresTarget
    private let connections: RunningPostgresClient
    private var client: PostgresClient { connections.client }
    let pipeline: String
    let journalTarget: String

    private init(target: PostgresTarget, connections: RunningPostgresClient, pipeline: String, journalTarget: String) {
        self.target = target
        self.connections = connections
        self.pipeline = pipeline
        self.journalTarget = journalTarget
    }

    /// Connects to `target` and creates the tables that are missing.
    static func open(_ target: PostgresTarget, pipeline: String, journalTarget: String) async throws(ScreensPipeError) -> PostgresWriteJournal {
        PostgresWriteJournal(
            target: target, connections: try await RunningPostgresClient.open(target, purpose: "open the write journal"),
            pipeline: pipeline, journalTarget: journalTarget)
    }

    func records() async throws(ScreensPipeError) -> (current: [String: WriteJournal.Record], legacy: [String: WriteJournal.Record]) {
        try await select(keys: nil)
    }

    func records(keys: Set<String>) async throws(ScreensPipeError)
        -> (current: [String: WriteJournal.Record], legacy: [String: WriteJournal.Record])
    {
        try await select(keys: Array(keys))
    }

    /// The records (of `keys`, when given); no version before this one kept a journal in
    /// PostgreSQL, so there are no legacy records.
    private func select(keys: [String]?) async throws(ScreensPipeError)
        -> (current: [String: WriteJournal.Record], legacy: [String: WriteJournal.Record])
    {
        try await perform("read the write journal") { [client, pipeline, journalTarget] in
            let query: PostgresQuery =
                if let keys {
                    """
                    SELECT row_key, state, content, entry_id FROM screens_pipe_write_journal
                    WHERE pipeline = \(pipeline) AND target = \(journalTarget) AND row_key = ANY(\(keys))
                    """
                } else {
                    """
                    SELECT row_key, state, content, entry_id FROM screens_pipe_write_journal
                    WHERE pipeline = \(pipeline) AND target = \(journalTarget)
                    """
                }
            var records: [String: WriteJournal.Record] = [:]
            for try await (key, state, content, entryId) in try await client.query(query, logger: PostgresCacheStore.quietLogger)
                .decode((String, String, String, Int64?).self)
            {
                guard let state = WriteJournal.State(rawValue: state) else { continue }
                records[key] = WriteJournal.Record(state: state, content: content, entryId: entryId)
            }
            return (records, [:])
        }
    }

    func migrate(key: String, line: Int, legacyKey: String, record: WriteJournal.Record) async throws(ScreensPipeError) {
        try await perform("update the write journal") { [client, pipeline, journalTarget] in
            _ = try await client.query(
                """
                INSERT INTO screens_pipe_write_journal (pipeline, target, row_key, line, state, content, entry_id, recorded_at)
                VALUES (\(pipeline), \(journalTarget), \(key), \(Int64(line)), \(record.state.rawValue), \(record.content),
                    \(record.entryId), EXTRACT(EPOCH FROM clock_timestamp()))
                ON CONFLICT (pipeline, target, row_key) DO NOTHING
                """, logger: PostgresCacheStore.quietLogger)
        }
    }

    func record(_ entries: [JournalEntry]) async throws(ScreensPipeError) {
        guard !entries.isEmpty else { return }
        try await perform("record write outcomes in the journal") { [client, pipeline, journalTarget] in
            try await client.withTransaction(logger: PostgresCacheStore.quietLogger) { connection in
                for entry in entries {
                    try await connection.query(
                        """
                        INSERT INTO screens_pipe_write_journal (pipeline, target, row_key, line, state, content, entry_id, recorded_at)
                        VALUES (\(pipeline), \(journalTarget), \(entry.key), \(Int64(entry.line)), \(entry.state.rawValue),
                            \(entry.content), \(entry.entryId), EXTRACT(EPOCH FROM clock_timestamp()))
                        ON CONFLICT (pipeline, target, row_key) DO UPDATE SET
                            line = EXCLUDED.line, state = EXCLUDED.state, content = EXCLUDED.content,
                            entry_id = COALESCE(EXCLUDED.entry_id, screens_pipe_write_journal.entry_id),
                            recorded_at = EXCLUDED.recorded_at
                        """, logger: PostgresCacheStore.quietLogger)
                }
            }
        }
    }

    func restore(key: String, to record: WriteJournal.Record) async throws(ScreensPipeError) {
        try await perform("update the write journal") { [client, pipeline, journalTarget] in
            _ = try await client.query(
                """
                UPDATE screens_pipe_write_journal SET state = \(record.state.rawValue), content = \(record.content),
                    entry_id = \(record.entryId), recorded_at = EXTRACT(EPOCH FROM clock_timestamp())
                WHERE pipeline = \(pipeline) AND target = \(journalTarget) AND row_key = \(key)
                """, logger: PostgresCacheStore.quietLogger)
        }
    }

    func forgetPending() async throws(ScreensPipeError) -> Int {
        try await perform("update the write journal") { [client, pipeline, journalTarget] in
            try await client.withTransaction(logger: PostgresCacheStore.quietLogger) { connection in
                var changed = 0
                for try await count in try await connection.query(
                    """
                    WITH gone AS (DELETE FROM screens_pipe_write_journal
                        WHERE pipeline = \(pipeline) AND target = \(journalTarget) AND state = 'pending' AND entry_id IS NULL RETURNING 1)
                    SELECT COUNT(*) FROM gone
                    """, logger: PostgresCacheStore.quietLogger
                ).decode(Int.self) { changed += count }
                for try await count in try await connection.query(
                    """
                    WITH reset AS (UPDATE screens_pipe_write_journal SET state = 'updated', content = ''
                        WHERE pipeline = \(pipeline) AND target = \(journalTarget) AND state = 'pending' RETURNING 1)
                    SELECT COUNT(*) FROM reset
                    """, logger: PostgresCacheStore.quietLogger
                ).decode(Int.self) { changed += count }
                return changed
            }
        }
    }

    func forget(keys: [String]) async throws(ScreensPipeError) {
        guard !keys.isEmpty else { return }
        try await perform("update the write journal") { [client, pipeline, journalTarget] in
            _ = try await client.query(
                """
                DELETE FROM screens_pipe_write_journal
                WHERE pipeline = \(pipeline) AND target = \(journalTarget) AND row_key = ANY(\(keys))
                """, logger: PostgresCacheStore.quietLogger)
        }
    }

    private func perform<T: Sendable>(_ action: String, _ body: @Sendable () async throws -> T) async throws(ScreensPipeError) -> T {
        do {
            return try await body()
        } catch {
            throw PostgresConnector.failure(error, action: action, target: target)
        }
    }
}
