import Foundation
import ScreensBus
import ScreensPipe
import TestSupport
import Testing

/// A pipeline's lifecycle: a run always ends, and a pipeline runs once. Each case hung (or
/// quietly did the wrong thing) before; the `completion` guard turns a hang into a failure.
@Suite("Pipeline liveness")
struct PipelineLivenessTests {
    @Test("a cancelled run returns while a subscription is held and never read")
    func cancelledRunReturnsWithAHeldSubscription() async throws {
        // Room for one event per subscriber: the held subscription is full after `started`.
        let pipeline = try Pipeline(
            file: Embedding.path("pipelines/bookmarks.yaml"), sink: .discard, environment: Embedding.environment(),
            bus: EventBus(bufferSize: 1))
        let held = pipeline.subscribe()
        let reader = pipeline.subscribe()
        let readerStarted = AsyncStream<Void>.makeStream()
        let reading = Task {
            var seen: [PipelineEvent] = []
            for await event in reader {
                seen.append(event)
                if case .started = event { readerStarted.continuation.yield() }
            }
            return seen
        }
        let run = Task { try await pipeline.run() }
        // Events reach subscribers in subscription order: the reader has `started`, so the
        // held subscription is full and the run's next publish waits on it.
        for await _ in readerStarted.stream { break }
        run.cancel()

        let outcome = await completion { await run.result }
        #expect(outcome != nil, "the cancelled run is still waiting for the unread subscription")
        // The held subscription was cut short: what it held, then the end.
        let heldEvents = try #require(await completion { await held.reduce(into: [PipelineEvent]()) { $0.append($1) } })
        #expect(heldEvents.count == 1)
        if case .started? = heldEvents.first {} else { Issue.record("held: \(heldEvents)") }
        let seen = try #require(await completion { await reading.value })
        if case .started? = seen.first {} else { Issue.record("reader: \(seen)") }
    }

    /// The bookmarks of samples/offline, from the file: no server, no cache.
    private static func offline() -> Pipeline {
        let spec = PipelineSpec(
            name: "offline",
            source: SourceSpec(
                type: .file(FileSourceSpec(path: Embedding.path("samples/offline/bookmarks.json"))),
                pagination: PaginationSpec(firstPageSize: 4, pageSize: 3)),
            convert: ConvertSpec(model: .bookmark),
            sink: SinkSpec(destination: .discard))
        return Pipeline(spec: spec, environment: PipelineEnvironment(variables: Embedding.variables()))
    }

    @Test("a second run() throws alreadyRan and leaves the bus alone")
    func secondRunThrowsAlreadyRan() async throws {
        let pipeline = Self.offline()
        let events = pipeline.subscribe()
        async let seen: [PipelineEvent] = events.reduce(into: []) { $0.append($1) }
        let first = try await pipeline.run()
        #expect(first.succeeded)

        let thrown = await #expect(throws: ScreensPipeError.self) { try await pipeline.run() }
        #expect(thrown?.code == .alreadyRan)
        #expect(thrown == .alreadyRan(pipeline: pipeline.spec.name))

        let all = await seen
        #expect(all.filter { if case .started = $0 { true } else { false } }.count == 1)
        #expect(all.filter { if case .finished = $0 { true } else { false } }.count == 1)
        #expect(!all.contains { if case .error = $0 { true } else { false } })
    }

    @Test("each subscribe() is a new subscription with its own consumer")
    func subscribeIsAFunction() async throws {
        let pipeline = Self.offline()
        let first = pipeline.subscribe()
        let second = pipeline.subscribe()
        #expect(pipeline.bus.subscriberCount == 2)
        async let a: Int = first.reduce(into: 0) { count, _ in count += 1 }
        async let b: Int = second.reduce(into: 0) { count, _ in count += 1 }
        let summary = try await pipeline.run()
        let (countA, countB) = await (a, b)
        #expect(countA == countB)
        #expect(countA == summary.selected + summary.pages + 2)  // started, pages, rows, finished
    }
}
