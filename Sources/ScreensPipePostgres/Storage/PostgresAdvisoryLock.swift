import ScreensPipeCore
internal import Foundation
internal import Logging
internal import PostgresNIO
import Synchronization

/// A run lock as a session-level advisory lock in the PostgreSQL database a `cache: url:`
/// names, so that processes on several machines sharing it take turns.
///
/// The lock lives on a connection of its own: it goes when the lock is released, when the
/// process ends, and when it dies (the server ends a dead client's session and its locks).
/// Who holds it is written to `screens_pipe_run_lock` once the lock is taken; that row is
/// only information (a holder that died leaves it behind, and the next holder replaces it).
final class PostgresAdvisoryLock: SharedRunLock {
    private let scope: RunLock.Scope
    private let target: PostgresTarget
    private let connection: Mutex<PostgresConnection?>
    private static let logger = Logger(label: "screens-pipe.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    private init(scope: RunLock.Scope, target: PostgresTarget, connection: PostgresConnection) {
        self.scope = scope
        self.target = target
        self.connection = Mutex(connection)
    }

    /// Connects and brings the schema up to date, without taking the lock.
    static func connect(_ scope: RunLock.Scope, target: PostgresTarget) async throws(ScreensPipeError) -> PostgresAdvisoryLock {
        let connection = try await PostgresConnector.connect(target, purpose: "take the lock of \(scope)")
        do {
            try await PostgresSchema.migrate(connection, logger: logger)
        } catch {
            try? await connection.close()
            throw PostgresConnector.failure(error, action: "create the screens_pipe tables", target: target)
        }
        return PostgresAdvisoryLock(scope: scope, target: target, connection: connection)
    }

    /// Takes the lock if no other session holds it.
    func tryLock() async throws(ScreensPipeError) -> Bool {
        guard let connection = connection.withLock({ $0 }) else { return false }
        let key = "screens-pipe run " + scope.digest
        do {
            var locked = false
            for try await value in try await connection.query(
                "SELECT pg_try_advisory_lock(hashtextextended(\(key), 0))", logger: Self.logger
            ).decode(Bool.self) {
                locked = value
            }
            return locked
        } catch {
            throw PostgresConnector.failure(error, action: "take the lock of \(scope)", target: target)
        }
    }

    /// Records this process as the holder. A failure only loses the information.
    func record(_ holder: RunLockHolder) async {
        guard let connection = connection.withLock({ $0 }) else { return }
        _ = try? await connection.query(
            """
            INSERT INTO screens_pipe_run_lock (scope, pid, host, since) VALUES (\(scope.digest), \(Int64(holder.pid)), \(holder.host), \(holder.since.timeIntervalSince1970))
            ON CONFLICT (scope) DO UPDATE SET pid = EXCLUDED.pid, host = EXCLUDED.host, since = EXCLUDED.since
            """, logger: Self.logger)
    }

    /// The holder recorded for this scope, if any.
    func holder() async -> RunLockHolder? {
        guard let connection = connection.withLock({ $0 }) else { return nil }
        do {
            for try await (pid, host, since) in try await connection.query(
                "SELECT pid, host, since FROM screens_pipe_run_lock WHERE scope = \(scope.digest)", logger: Self.logger
            ).decode((Int64, String, Double).self) {
                return RunLockHolder(pid: Int32(truncatingIfNeeded: pid), host: host, since: Date(timeIntervalSince1970: since))
            }
        } catch {}
        return nil
    }

    /// Closes the connection, which releases the lock if it was held; idempotent.
    func release() async {
        let held = connection.withLock { connection -> PostgresConnection? in
            defer { connection = nil }
            return connection
        }
        // Closing the session releases its advisory locks.
        try? await held?.close()
    }
}
