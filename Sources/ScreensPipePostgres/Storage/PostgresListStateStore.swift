import ScreensPipeCore
internal import PostgresNIO
internal import Logging
internal import Foundation

/// List states in PostgreSQL (the `screens_pipe_list_state` table), shared by every process
/// that names the database. A commit is one upsert statement, so readers on any machine see
/// the previous record or the new one, never a mix, and two processes committing at once
/// leave one of the two records whole.
public final class PostgresListStateStore: ListStateStore {
    /// The database, without its password.
    public let target: PostgresTarget
    private let connections: RunningPostgresClient
    private var client: PostgresClient { connections.client }

    private init(target: PostgresTarget, connections: RunningPostgresClient) {
        self.target = target
        self.connections = connections
    }

    /// Connects to `target` and creates the tables that are missing; a refused connection or
    /// a wrong password fails here, naming the server (never the password).
    public static func open(_ target: PostgresTarget) async throws(ScreensPipeError) -> PostgresListStateStore {
        PostgresListStateStore(
            target: target, connections: try await RunningPostgresClient.open(target, purpose: "open the list state store"))
    }

    /// Closes the connections.
    public func close() async { await connections.close() }

    public func record(for key: StateKey) async throws(ScreensPipeError) -> ListStateRecord? {
        try await perform("read the state of \(key)") { [client] in
            let rows = try await client.query(
                "SELECT document, committed_at FROM screens_pipe_list_state WHERE pipeline = \(key.pipeline) AND list = \(key.list)",
                logger: PostgresCacheStore.quietLogger)
            for try await (document, committedAt) in rows.decode((String, Double).self) {
                return ListStateRecord(document: document, committedAt: Date(timeIntervalSince1970: committedAt))
            }
            return nil
        }
    }

    public func commit(_ record: ListStateRecord, for key: StateKey) async throws(ScreensPipeError) {
        _ = try await perform("commit the state of \(key)") { [client] in
            try await client.query(
                """
                INSERT INTO screens_pipe_list_state (pipeline, list, document, committed_at)
                VALUES (\(key.pipeline), \(key.list), \(record.document), \(record.committedAt.timeIntervalSince1970))
                ON CONFLICT (pipeline, list) DO UPDATE SET document = EXCLUDED.document, committed_at = EXCLUDED.committed_at
                """, logger: PostgresCacheStore.quietLogger)
        }
    }

    @discardableResult
    public func reset(_ key: StateKey) async throws(ScreensPipeError) -> Bool {
        try await perform("reset the state of \(key)") { [client] in
            let rows = try await client.query(
                """
                WITH removed AS (DELETE FROM screens_pipe_list_state WHERE pipeline = \(key.pipeline) AND list = \(key.list)
                    RETURNING 1)
                SELECT COUNT(*) FROM removed
                """, logger: PostgresCacheStore.quietLogger)
            for try await count in rows.decode(Int.self) { return count > 0 }
            return false
        }
    }

    public func records(pipeline: String?) async throws(ScreensPipeError) -> [(key: StateKey, record: ListStateRecord)] {
        try await perform("list the states") { [client] in
            // COLLATE "C": ordered by code point, as SQLite orders text, whatever the database's locale.
            let rows = try await client.query(
                """
                SELECT pipeline, list, document, committed_at FROM screens_pipe_list_state
                WHERE \(pipeline)::TEXT IS NULL OR pipeline = \(pipeline)
                ORDER BY pipeline COLLATE "C", list COLLATE "C"
                """, logger: PostgresCacheStore.quietLogger)
            var records: [(key: StateKey, record: ListStateRecord)] = []
            for try await (pipeline, list, document, committedAt) in rows.decode((String, String, String, Double).self) {
                records.append(
                    (StateKey(pipeline: pipeline, list: list),
                     ListStateRecord(document: document, committedAt: Date(timeIntervalSince1970: committedAt))))
            }
            return records
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
