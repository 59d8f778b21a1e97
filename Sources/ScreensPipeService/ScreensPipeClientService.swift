public import ScreensPipeCore
public import ServiceLifecycle

/// Keeps a ``ScreensPipeCore/ScreensPipeClient`` open while a `ServiceGroup` runs and shuts
/// it down on a graceful shutdown. List it *before* the services that run pipelines on the
/// client: a group shuts its services down in reverse order, so the client closes last,
/// once their runs ended.
///
/// ```swift
/// let client = ScreensPipeClient(environment: .current(cacheDirectory: .userCache))
/// let bookmarks = try PipelineService(file: "pipelines/bookmarks.yaml", environment: client.environment, schedule: .every(.seconds(60)))
/// let group = ServiceGroup(services: [ScreensPipeClientService(client), bookmarks], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
public struct ScreensPipeClientService: Service {
    /// The client it keeps open.
    public let client: ScreensPipeClient

    public init(_ client: ScreensPipeClient) {
        self.client = client
    }

    /// Waits for a graceful shutdown (or cancellation), then shuts the client down.
    public func run() async throws {
        try? await gracefulShutdown()
        await client.shutdown()
    }
}
