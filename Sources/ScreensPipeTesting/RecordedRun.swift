public import ScreensBus
public import ScreensPipeCore

/// Everything one pipeline run published, for assertions in tests.
///
/// ```swift
/// let run = try await RecordedRun(pipeline)
/// #expect(run.summary.succeeded)
/// #expect(run.items.count == 73)
/// #expect(run.errors.isEmpty)
/// ```
///
/// It subscribes before the run starts, so no event is missed, and reads every event to the
/// end, so the run never waits on it.
public struct RecordedRun: Sendable {
    /// Every event, in the order the bus published them.
    public let events: [PipelineEvent]
    /// The run's summary, a failed run's included: where ``Pipeline/run()`` throws a failed
    /// run's first error, a recording keeps the whole outcome for the test to assert on.
    public let summary: RunSummary

    /// Runs `pipeline` once and records what it published. Throws only when the run
    /// cannot start (a configuration error before the first page, for example).
    public init(_ pipeline: Pipeline) async throws(ScreensPipeError) {
        let subscription = pipeline.subscribe()
        let collector = Task {
            var events: [PipelineEvent] = []
            for await event in subscription { events.append(event) }
            return events
        }
        let outcome: Result<RunSummary, ScreensPipeError>
        do throws(ScreensPipeError) {
            outcome = .success(try await pipeline.runReturningFailures())
        } catch {
            outcome = .failure(error)
        }
        // The run finishes the bus in every case, which ends the subscription.
        let events = await collector.value
        self.summary = try outcome.get()
        self.events = events
    }

    /// The converted rows that passed the filter, in list order.
    public var items: [JSONValue] {
        events.compactMap { if case .selected(let row) = $0 { row.item } else { nil } }
    }

    /// Every `response` event: one per page (two under cache-and-remote).
    public var responses: [ListResponse] {
        events.compactMap { if case .response(let response) = $0 { response } else { nil } }
    }

    /// Every `error` event: pages, rows and the run.
    public var errors: [ListError] {
        events.compactMap { if case .error(let error) = $0 { error } else { nil } }
    }

    /// The `finished` event, when the run got that far.
    public var finished: RunFinished? {
        events.lazy.compactMap { if case .finished(let finished) = $0 { finished } else { nil } }.first
    }
}
