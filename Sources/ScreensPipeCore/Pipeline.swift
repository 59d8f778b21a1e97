import ScreensBus
import Synchronization
import Tracing

/// One pipeline: source -> cache -> convert -> filter -> sink, wired on an ``EventBus``.
///
/// ```swift
/// let pipeline = try Pipeline(file: "pipelines/bookmarks.yaml", environment: .current(sandbox: BundledSandbox()))
/// let events = pipeline.subscribe()      // subscribe before running
/// async let summary = pipeline.run()  // throws when a row, a page or the run failed
/// for await event in events { ... }
/// ```
///
/// A pipeline runs once: ``run()`` finishes the bus at the end, and a second call throws
/// ``ScreensPipeError/alreadyRan(pipeline:)``, so build a new pipeline for the next run (a
/// refresh). Every event goes through ``bus``: the spec's sink is one subscriber, and any
/// number of others can watch the same run. Cancelling the task that runs ``run()`` stops
/// the transfers, publishes `finished` to every subscriber with room for it, ends every
/// subscription and ends the run (``run()`` throws a `cancelled` error carrying the
/// summary), even while a subscription is held and never read.
public final class Pipeline: Sendable {
    /// The decoded pipeline file.
    public let spec: PipelineSpec
    /// The bus the run publishes on.
    public let bus: EventBus
    /// What the pipeline takes from the process around it (variables, sandbox, logger).
    public let environment: PipelineEnvironment
    /// The interruption asked for by ``interrupt(signal:)``, and the loading task it stops.
    private let interruption = Mutex<InterruptionState>(InterruptionState())

    /// Creates a pipeline from a spec (decoded from YAML, or built in code).
    public init(spec: PipelineSpec, environment: PipelineEnvironment = PipelineEnvironment(), bus: EventBus = EventBus()) {
        self.spec = spec
        self.environment = environment
        self.bus = bus
    }

    /// Set by the first ``run()`` (or session): a pipeline runs once.
    let started = Atomic(false)

    /// A new subscription to this pipeline's events, with one consumer. Subscribe before
    /// ``run()`` to see them all; call again for each further consumer.
    public func subscribe() -> EventSubscription { bus.subscribe() }

    /// Stops a running ``run()`` the way a signal should: no further page is fetched, every
    /// row already published is still written, `finished` says `interrupted` (with `signal`
    /// when given, e.g. `"SIGTERM"`), and a file output is kept as `<path>.partial` while
    /// the previous file at its path stays untouched. Safe from any thread, at any time,
    /// any number of times; before ``run()`` it makes the run stop at once.
    public func interrupt(signal: String? = nil) {
        let loading = interruption.withLock { state -> Task<Void, Never>? in
            if !state.requested {
                state.requested = true
                state.signal = signal
            }
            return state.loading
        }
        loading?.cancel()
    }

    /// Attaches a delegate that receives this pipeline's events (subscribe before ``run()``).
    @discardableResult
    public func attach(_ delegate: some ListDelegate) -> Task<Void, Never> {
        bus.attach(delegate)
    }

    /// ``run()`` for callers that report a failed run themselves (the CLI, the service, the
    /// test recorder): throws only when the run cannot start or already ran, and returns
    /// the summary of a run that failed or was interrupted, failures and all.
    package func runReturningFailures() async throws(ScreensPipeError) -> RunSummary {
        guard started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            throw .alreadyRan(pipeline: spec.name)
        }
        let stages: Stages
        let metrics = RunMetrics(pipeline: spec.name, factory: environment.metricsFactory)
        let span = PipelineSpans.startRun(pipeline: spec.name, recorder: environment.trace)
        do throws(ScreensPipeError) {
            stages = try await prepare(metrics: metrics)
        } catch {
            PipelineSpans.fail(span, error)
            span.end()
            metrics.failed(error)
            await bus.publish(.error(error.event(pipeline: spec.name)))
            bus.finish()
            throw error
        }
        let sinkSubscription = bus.subscribe()
        let tally = RunTally(metrics: metrics)
        if let resumed = stages.resume?.resumed?.checkpoint {
            tally.resume(pages: resumed.pages, rows: resumed.rows, selected: resumed.selected)
        }

        // Loading runs in its own task so that an interruption, or a sink that failed, can
        // stop the fetching alone: the sink still writes everything published before it.
        // The loading task, and every list, page and request span in it, under the run's span
        // (and drawn in the run's trace).
        let loading = TraceRecorder.$current.withValue(environment.trace) {
            ServiceContext.$current.withValue(span.context) { Task { await self.load(stages, tally: tally) } }
        }
        let interruptedEarly = interruption.withLock { state in
            state.loading = loading
            return state.requested
        }
        if interruptedEarly { loading.cancel() }

        await withDiscardingTaskGroup { group in
            group.addTask {
                do throws(SinkFailure) {
                    try await stages.sink.consume(sinkSubscription)
                } catch {
                    // The reader is gone or the disk failed: nothing more can be delivered.
                    tally.sinkStopped(by: error)
                    sinkSubscription.cancel()
                    loading.cancel()
                }
            }
            group.addTask {
                await withTaskCancellationHandler {
                    await loading.value
                } onCancel: {
                    loading.cancel()
                }
                self.bus.finish()
            }
        }
        await stages.fetcher?.shutdown()
        await stages.fanOut?.shutdown()
        await stages.server?.stop()

        var summary = tally.summary
        let completed = summary.succeeded && !summary.outputClosed && !Task.isCancelled
        // Only a complete list moves the cursor (a limited run left rows undelivered, so it
        // keeps the previous one).
        let advances = stages.incremental != nil && completed && summary.ending.reason == .completed
        // A file is renamed into place only after its new cursor is committed as pending on
        // its inode (the rename itself follows the file's fsync), so whichever step a crash
        // interrupts, the next run knows whether this output was published.
        let identity = advances ? stages.output?.identity : nil
        var publishes = completed
        if let incremental = stages.incremental, let identity {
            do throws(ScreensPipeError) {
                try await incremental.commitPending(output: identity)
            } catch {
                summary.record(error)
                metrics.failed(error)
                publishes = false
            }
        }
        do throws(SinkFailure) {
            summary.outputPath = try stages.sink.close(succeeded: publishes)
            summary.tableDelivery = stages.sink.tableDelivery
        } catch {
            if case .failed(let message) = error {
                summary.record(ScreensPipeError.sink(message))
                metrics.failed(ScreensPipeError.sink(message))
            }
        }
        // Last, once the output is in place (or written to a stream, which has no rename).
        if advances, let incremental = stages.incremental, summary.succeeded {
            do throws(ScreensPipeError) {
                try await incremental.commit()
            } catch {
                summary.record(error)
                metrics.failed(error)
            }
        }
        await stages.incremental?.close()
        await stages.resume?.finish(completed: publishes && summary.succeeded)
        await stages.listLock?.release()
        PipelineSpans.endRun(span, summary: summary)
        return summary
    }

    /// What ``interrupt(signal:)`` asked for, and the task it cancels.
    private struct InterruptionState {
        var requested = false
        var signal: String?
        var loading: Task<Void, Never>?
    }

    // MARK: - Stages

    struct Stages: Sendable {
        /// The one list's fetcher; nil for a fan-out, whose lists each get their own.
        var fetcher: (any PageFetcher)?
        /// The lists of a `for-each` or `recursive` source; nil for one list.
        var fanOut: FanOutRun?
        var converter: RowConverter
        var filter: RowFilter?
        var limit: Int?
        var skipsInvalidRows: Bool
        var sink: any EventSink
        var server: (any RunningServer)?
        var metrics: RunMetrics
        var incremental: IncrementalRun?
        /// The sink's file, when it is one renamed into place (an incremental commit needs its inode).
        var output: OutputFile?
        /// Resume checkpoints of a file of rows of one list (and the checkpoint `--resume` continues).
        var resume: ResumeRun?
        /// The convert and filter stages over rows kept as texts, when they can read them so.
        var textPlan: RowTextPlan?
        /// Held while the run reads and commits its list's state (``listStateLock()``).
        var listLock: RunLock?
        /// `prefetch: auto`'s controller for the one list (fed the source's retries).
        var prefetch: PrefetchController?
    }

    /// The stages of a run; `makesSink: false` for a session, which writes no sink.
    func prepare(makesSink: Bool = true, metrics: RunMetrics) async throws(ScreensPipeError) -> Stages {
        var converter = try RowConverter(spec: spec.convert)
        let filter = try spec.filter?.expression.map { (expression) throws(ScreensPipeError) in
            try RowFilter(expression: expression, location: spec.filter?.expressionLocation)
        }
        var server: (any RunningServer)?
        var baseURL: String?
        switch spec.source.server {
        case .sandbox:
            guard let launcher = environment.sandbox else {
                throw ScreensPipeError.configuration(
                    "server: sandbox needs the bundled sandbox portal; the screens-pipe command has it, a library user passes PipelineEnvironment(sandbox:)")
            }
            let running = try await launcher.start()
            server = running
            baseURL = running.baseURL
        case .url(let url):
            baseURL = url
        case nil:
            baseURL = nil
        }
        converter.serverURL = baseURL
        let listLock: RunLock?
        let incremental: IncrementalRun?
        do throws(ScreensPipeError) {
            listLock = makesSink ? try await listStateLock() : nil
        } catch {
            await server?.stop()
            throw error
        }
        do throws(ScreensPipeError) {
            incremental = makesSink ? try await IncrementalRun.prepare(spec: spec, environment: environment) : nil
        } catch {
            await listLock?.release()
            await server?.stop()
            throw error
        }
        let resume: ResumeRun?
        do throws(ScreensPipeError) {
            resume = makesSink ? try await ResumeRun.prepare(spec: spec, environment: environment, startCursor: incremental?.gate.startCursor) : nil
        } catch {
            await incremental?.close()
            await listLock?.release()
            await server?.stop()
            throw error
        }
        incremental?.gate.resume(from: resume?.resumed?.checkpoint.delivered)
        let pagination = SourceFactory.effectivePagination(for: spec.source)
        let prefetch =
            pagination.adaptivePrefetch && !spec.source.fansOut
            ? PrefetchController(ceiling: pagination.prefetch, onChange: { metrics.prefetchLimit($0) }) : nil
        var sourceEnvironment = instrumented(environment, metrics: metrics, prefetch: prefetch)
        // Rows stay texts unless a stage reads their values (RowReadPlan).
        let readPlan = RowReadPlan(
            converter: converter, filter: filter, incrementalCursor: incremental != nil, fanOut: spec.source.fansOut, deliversToSink: makesSink)
        if let resume { sourceEnvironment.cacheSnapshot = (resume.snapshot, resume.resumed != nil) }
        var fetcher: (any PageFetcher)?
        var fanOut: FanOutRun?
        do throws(ScreensPipeError) {
            if spec.source.fansOut {
                fanOut = try await FanOutRun.make(spec: spec, baseURL: baseURL, environment: instrumented(environment, metrics: metrics), metrics: metrics)
            } else {
                let source = try await SourceFactory.makeFetcher(
                    spec: incremental?.sourceSpec ?? spec, baseURL: baseURL, environment: sourceEnvironment, rows: readPlan.form)
                fetcher = InstrumentedFetcher(base: source, metrics: metrics, cached: spec.cache != nil)
            }
        } catch {
            await resume?.finish(completed: false)
            await incremental?.close()
            await listLock?.release()
            await server?.stop()
            throw error
        }
        // Last, so that no earlier failure leaves a temporary output file behind.
        let sink: any EventSink
        var output: OutputFile?
        do throws(ScreensPipeError) {
            (sink, output) = makesSink ? try await makeSink(resume: resume) : (DiscardSink(), nil)
        } catch {
            await resume?.finish(completed: false)
            await fetcher?.shutdown()
            await fanOut?.shutdown()
            await incremental?.close()
            await listLock?.release()
            await server?.stop()
            throw error
        }
        return Stages(fetcher: fetcher, fanOut: fanOut, converter: converter, filter: filter, limit: spec.filter?.limit,
            skipsInvalidRows: spec.convert?.onInvalid == .skip, sink: sink, server: server, metrics: metrics,
            incremental: incremental, output: output, resume: resume, textPlan: readPlan.textPlan, listLock: listLock, prefetch: prefetch)
    }

    /// The lock of this list's state, for a run that reads and commits it: an incremental
    /// cursor, or the checkpoint `--resume` continues from. Two such runs at once would
    /// both read the same state and deliver the same rows (architecture.md, "Running twice
    /// at once"); the second waits for the first to commit.
    /// An embedder that passes its own ``PipelineEnvironment/stateStore`` keeps the state
    /// where this run cannot lock it, and coordinates its runs itself (a pipeline's test
    /// cases run on a store of their own, for one).
    private func listStateLock() async throws(ScreensPipeError) -> RunLock? {
        guard spec.incremental != nil || environment.resume, environment.stateStore == nil else { return nil }
        return try await RunLock.acquire(
            .listState(try spec.stateKey()), at: .of(spec.cache, environment: environment.storageVariables),
            wait: spec.cache?.lockWait ?? RunLock.defaultWait, logger: environment.logger)
    }

    /// `environment` with retries and response sizes also counted in `metrics` and retry
    /// waits drawn in the trace.
    private func instrumented(
        _ environment: PipelineEnvironment, metrics: RunMetrics, prefetch: PrefetchController? = nil
    ) -> PipelineEnvironment {
        var instrumented = environment
        let onRetry = environment.onRetry
        let trace = environment.trace
        instrumented.onRetry = { notice in
            metrics.retried()
            // A retried request is the server's back-pressure (429, 503, a timeout, a reset).
            prefetch?.sawBackpressure()
            trace?.retryWait(page: notice.page, delay: notice.delay, attempt: notice.attempt, reason: notice.reason)
            onRetry?(notice)
        }
        instrumented.onResponseBody = { bytes in metrics.received(bytes: bytes) }
        return instrumented
    }

    private func makeSink(resume: ResumeRun?) async throws(ScreensPipeError) -> (any EventSink, OutputFile?) {
        let output: OutputFile
        switch spec.sink.destination {
        case .discard: return (DiscardSink(), nil)
        case .registered(let sink): return (try await sink.configuration.open(environment: environment.variables), nil)
        case .stdout: output = OutputFile.standardOutput()
        case .file(let path):
            if let resumed = resume?.resumed {
                output = try OutputFile.resuming(path, kept: resumed.kept, length: resumed.checkpoint.bytes)
            } else {
                output = try OutputFile.file(at: path)
            }
        }
        let projection = spec.sink.fields.map(FieldProjection.init)
        let sink: any EventSink =
            switch spec.sink.format {
            case .items: JSONLinesSink(output: output, mode: .items, projection: projection, checkpoints: resume)
            case .events: JSONLinesSink(output: output, mode: .events, projection: projection)
            case .table: TableSink(output: output, colors: environment.colorOutput, projection: projection, width: environment.tableWidth)
            case .csv: DelimitedSink(output: output, dialect: .csv, projection: projection)
            case .tsv: DelimitedSink(output: output, dialect: .tsv, projection: projection)
            }
        return (sink, output)
    }

    // MARK: - Loading

    private func load(_ stages: Stages, tally: RunTally) async {
        let name = spec.name
        let bus = self.bus
        var ending = RunEnding()
        do throws(ScreensPipeError) {
            if let fanOut = stages.fanOut {
                await bus.publish(.started(RunStarted(pipeline: name, source: fanOut.summary)))
                try await loadFanOut(fanOut, stages: stages, tally: tally, ending: &ending)
            } else if let fetcher = stages.fetcher {
                var started = RunStarted(pipeline: name, source: fetcher.summary)
                if let incremental = stages.incremental {
                    started.cursor = incremental.gate.startCursor?.text
                    started.cursorPushed = incremental.pushed
                }
                started.resumedFromPage = stages.resume?.resumed?.checkpoint.nextPage
                await bus.publish(.started(started))
                try await loadList(fetcher, stages: stages, tally: tally, ending: &ending)
            }
        } catch {
            if error.code != .cancelled || !Task.isCancelled {
                tally.record(failure: error)
                var event = error.event(pipeline: name)
                event.parent = stages.fanOut?.failure.parent
                await bus.publish(.error(event))
            }
            ending.reason = .failed
        }
        let (interrupted, signal) = interruption.withLock { ($0.requested, $0.signal) }
        let totals = tally.summary
        if totals.outputClosed {
            ending.reason = .outputClosed
        } else if totals.failureCount > 0 {
            ending.reason = .failed
        } else if interrupted || (Task.isCancelled && ending.reason == .failed) {
            ending.reason = .interrupted
            ending.signal = signal
        }
        tally.record(ending)
        var finished = RunFinished(
            pipeline: name, pages: totals.pages, rows: totals.rows, selected: totals.selected,
            errors: totals.failureCount, succeeded: totals.failureCount == 0 && ending.reason != .interrupted)
        if totals.skipped > 0 { finished.skipped = totals.skipped }
        finished.reason = ending.reason
        finished.signal = ending.signal
        finished.end = ending.end
        finished.endWarning = ending.endWarning
        // What the commit after the sink will store; a run that does not complete keeps the old one.
        if ending.reason == .completed, totals.failureCount == 0 {
            finished.cursor = stages.incremental?.gate.nextState?.cursor.text
        }
        finished.prefetch = stages.prefetch?.limit
        await bus.publish(.finished(finished))
    }

    static func response(for page: FetchedPage, pipeline: String, lineage: Lineage? = nil) -> ListResponse {
        var response = ListResponse(
            pipeline: pipeline, page: page.request.index, startRow: page.request.startRow,
            endRow: page.request.endRow, rowCount: page.rowCount, rows: page.rowsInPage, origin: page.origin)
        if page.origin != .file { response.fetchedAt = page.fetchedAt }
        if let mark = page.responseAction {
            response.action = mark.action.rawValue
            response.actionReason = mark.reason
        }
        response.paginator = page.paginator
        response.parent = lineage?.json
        return response
    }

    /// Loads the one list of a plain source.
    private func loadList(_ fetcher: any PageFetcher, stages: Stages, tally: RunTally, ending: inout RunEnding) async throws(ScreensPipeError) {
        let name = spec.name
        let bus = self.bus
        let loader = PageLoader(fetcher: fetcher, pagination: SourceFactory.effectivePagination(for: spec.source), prefetch: stages.prefetch)
        let span = PipelineSpans.startList(source: fetcher.summary)
        let outcome = try await PipelineSpans.within(span) { () throws(ScreensPipeError) in try await loader.load(
            provisional: { page in
                await bus.publish(.response(Self.response(for: page, pipeline: name)))
            },
            deliver: { (page) throws(ScreensPipeError) -> PageLoader.Decision in
                try await Self.deliver(page, stages: stages, pipeline: name, bus: bus, tally: tally)
            }) }
        switch outcome {
        case .stopped where stages.incremental?.gate.endedEarly == true:
            ending.reason = .completed
            ending.end = .cursor
        case .stopped:
            ending.reason = .limit
        case .ended(let end, let warning):
            ending.reason = .completed
            ending.end = end
            ending.endWarning = warning
        }
    }

    /// Loads a `for-each` or `recursive` source: each child list's pages, delivered in
    /// parent order with their parents named in the events.
    private func loadFanOut(_ fanOut: FanOutRun, stages: Stages, tally: RunTally, ending: inout RunEnding) async throws(ScreensPipeError) {
        let name = spec.name
        let bus = self.bus
        let include = spec.source.include
        let outcome = try await fanOut.load(
            provisional: { page, lineage in
                await bus.publish(.response(Self.response(for: page, pipeline: name, lineage: lineage)))
            },
            deliver: { (page, lineage) throws(ScreensPipeError) -> PageLoader.Decision in
                try await Self.deliver(page, stages: stages, pipeline: name, bus: bus, tally: tally, lineage: lineage, include: include)
            })
        switch outcome {
        case .stopped:
            ending.reason = .limit
        case .completed(let warnings):
            ending.reason = .completed
            ending.endWarning = warnings.isEmpty ? nil : warnings.joined(separator: "; ")
        }
    }

    /// Converts and filters one page and publishes its events as one batch. A cancelled run
    /// (an interrupt, a second signal) stops between rows and the page is not published.
    private static func deliver(
        _ page: FetchedPage, stages: Stages, pipeline: String, bus: EventBus, tally: RunTally,
        lineage: Lineage? = nil, include: [IncludedField] = []
    ) async throws(ScreensPipeError) -> PageLoader.Decision {
        let parent = lineage?.json
        // One bus message for the whole page: subscribers that want rows one by one get
        // them spelled out as events, the others (the sink, progress) never touch them.
        var events = PageEvents(response: response(for: page, pipeline: pipeline, lineage: lineage), parent: parent, reservingCapacity: page.rowsInPage)
        let included = lineage.map { ParentFields.object(include, from: $0) } ?? nil
        var selectedBefore = tally.selected
        let selectedAtStart = selectedBefore
        let convertSpan = PipelineSpans.startStage(PipelineSpans.convert, page: page.request.index)
        var failures: [ScreensPipeError] = []
        var skipped = 0
        var decision = PageLoader.Decision.next
        let index = page.request.index
        // Already in the kept output of the run this one resumes.
        if let resume = stages.resume, index < resume.startPage { return decision }
        let rowStages = RowStages(stages)
        if let lazy = page.storage.lazyValues, included == nil, rowStages.changesNoRow {
            // Nothing reads or changes these rows: every one is selected as its text, and no
            // tree of them is made unless a subscriber asks for the values.
            let count = stages.limit.map { min(page.rowsInPage, max(0, $0 - selectedBefore)) } ?? page.rowsInPage
            events.appendSelected(rows: lazy, firstRow: page.request.startRow, count: count)
            selectedBefore += count
            if let limit = stages.limit, selectedBefore >= limit { decision = .stop }
        } else {
            // Rows kept as texts that the stages can read as texts: each selected row's text is
            // written from its row's text, and no tree is made. Otherwise the rows' values. (A
            // plan exists only without an incremental cursor; parent fields need the tree.)
            let kept = included == nil ? page.storage.lazyValues?.texts : nil
            var reader = kept.flatMap { rows in stages.textPlan.map { RowTextReader(plan: $0, stages: rowStages, rows: rows) } }
            let values = reader == nil ? page.rows : []
            // Rows read as values that come out as they went in keep the text they were stored as.
            let received = reader == nil && stages.converter.isIdentity && included == nil ? page.rowTexts : nil
            rows: for offset in 0..<page.rowsInPage {
                if offset & 63 == 63, Task.isCancelled { throw ScreensPipeError.cancelled("the run was cancelled") }
                let rowNumber = page.request.startRow + offset
                let verdict: RowStages.Verdict
                if let read = reader?.process(rowAt: offset, row: rowNumber, page: index) {
                    verdict = read
                    // Outcomes stay in row order: the rows selected before a failed one go first.
                    if case .failed = verdict { reader?.flush(into: &events) }
                } else {
                    let outcome = rowStages.process(values[offset], row: rowNumber, page: index, adding: included)
                    if case .passed(let item) = outcome { events.appendSelected(row: rowNumber, item: item, text: received?[offset]) }
                    verdict = outcome.verdict
                }
                switch verdict {
                case .passed:
                    selectedBefore += 1
                    if let limit = stages.limit, selectedBefore >= limit {
                        decision = .stop
                        break rows
                    }
                case .filteredOut:
                    continue
                case .skipped:
                    skipped += 1
                case .failed(let located):
                    let named = lineage?.naming(located) ?? located
                    failures.append(named)
                    var event = named.event(pipeline: pipeline)
                    event.parent = parent
                    events.appendError(event)
                }
            }
            reader?.flush(into: &events)
        }
        if case .next = decision, let gate = stages.incremental?.gate, try gate.endsList(afterPage: page.rows, index: index) {
            decision = .stop
        }
        tally.record(page: page.rowsInPage, selectedTotal: selectedBefore, failures: failures, skipped: skipped)
        stages.resume?.mark(page: index, summary: tally.summary, failed: !failures.isEmpty, gate: stages.incremental?.gate)
        stages.metrics.delivered(page, selected: selectedBefore - selectedAtStart)
        PipelineSpans.endStage(convertSpan, rows: page.rowsInPage, selected: selectedBefore - selectedAtStart)
        // Waits here while the sink (or another subscriber) is behind: backpressure shows.
        let publishSpan = PipelineSpans.startStage(PipelineSpans.publish, page: index)
        await bus.publish(page: events)
        PipelineSpans.endStage(publishSpan, rows: page.rowsInPage, selected: selectedBefore - selectedAtStart)
        return decision
    }
}
