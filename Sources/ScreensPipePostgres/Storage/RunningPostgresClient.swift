import ScreensPipeCore
internal import PostgresNIO
internal import Logging

/// A postgres-nio connection pool and the task that runs it, for one store's lifetime.
final class RunningPostgresClient: Sendable {
    let client: PostgresClient
    private let runner: Task<Void, Never>

    private init(configuration: PostgresClient.Configuration) {
        let client = PostgresClient(configuration: configuration, backgroundLogger: PostgresCacheStore.quietLogger)
        self.client = client
        runner = Task { await client.run() }
    }

    /// Connects to `target` once on its own and creates the tables that are missing, so a
    /// refused connection, a wrong password or a bad TLS setting fails here, naming the server
    /// (never the password); then starts the pool.
    static func open(_ target: PostgresTarget, purpose: String) async throws(ScreensPipeError) -> RunningPostgresClient {
        try await PostgresSchema.prepare(target, purpose: purpose)
        return RunningPostgresClient(configuration: try PostgresConnector.clientConfiguration(target))
    }

    /// Closes the pool's connections.
    func close() async {
        runner.cancel()
        await runner.value
    }

    deinit { runner.cancel() }
}
