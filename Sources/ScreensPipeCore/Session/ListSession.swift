public import ScreensBus

/// A list driven page by page, the way a list Screenlet's user drives it: load the first
/// page, scroll to the next, jump to a page, pull to refresh, select a row.
///
/// ```swift
/// let pipeline = try Pipeline(file: "pipelines/bookmarks.yaml", environment: .current(sandbox: BundledSandbox()))
/// let (commands, client) = AsyncStream.makeStream(of: SessionRequest.self)
/// client.yield(SessionRequest(.load, id: "first"))
/// let finished = try await pipeline.session(prefetch: 1).run(commands) { event in
///     switch event.kind {
///     case .row(let row) where row.row == 49:      // the last row of page 0
///         client.yield(SessionRequest(.select(row: 2), id: "tap"))
///     case .pipeline(.selected(let row)):
///         print("selected", row.item["name"]?.stringValue ?? "")
///         client.finish()                          // the end of the commands: finished
///     default:
///         break
///     }
/// }
/// ```
///
/// Every command is answered by events tagged with its `id` (``SessionEvent``): `loading`
/// at once for a page, then its `response` and a `row` for each row; `selected` for a
/// selection; `error` for a command that cannot be done (the session goes on) or a page
/// that failed; `finished` at `close` or when the commands end. Pages are fetched through
/// the pipeline's source and cache stage, under its cache policy, page by page as in a
/// run; nothing is fetched beyond the pages asked for and `prefetch` pages after each.
///
/// The pipeline's bus carries the session too (``SessionEvent/pipelineEvent``), so a
/// subscriber or an attached `ListDelegate` sees `started`, each `response`, each `error`,
/// the user's selections as `selected` (a Screenlet delegate's `onSelected`) and
/// `finished`, and its subscription ends with the session.
public struct ListSession: Sendable {
    /// The pipeline whose list the session shows; a pipeline runs (or opens a session) once.
    public let pipeline: Pipeline
    /// How many pages after each page asked for may be fetched ahead (0 to 16).
    public let prefetch: Int

    /// A session over `pipeline`, looking `prefetch` pages ahead of each page asked for.
    public init(pipeline: Pipeline, prefetch: Int = 0) {
        self.pipeline = pipeline
        self.prefetch = prefetch
    }

    /// Runs the session until a `close` command, the end of `commands`, a failing `emit`
    /// (the client is gone) or cancellation; returns the `finished` totals.
    ///
    /// `emit` gets every event in order and is awaited before the next command is read, so
    /// a client that does not keep up slows the session down instead of piling up events.
    /// Throws only when the session cannot open (see ``Pipeline/run()``).
    @discardableResult
    public func run(
        _ commands: some AsyncSequence<SessionRequest, Never> & Sendable,
        emit: @escaping @Sendable (SessionEvent) async throws -> Void
    ) async throws(ScreensPipeError) -> RunFinished {
        guard pipeline.started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            throw .alreadyRan(pipeline: pipeline.spec.name)
        }
        let stages: Pipeline.Stages
        let fetcher: any PageFetcher
        do throws(ScreensPipeError) {
            if pipeline.spec.source.fansOut {
                throw ScreensPipeError.configuration(
                    "a session pages one list; a source with for-each or recursive is many lists: load it with run")
            }
            stages = try await pipeline.prepare(
                makesSink: false, metrics: RunMetrics(pipeline: pipeline.spec.name, factory: pipeline.environment.metricsFactory))
            guard let listFetcher = stages.fetcher else { throw ScreensPipeError.configuration("the session's source has no fetcher") }
            fetcher = listFetcher
        } catch {
            await pipeline.bus.publish(.error(error.event(pipeline: pipeline.spec.name)))
            pipeline.bus.finish()
            throw error
        }
        let editing = SessionEditor.make(pipeline: pipeline, server: stages.server)
        var driver = SessionDriver(
            pipeline: pipeline, stages: stages, fetcher: fetcher,
            machine: ListSessionStateMachine(
                pipeline: pipeline.spec.name, pagination: SourceFactory.effectivePagination(for: pipeline.spec.source),
                chaining: fetcher.chaining, requestsPageSize: fetcher.requestsPageSize, prefetch: prefetch,
                rowStages: RowStages(stages), editRules: editing.rules),
            editor: editing.editor, emit: emit)
        return await driver.run(commands)
    }
}

extension Pipeline {
    /// This pipeline as an interactive ``ListSession``: pages load when the client asks,
    /// looking `prefetch` pages ahead. Like ``run()``, a pipeline opens one session, once.
    public func session(prefetch: Int = 0) -> ListSession {
        ListSession(pipeline: self, prefetch: prefetch)
    }
}
