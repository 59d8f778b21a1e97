import Foundation
import Logging
import Sandbox
import ScreensBus
import ScreensPipe
@testable import ScreensPipeCore
@testable import ScreensPipeService
import ServiceLifecycle
import Testing

/// `PipelineService` inside a real `ServiceGroup`.
@Suite("Pipeline service")
struct PipelineServiceTests {
    private let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    @Test("a scheduled service runs, then a graceful shutdown ends the wait for the next run")
    func gracefulShutdownBetweenRuns() async throws {
        let finishedRuns = AsyncStream<RunFinished>.makeStream()
        let service = try PipelineService(
            file: Embedding.path("pipelines/bookmarks.yaml"), environment: Embedding.environment(),
            schedule: .every(.seconds(3_600)), delegate: FinishedRuns(continuation: finishedRuns.continuation),
            logger: logger)
        let group = ServiceGroup(services: [service], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        let running = Task { try await group.run() }

        var iterator = finishedRuns.stream.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.selected == 73)
        #expect(first?.succeeded == true)
        await group.triggerGracefulShutdown()
        // Returns only if the hour-long wait for the next run was cut short.
        try await running.value
        finishedRuns.continuation.finish()
        #expect(await iterator.next() == nil)
    }

    @Test("a graceful shutdown cancels the run in flight, and the service returns normally")
    func gracefulShutdownDuringARun() async throws {
        var sandbox = SandboxConfiguration()
        sandbox.generatedRows = 2_000
        sandbox.faults = FaultPlan(latency: .milliseconds(50))
        let pipeline = try Pipeline(yaml: Embedding.generatedListYAML, sink: .discard, environment: Embedding.environment(sandbox: sandbox))
        let pages = AsyncStream<ListResponse>.makeStream()
        let finished = AsyncStream<RunFinished>.makeStream()
        let service = PipelineService(
            spec: pipeline.spec, environment: pipeline.environment, schedule: .once,
            delegate: Pages(pages: pages.continuation, finished: finished.continuation), logger: logger)
        let group = ServiceGroup(services: [service], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        let running = Task { try await group.run() }

        for await _ in pages.stream { break }
        await group.triggerGracefulShutdown()
        try await running.value
        var finishedRuns = finished.stream.makeAsyncIterator()
        let run = await finishedRuns.next()
        // 200 pages of 50 ms each: the shutdown came long before the end.
        #expect((run?.pages ?? 200) < 200)
    }

    @Test("a single run that cannot deliver its rows makes the service throw")
    func failedRunThrows() async throws {
        // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
        let yaml = """
            name: unreachable
            source:
              type: liferay-jsonws
              server: http://127.0.0.1:9
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
              retry: { attempts: 1 }
            """
        let pipeline = try Pipeline(yaml: yaml, sink: .discard, environment: Embedding.environment())
        let service = PipelineService(spec: pipeline.spec, environment: pipeline.environment, logger: logger)
        let thrown = await #expect(throws: PipelineRunFailed.self) { try await service.run() }
        #expect(thrown?.summary.failures.first?.code == .connectivity)
        #expect(thrown?.failure.code == .connectivity)
    }

    @Test("a failed run's error is the one Pipeline.run() throws: a failure, not a cancellation recorded before it")
    func failedRunNamesItsFailure() throws {
        var summary = RunSummary()
        summary.record(ScreensPipeError(.cancelled, "the delegate's delivery was cancelled"))
        summary.record(ScreensPipeError(.http, "HTTP 503", page: 2))
        let failed = try #require(PipelineRunFailed(summary: summary))
        #expect(failed.failure.code == .http)
        #expect(failed.failure.summary == summary)
        #expect(failed.description == "\(failed.failure) (and 1 more error)")
        #expect(!failed.description.contains("cancelled"))

        var completed = RunSummary()
        completed.ending.reason = .completed
        #expect(PipelineRunFailed(summary: completed) == nil)
    }
}

private struct FinishedRuns: ListDelegate {
    let continuation: AsyncStream<RunFinished>.Continuation

    func onRunFinished(_ finished: RunFinished) async { continuation.yield(finished) }
}

private struct Pages: ListDelegate {
    let pages: AsyncStream<ListResponse>.Continuation
    let finished: AsyncStream<RunFinished>.Continuation

    func onListResponse(_ response: ListResponse) async { pages.yield(response) }
    func onRunFinished(_ run: RunFinished) async { finished.yield(run) }
}
