import Foundation
import Logging
import Prometheus
import Sandbox
import ScreensPipe
import ScreensPipeService
import ServiceLifecycle
import Testing

/// `ScreensPipeClient`: many runs over one connection pool and one open cache store, against
/// the real sandbox over libcurl and a real SQLite file.
@Suite("Long-lived client")
struct ScreensPipeClientTests {
    private let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// Bookmarks of the Guest site, one page of 10 at a time (8 pages), cached in `cache`.
    static func yaml(_ server: SandboxServer, cache: String, name: String = "bookmarks") -> String {
        """
        name: \(name)
        source:
          type: liferay-jsonws
          server: \(server.baseURL)
          auth: { basic: { username: test@liferay.com, password: test } }
          rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
          count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
          pagination: { page-size: 10, prefetch: 1 }
        cache: { policy: remote-only, path: \(cache) }
        """
    }

    static func temporaryCache() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("screens-pipe-client-\(UUID().uuidString)/cache.sqlite").path
    }

    static func rows(_ pipeline: Pipeline) async throws -> [String] {
        var rows: [String] = []
        for try await row in pipeline.rows(as: JSONValue.self) { rows.append(row.jsonString) }
        return rows
    }

    @Test("runs on one client reuse its connections: three runs, one connection, the same rows as runs of their own")
    func reusesConnections() async throws {
        let server = try await SandboxServer.start(SandboxConfiguration())
        let cache = Self.temporaryCache()

        var alone: [[String]] = []
        for _ in 0..<3 { alone.append(try await Self.rows(try Pipeline(yaml: Self.yaml(server, cache: cache), sink: .discard))) }
        let ownConnections = server.acceptedConnectionCount
        #expect(ownConnections >= 3, "each run of its own opens its own connection")

        let client = ScreensPipeClient(environment: PipelineEnvironment())
        var shared: [[String]] = []
        for _ in 0..<3 { shared.append(try await Self.rows(try client.pipeline(yaml: Self.yaml(server, cache: cache), sink: .discard))) }
        #expect(server.acceptedConnectionCount - ownConnections == 1, "the client's three runs share one kept-alive connection")
        #expect(shared == alone)
        #expect(shared[0].count == 73)

        await client.shutdown()
        try await server.stop()
    }

    @Test("runs at once on one client share its cache store and each get every row once, in order")
    func concurrentRunsShareTheStore() async throws {
        let server = try await SandboxServer.start(SandboxConfiguration())
        let cache = Self.temporaryCache()
        let client = ScreensPipeClient(environment: PipelineEnvironment())
        let referenceCache = Self.temporaryCache()
        let reference = try await Self.rows(try Pipeline(yaml: Self.yaml(server, cache: referenceCache), sink: .discard))

        let results = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                let pipeline = try client.pipeline(yaml: Self.yaml(server, cache: cache), sink: .discard)
                group.addTask { try await Self.rows(pipeline) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 4)
        for rows in results { #expect(rows == reference) }

        // The one store the four runs wrote holds the list once, as a run of its own leaves it.
        let stored = try await CacheBackends.open(spec: CacheSpec(path: cache), environment: [:]).stats()
        let alone = try await CacheBackends.open(spec: CacheSpec(path: referenceCache), environment: [:]).stats()
        #expect(stored.rows == 73 && stored.pages == alone.pages && stored.entries == alone.entries)
        await client.shutdown()
        try await server.stop()
    }

    @Test("after shutdown a run fails with code cancelled instead of sending")
    func runAfterShutdownIsCancelled() async throws {
        let server = try await SandboxServer.start(SandboxConfiguration())
        let client = ScreensPipeClient(environment: PipelineEnvironment())
        await client.shutdown()
        await client.shutdown()  // twice is harmless
        let requests = server.requestCount
        let thrown = await #expect(throws: ScreensPipeError.self) {
            _ = try await client.pipeline(yaml: Self.yaml(server, cache: Self.temporaryCache()), sink: .discard).run()
        }
        #expect(thrown?.code == .cancelled, "\(String(describing: thrown))")
        #expect(server.requestCount == requests)
        try await server.stop()
    }

    @Test("ScreensPipeClientService keeps the client open for the group's services and closes it last")
    func lifecycleService() async throws {
        let server = try await SandboxServer.start(SandboxConfiguration())
        let client = ScreensPipeClient(environment: PipelineEnvironment())
        let spec = try client.pipeline(yaml: Self.yaml(server, cache: Self.temporaryCache()), sink: .discard).spec
        let service = PipelineService(spec: spec, environment: client.environment, schedule: .every(.milliseconds(50)), logger: logger)
        let group = ServiceGroup(services: [ScreensPipeClientService(client), service], gracefulShutdownSignals: [], logger: logger)
        let running = Task { try await group.run() }
        // Several scheduled runs, all on the one connection.
        while server.requestCount < 40 { try await Task.sleep(for: .milliseconds(20)) }
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(server.acceptedConnectionCount == 1)
        let thrown = await #expect(throws: ScreensPipeError.self) {
            _ = try await client.pipeline(spec: spec).run()
        }
        #expect(thrown?.code == .cancelled)
        try await server.stop()
    }

    @Test("MetricsResponder answers a scrape as plain values: the samples for GET, headers alone for HEAD, 405 otherwise")
    func metricsResponder() async throws {
        let registry = PrometheusCollectorRegistry()
        registry.makeCounter(name: "screens_pipe_rows_selected_total", labels: [("pipeline", "mounted")]).increment(by: Int64(73))
        let responder = MetricsResponder(registry: registry)

        let get = responder.response(method: "GET")
        let text = String(decoding: get.body, as: UTF8.self)
        #expect(get.status == 200)
        #expect(text.contains(#"screens_pipe_rows_selected_total{pipeline="mounted"} 73"#), "\(text)")
        #expect(get.headers.contains { $0.name == "Content-Type" && $0.value.hasPrefix("text/plain; version=0.0.4") })
        #expect(get.headers.contains { $0 == ("Content-Length", String(get.body.count)) })

        let head = responder.response(method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.headers.contains { $0 == ("Content-Length", String(get.body.count)) })

        let post = responder.response(method: "POST")
        #expect(post.status == 405)
        #expect(post.headers.contains { $0 == ("Allow", "GET, HEAD") })
    }
}
