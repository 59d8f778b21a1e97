import ScreensBus

/// Runs a ``ListSessionStateMachine``: feeds it commands and fetch results one at a time,
/// and carries out the actions it returns. The machine decides; this only fetches and emits.
struct SessionDriver {
    typealias Machine = ListSessionStateMachine

    /// Everything the machine reacts to, in the order it arrived.
    private enum Input: Sendable {
        /// A command; `processed` is resumed once its actions are done, so at most one
        /// command waits here however fast the client writes.
        case command(SessionRequest, processed: CheckedContinuation<Void, Never>)
        case commandsEnded
        case provisional(Machine.FetchTicket, FetchedPage)
        case fetched(Machine.FetchTicket, Result<FetchedPage, ScreensPipeError>)
        /// A batch of changes of the followed list.
        case changed([ListChange])
        /// The follow ended, failing or stopped.
        case followEnded(ScreensPipeError?)
    }

    let pipeline: Pipeline
    let stages: Pipeline.Stages
    var machine: Machine
    let emit: @Sendable (SessionEvent) async throws -> Void
    /// Writes edits through the pipeline's `liferay` sink; nil when it has none.
    let editor: SessionEditor?
    private var fetcher: any PageFetcher
    private var fetches: [Machine.FetchTicket: Task<Void, Never>] = [:]
    /// The follow under way, when the client asked for one.
    private var follow: SessionFollow?
    /// The last `finished` the machine emitted.
    private var finished: RunFinished?

    init(
        pipeline: Pipeline, stages: Pipeline.Stages, fetcher: any PageFetcher, machine: Machine, editor: SessionEditor? = nil,
        emit: @escaping @Sendable (SessionEvent) async throws -> Void
    ) {
        self.editor = editor
        self.pipeline = pipeline
        self.stages = stages
        self.machine = machine
        self.emit = emit
        self.fetcher = fetcher
    }

    mutating func run(_ commands: some AsyncSequence<SessionRequest, Never> & Sendable) async -> RunFinished {
        let (inputs, sender) = AsyncStream.makeStream(of: Input.self)
        let reader = Task {
            for await request in commands {
                await withCheckedContinuation { processed in
                    if case .terminated = sender.yield(.command(request, processed: processed)) { processed.resume() }
                }
            }
            sender.yield(.commandsEnded)
        }
        var open = await perform(machine.start(source: fetcher.summary), sender: sender)
        if open {
            for await input in inputs {
                switch input {
                case .command(let request, let processed):
                    open = await perform(machine.receive(request), sender: sender)
                    processed.resume()
                case .commandsEnded:
                    open = await perform(machine.inputEnded(), sender: sender)
                case .provisional(let ticket, let page):
                    open = await perform(machine.provisional(ticket, page), sender: sender)
                case .fetched(let ticket, let result):
                    fetches[ticket] = nil
                    open = await perform(machine.fetched(ticket, result), sender: sender)
                case .changed(let changes):
                    open = await perform(machine.changed(changes), sender: sender)
                case .followEnded(let failure):
                    open = await perform(machine.followEnded(failure), sender: sender)
                }
                if !open { break }
            }
        }
        if open {
            // Cancelled: the commands did not say goodbye, so the session says it.
            _ = await perform(machine.interrupted(), sender: sender)
        }
        reader.cancel()
        await follow?.stop()
        follow = nil
        sender.finish()
        // A command that arrived after the end still gets its continuation back.
        for await input in inputs {
            if case .command(_, let processed) = input { processed.resume() }
        }
        await stopFetches()
        await fetcher.shutdown()
        await stages.server?.stop()
        pipeline.bus.finish()
        return finished ?? RunFinished(pipeline: pipeline.spec.name, pages: 0, rows: 0, selected: 0, errors: 0, succeeded: true)
    }

    /// Carries out `actions`; false once the session is over.
    private mutating func perform(_ actions: [Machine.Action], sender: AsyncStream<Input>.Continuation) async -> Bool {
        for action in actions {
            switch action {
            case .emit(let events):
                for event in events {
                    if case .pipeline(.finished(let totals)) = event.kind { finished = totals }
                    do {
                        try await emit(event)
                    } catch {
                        // The client is gone: nothing more can be delivered.
                        return false
                    }
                    if let published = event.pipelineEvent { await pipeline.bus.publish(published) }
                }
            case .fetch(let ticket):
                let fetcher = self.fetcher
                fetches[ticket] = Task {
                    do throws(ScreensPipeError) {
                        let page = try await fetcher.fetch(ticket.request) { early in
                            sender.yield(.provisional(ticket, early))
                        }
                        sender.yield(.fetched(ticket, .success(page)))
                    } catch {
                        sender.yield(.fetched(ticket, .failure(error)))
                    }
                }
            case .renewSource(let id):
                if let failure = await renewSource() {
                    do {
                        try await emit(SessionEvent(.pipeline(.error(failure.event(pipeline: pipeline.spec.name))), id: id))
                    } catch {
                        return false
                    }
                }
            case .edit(let ticket):
                // Carried out before the next command is read: the list changes in order.
                let result: Machine.EditResult
                if let editor {
                    let (emit, pipeline, op) = (self.emit, machine.pipeline, ticket.edit.name)
                    result = await editor.write(ticket) { sent, total in
                        // A client gone mid-upload ends the session after the edit.
                        try? await emit(SessionEvent(.progress(pipeline: pipeline, op: op, sent: sent, total: total), id: ticket.id))
                    }
                    await editor.editCache(of: fetcher, ticket, result)
                } else {
                    result = .failed(ScreensPipeError.configuration("this session has no liferay sink to write to"))
                }
                if await !perform(machine.edited(ticket, result), sender: sender) { return false }
            case .follow(let every):
                await follow?.stop()
                // Polls of the portal the session reads: the sandbox it started, not a new one.
                var spec = pipeline.spec
                if case .sandbox? = spec.source.server, let server = stages.server { spec.source.server = .url(server.baseURL) }
                follow = SessionFollow.start(
                    spec: spec, environment: pipeline.environment, interval: every,
                    deliver: { changes in sender.yield(.changed(changes)) }, ended: { failure in sender.yield(.followEnded(failure)) })
            case .unfollow:
                await follow?.stop()
                follow = nil
            case .reload(let load, let count):
                var pages: [FetchedPage] = []
                for index in 0..<count {
                    // A page that cannot be fetched now leaves the pages as they were.
                    guard let page = try? await fetcher.fetch(PageRequest(index: index, pagination: machine.pagination)) else { break }
                    pages.append(page)
                }
                if pages.count == count, await !perform(machine.reloaded(load: load, pages: pages), sender: sender) { return false }
            case .finish:
                return false
            }
        }
        return true
    }

    /// Pull to refresh: the fetches of the earlier load stop, and the source is opened
    /// again so that it fetches every page from the server and stores it (under cache-only,
    /// which never fetches, it reads the cache again). Returns why that failed, if it did;
    /// the earlier source then stays.
    private mutating func renewSource() async -> ScreensPipeError? {
        await stopFetches()
        guard let cache = pipeline.spec.cache else { return nil }
        var environment = pipeline.environment
        environment.refresh = cache.policy != .cacheOnly
        let renewed: any PageFetcher
        do throws(ScreensPipeError) {
            renewed = try await SourceFactory.makeFetcher(spec: pipeline.spec, baseURL: baseURL, environment: environment)
        } catch {
            return error
        }
        await fetcher.shutdown()
        fetcher = renewed
        return nil
    }

    /// The server the source talks to: the sandbox the session started, or the spec's URL.
    private var baseURL: String? {
        if let server = stages.server { return server.baseURL }
        if case .url(let url)? = pipeline.spec.source.server { return url }
        return nil
    }

    private mutating func stopFetches() async {
        let running = Array(fetches.values)
        fetches = [:]
        for task in running { task.cancel() }
        for task in running { await task.value }
    }
}
