import Foundation
import Logging
import Sandbox
import ScreensPipe
import ScreensPipeService
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

/// `PipelineService` graceful shutdown inside a real `ServiceGroup`, against the bundled
/// sandbox portal: the service returns whatever state its delegate's subscription is in.
@Suite("Pipeline service shutdown")
struct PipelineServiceShutdownTests {
    private let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// 2,000 generated bookmarks, 10 per page: 2,200 events, more than a subscription's
    /// 1,024-event buffer holds, so a delegate that stops reading stops the run's publisher.
    private static let generatedList = """
        name: generated
        source:
          type: liferay-jsonws
          server: sandbox
          auth: { basic: { username: test@liferay.com, password: test } }
          rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 1000000 } }
          count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 1000000 } }
          pagination: { first-page-size: 10, page-size: 10, prefetch: 1 }
        """

    private static func environment() -> PipelineEnvironment {
        var sandbox = SandboxConfiguration()
        sandbox.generatedRows = 2_000
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("screens-pipe-service-\(UUID().uuidString)")
        return PipelineEnvironment(
            variables: ["SCREENS_PIPE_CACHE_DIR": cache.path], sandbox: BundledSandbox(configuration: sandbox))
    }

    @Test("a graceful shutdown returns while the delegate holds its subscription and reads no more")
    func shutdownWithAHeldSubscription() async throws {
        let pipeline = try Pipeline(yaml: Self.generatedList, sink: .discard, environment: Self.environment())
        let delegate = StallingDelegate()
        let service = PipelineService(
            spec: pipeline.spec, environment: pipeline.environment, schedule: .every(.seconds(3_600)), delegate: delegate,
            logger: logger)
        let group = ServiceGroup(services: [service], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        let running = Task { try await group.run() }

        // The delegate took the first page's response and stopped reading: from here on the
        // run's events pile up in its subscription until the publisher has to wait.
        for await _ in delegate.stalled.stream { break }
        await group.triggerGracefulShutdown()

        let outcome = await completion { await running.result }
        let result = try #require(outcome, "the service did not return after the graceful shutdown")
        #expect(throws: Never.self) { try result.get() }
        // The delegate saw the start and one page, then was stopped while it waited.
        #expect(delegate.log.withLock { $0 } == ["started", "response 0", "cancelled"])
    }
}

/// Takes the start and the first page, then waits (cancellably) for an hour, reading nothing.
private final class StallingDelegate: ListDelegate {
    let log = Mutex<[String]>([])
    let stalled = AsyncStream<Void>.makeStream()

    func onRunStarted(_ started: RunStarted) async { log.withLock { $0.append("started") } }

    func onListResponse(_ response: ListResponse) async {
        let first = log.withLock { log -> Bool in
            guard !log.contains(where: { $0.hasPrefix("response") }) else { return false }
            log.append("response \(response.page)")
            return true
        }
        guard first else { return }
        stalled.continuation.yield()
        do {
            try await Task.sleep(for: .seconds(3_600))
            log.withLock { $0.append("woke up") }
        } catch {
            log.withLock { $0.append("cancelled") }
        }
    }
}
