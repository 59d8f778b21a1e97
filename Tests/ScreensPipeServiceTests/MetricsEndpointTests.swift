import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Prometheus
import Sandbox
import ScreensPipe
import ScreensPipeService
import ServiceLifecycle
import Testing

/// `MetricsEndpoint` serves what a pipeline run emitted through swift-metrics, over real
/// HTTP on loopback, inside a real `ServiceGroup` that shuts it down.
@Suite("Metrics endpoint")
struct MetricsEndpointTests {
    private let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    static func get(_ url: String, method: String = "GET") async throws -> (status: Int, type: String?, body: String) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Content-Type"), String(decoding: data, as: UTF8.self))
    }

    @Test func servesTheRunsMetricsUntilShutdown() async throws {
        let registry = PrometheusCollectorRegistry()
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("screens-pipe-metrics-\(UUID().uuidString)")
        let environment = PipelineEnvironment(
            variables: ["SCREENS_PIPE_CACHE_DIR": cache.path], sandbox: BundledSandbox(),
            metricsFactory: PrometheusMetricsFactory(registry: registry))
        let service = PipelineService(
            spec: try Pipeline(yaml: """
                name: served
                source:
                  type: liferay-jsonws
                  server: sandbox
                  auth: { basic: { username: test@liferay.com, password: test } }
                  rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
                  count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
                """, sink: .discard).spec,
            environment: environment, logger: logger)
        try await service.run()

        let endpoint = try await MetricsEndpoint.bind(port: 0, registry: registry)
        #expect(endpoint.port > 0)
        let group = ServiceGroup(services: [endpoint], gracefulShutdownSignals: [], logger: logger)
        let running = Task { try await group.run() }
        let base = "http://127.0.0.1:\(endpoint.port)"

        let metrics = try await Self.get("\(base)/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.type?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.body.contains(#"screens_pipe_rows_selected_total{pipeline="served"} 73"#), "\(metrics.body)")
        #expect(metrics.body.contains(#"screens_pipe_pages_total{pipeline="served",origin="remote"} 2"#))
        #expect(metrics.body.contains(#"screens_pipe_page_duration_seconds_count{pipeline="served"} 2"#))
        #expect(try await Self.get("\(base)/other").status == 404)
        #expect(try await Self.get("\(base)/metrics", method: "POST").status == 405)

        await group.triggerGracefulShutdown()
        try await running.value
        await #expect(throws: (any Error).self) { _ = try await Self.get("\(base)/metrics") }
    }

    @Test func listensOnLoopbackOnly() async throws {
        await #expect(throws: MetricsEndpoint.BindError.self) {
            _ = try await MetricsEndpoint.bind(host: "0.0.0.0", port: 0, registry: PrometheusCollectorRegistry())
        }
    }
}
