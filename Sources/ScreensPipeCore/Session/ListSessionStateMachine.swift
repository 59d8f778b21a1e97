import ScreensBus

/// The rules of a list session, apart from the concurrency: which page a command asks
/// for, which pages may be fetched, what each arrival means for the list, and which events
/// answer. Its state holds all the data; each input returns the actions to take, and
/// nothing else mutates it.
///
/// Fetching follows the client: a page is requested only when a command asked for it or it
/// lies within `prefetch` pages after a page a command asked for, never past a known end
/// or `max-pages`. Page 0 goes alone (it carries the row count), and chained lists (cursor,
/// next link) are fetched one page after another, as in a run. A page that failed is asked
/// again only when a command asks for it again.
struct ListSessionStateMachine {
    /// What the driver does, in order.
    enum Action: Equatable {
        /// Hand these events to the client.
        case emit([SessionEvent])
        /// Fetch a page; report it with ``fetched(_:_:)`` (and ``provisional(_:_:)``).
        case fetch(FetchTicket)
        /// Pull to refresh: drop every fetch of earlier loads and open the source again so
        /// that it fetches from the server and updates the cache. Failing, report it as an
        /// `error` event tagged `id`.
        case renewSource(id: JSONValue?)
        /// Write an edit through the pipeline's sink (and the cache's pages); report how it
        /// ended with ``edited(_:_:)`` before the next command.
        case edit(EditTicket)
        /// Follow the list every interval, in place of any follow before; report changes
        /// with ``changed(_:)`` and the end with ``followEnded(_:)``.
        case follow(every: Duration)
        /// Stop following.
        case unfollow
        /// Fetch the first `pages` pages of load `load` again (the list changed); report
        /// them with ``reloaded(load:pages:)``.
        case reload(load: Int, pages: Int)
        /// The session is over: stop reading commands and fetching.
        case finish
    }

    /// One fetch of one page of one load (a refresh starts a new load).
    struct FetchTicket: Hashable, Sendable {
        var load: Int
        var request: PageRequest
    }

    /// What the session has shown so far, for `finished`.
    struct Totals {
        var pages = 0
        var rows = 0
        var selected = 0
        /// Every `error` event, refused commands included.
        var errors = 0
        /// Errors of pages and rows: rows the client asked for and did not get.
        var failures = 0
        var skipped = 0

        mutating func record(_ error: ListError, count: Int = 1) {
            errors += count
            if error.kind != Self.commandKind { failures += count }
        }

        /// The `kind` of errors that refuse a command.
        static let commandKind = "command"
    }

    /// A command that waits for a page.
    struct Waiter: Equatable {
        var id: JSONValue?
    }

    enum Slot {
        /// Asked for, not requested yet (page 0 or the previous chained page is on its way).
        case pending([Waiter])
        /// Requested; `waiters` get its events when it arrives.
        case fetching([Waiter], provisionalShown: Bool)
        /// Arrived and converted; `shown` once a command asked for it.
        case loaded(LoadedPage, shown: Bool)
        /// The last fetch failed; fetched again only when a command asks for it.
        case failed
    }

    /// One load of the list: from `load` (or a refresh) on.
    struct Listing {
        var load: Int
        var totals: Totals
        var slots: [Int: Slot] = [:]
        /// Every page a command asked for in this load.
        var asked: Set<Int> = []
        /// The page `next` follows.
        var cursor = 0
        var pageZeroAnswered = false
        /// The first page index known to be past the end of the list.
        var endIndex: Int?
        /// Indexed lists: the ending rules, the same as a run's.
        var ending: IndexedListEnding
        /// Chained lists: which page comes next and how the list ends.
        var chain: ChainedLoadState?
        var chainInFlight = false
        /// Chained lists: what broke the chain after the last page (a repeated link...).
        var chainFailure: ScreensPipeError?
        /// The commands ended: answer the pages still awaited, fetch nothing else, then finish.
        var draining = false

        /// Whether a command still waits for a page.
        var awaitsPages: Bool {
            slots.values.contains { slot in
                switch slot {
                case .pending(let waiters), .fetching(let waiters, _): !waiters.isEmpty
                case .loaded, .failed: false
                }
            }
        }

        init(load: Int, totals: Totals, pagination: PaginationSpec, chaining: PageChaining, requestsPageSize: Bool) {
            self.load = load
            self.totals = totals
            ending = IndexedListEnding(pagination: pagination, requestsPageSize: requestsPageSize)
            if chaining == .chained { chain = ChainedLoadState(pagination: pagination, requestsPageSize: requestsPageSize) }
        }
    }

    enum State {
        /// Nothing loaded yet.
        case idle(Totals, loads: Int)
        case listing(Listing)
        case closed
    }

    let pipeline: String
    let pagination: PaginationSpec
    let chaining: PageChaining
    let requestsPageSize: Bool
    let prefetch: Int
    let rowStages: RowStages
    /// How edits become writes, or why there are none (ListSessionEdits.swift).
    let editRules: SessionEditRules
    private(set) var state: State = .idle(Totals(), loads: 0)
    /// The `follow` command the list is followed for (its id tags the `changed` events).
    private(set) var following: Waiter?

    /// The most pages a session looks ahead of the page asked for.
    static let maximumPrefetch = 16

    init(
        pipeline: String, pagination: PaginationSpec, chaining: PageChaining, requestsPageSize: Bool, prefetch: Int, rowStages: RowStages,
        editRules: SessionEditRules = .noSink
    ) {
        self.editRules = editRules
        self.pipeline = pipeline
        self.pagination = pagination
        self.chaining = chaining
        self.requestsPageSize = requestsPageSize
        self.prefetch = min(max(0, prefetch), Self.maximumPrefetch)
        self.rowStages = rowStages
    }

    // MARK: - Inputs

    /// The session opened on `source`: the `started` event.
    func start(source: String) -> [Action] {
        [.emit([SessionEvent(.pipeline(.started(RunStarted(pipeline: pipeline, source: source))))])]
    }

    /// A command arrived.
    mutating func receive(_ request: SessionRequest) -> [Action] {
        let id = request.id
        switch (state, request.operation) {
        case (.closed, _):
            return []
        case (_, .unreadable(let reason)):
            return commandError(reason, id: id)
        case (_, .close):
            return finish(id: id)
        case (_, .follow(let every)):
            following = Waiter(id: id)
            return [.emit([SessionEvent(.following(pipeline: pipeline, every: every), id: id)]), .follow(every: every)]
        case (_, .unfollow):
            guard following != nil else {
                return commandError("the list is not followed: send {\"op\":\"follow\",\"every\":\"30s\"} first", id: id)
            }
            following = nil
            return [.emit([SessionEvent(.following(pipeline: pipeline, every: nil), id: id)]), .unfollow]
        case (.idle(let totals, let loads), .load):
            var listing = newListing(load: loads + 1, totals: totals)
            let actions = ask(0, id: id, in: &listing)
            state = .listing(listing)
            return actions
        case (.idle(let totals, let loads), .refresh):
            return refresh(id: id, totals: totals, loads: loads)
        case (.idle, .next), (.idle, .page):
            return commandError("nothing is loaded yet: send {\"op\":\"load\"} first", id: id)
        case (.idle, .select(let row)):
            return commandError("row \(row) is not on a page shown in this session: nothing is loaded yet", id: id)
        case (.idle, .edit):
            return commandError(editRules.refusal ?? "nothing is loaded yet: send {\"op\":\"load\"} first; a session edits the list it shows", id: id)
        case (.listing(var listing), .load):
            let actions = ask(0, id: id, in: &listing)
            state = .listing(listing)
            return actions
        case (.listing(var listing), .next):
            let actions = ask(listing.cursor + 1, id: id, in: &listing)
            state = .listing(listing)
            return actions
        case (.listing(var listing), .page(let index)):
            let actions = ask(index, id: id, in: &listing)
            state = .listing(listing)
            return actions
        case (.listing(let listing), .refresh):
            return refresh(id: id, totals: listing.totals, loads: listing.load)
        case (.listing(var listing), .select(let row)):
            let actions = select(row, id: id, in: &listing)
            state = .listing(listing)
            return actions
        case (.listing(var listing), .edit(let edit)):
            let actions = beginEdit(edit, id: id, in: &listing)
            state = .listing(listing)
            return actions
        }
    }

    /// The commands ended (stdin closed): as `close` without an id, once the pages that
    /// commands asked for have been answered (`printf '{"op":"load"}\n' | screens-pipe
    /// session` shows page 0). Nothing is prefetched meanwhile.
    mutating func inputEnded() -> [Action] {
        guard case .listing(var listing) = state, listing.awaitsPages else { return finish(id: nil) }
        listing.draining = true
        state = .listing(listing)
        return []
    }

    /// The session was cancelled: `finished` at once, with reason `interrupted`.
    mutating func interrupted() -> [Action] {
        finish(id: nil, reason: .interrupted)
    }

    /// An edit was written, kept pending, or failed: the list changes with it.
    mutating func edited(_ ticket: EditTicket, _ result: EditResult) -> [Action] {
        guard case .listing(var listing) = state, listing.load == ticket.load else { return [] }
        let actions = finishEdit(ticket, result, in: &listing)
        state = .listing(listing)
        return actions
    }

    /// A follow found changes: `changed` events for the `follow` command, and the loaded
    /// pages fetched again so that they and the count show the list as it is now.
    mutating func changed(_ changes: [ListChange]) -> [Action] {
        guard let follow = following, !changes.isEmpty else { return [] }
        var actions: [Action] = [.emit(changes.map { SessionEvent(.changed(pipeline: pipeline, change: $0), id: follow.id) })]
        if case .listing(let listing) = state, !listing.isLoading {
            let pages = loadedRun(in: listing).count
            if pages > 0 { actions.append(.reload(load: listing.load, pages: pages)) }
        }
        return actions
    }

    /// The loaded pages, fetched again after a change: they replace the pages shown.
    mutating func reloaded(load: Int, pages: [FetchedPage]) -> [Action] {
        guard case .listing(var listing) = state, listing.load == load, !pages.isEmpty, !listing.isLoading else { return [] }
        relist(pages, replacing: loadedRun(in: listing).count, in: &listing)
        state = .listing(listing)
        return []
    }

    /// The follow ended on its own: a failure no retry mends (its state cannot be kept...).
    mutating func followEnded(_ failure: ScreensPipeError?) -> [Action] {
        guard let follow = following, let failure else { return [] }
        following = nil
        let event = failure.event(pipeline: pipeline)
        switch state {
        case .listing(var listing):
            listing.totals.record(event)
            state = .listing(listing)
        case .idle(var totals, let loads):
            totals.record(event)
            state = .idle(totals, loads: loads)
        case .closed:
            return []
        }
        return [.emit([SessionEvent(.pipeline(.error(event)), id: follow.id)])]
    }

    /// An early answer for a page (the cached copy under cache-and-remote): shown as a
    /// `response` to the commands waiting for the page, once, as a run shows it.
    mutating func provisional(_ ticket: FetchTicket, _ page: FetchedPage) -> [Action] {
        guard case .listing(var listing) = state, listing.load == ticket.load,
            case .fetching(let waiters, provisionalShown: false)? = listing.slots[ticket.request.index], !waiters.isEmpty
        else { return [] }
        listing.slots[ticket.request.index] = .fetching(waiters, provisionalShown: true)
        state = .listing(listing)
        let response = Pipeline.response(for: page, pipeline: pipeline)
        return [.emit(waiters.map { SessionEvent(.response(SessionResponse(response, following: 0, provisional: true)), id: $0.id) })]
    }

    /// A fetch ended.
    mutating func fetched(_ ticket: FetchTicket, _ result: Result<FetchedPage, ScreensPipeError>) -> [Action] {
        let index = ticket.request.index
        guard case .listing(var listing) = state, listing.load == ticket.load,
            case .fetching(let waiters, _)? = listing.slots[index]
        else { return [] }
        if listing.chain != nil { listing.chainInFlight = false }
        var actions: [Action]
        switch accept(result, index: index, in: &listing) {
        case .failure(let error):
            listing.slots[index] = .failed
            let event = error.event(pipeline: pipeline)
            listing.totals.record(event, count: waiters.count)
            actions = waiters.isEmpty ? [] : [.emit(waiters.map { SessionEvent(.pipeline(.error(event)), id: $0.id) })]
        case .success(let page):
            let loaded = LoadedPage(page, stages: rowStages, pipeline: pipeline)
            listing.slots[index] = .loaded(loaded, shown: !waiters.isEmpty)
            if !waiters.isEmpty { count(loaded, in: &listing) }
            actions = waiters.map { show(loaded, id: $0.id, in: listing) }
            actions += finalError(afterShowing: index, to: waiters, in: &listing)
        }
        actions += dropPastEnd(in: &listing)
        actions += launchWindow(in: &listing)
        state = .listing(listing)
        if listing.draining, !listing.awaitsPages { actions += finish(id: nil) }
        return actions
    }

    // MARK: - Commands

    private func newListing(load: Int, totals: Totals) -> Listing {
        Listing(load: load, totals: totals, pagination: pagination, chaining: chaining, requestsPageSize: requestsPageSize)
    }

    private mutating func refresh(id: JSONValue?, totals: Totals, loads: Int) -> [Action] {
        var listing = newListing(load: loads + 1, totals: totals)
        // `loading` first, at once; the source is renewed before page 0 is fetched.
        var actions = ask(0, id: id, in: &listing)
        let firstFetch = actions.firstIndex { action in
            if case .fetch = action { return true }
            return false
        }
        actions.insert(.renewSource(id: id), at: firstFetch ?? actions.endIndex)
        state = .listing(listing)
        return actions
    }

    private mutating func finish(id: JSONValue?, reason: RunStopReason? = nil) -> [Action] {
        let totals: Totals
        switch state {
        case .idle(let idle, _): totals = idle
        case .listing(let listing): totals = listing.totals
        case .closed: return []
        }
        state = .closed
        var finished = RunFinished(
            pipeline: pipeline, pages: totals.pages, rows: totals.rows, selected: totals.selected, errors: totals.errors,
            succeeded: totals.failures == 0)
        if totals.skipped > 0 { finished.skipped = totals.skipped }
        finished.reason = reason
        return [.emit([SessionEvent(.pipeline(.finished(finished)), id: id)]), .finish]
    }

    /// A command answered with an `error` event and nothing else: the session goes on.
    private mutating func commandError(_ message: String, id: JSONValue?, page: Int? = nil) -> [Action] {
        switch state {
        case .idle(var totals, let loads):
            totals.errors += 1
            state = .idle(totals, loads: loads)
        case .listing(var listing):
            listing.totals.errors += 1
            state = .listing(listing)
        case .closed:
            return []
        }
        return [.emit([errorEvent(ListError(pipeline: pipeline, page: page, kind: Totals.commandKind, message: message), id: id)])]
    }

    private func errorEvent(_ error: ListError, id: JSONValue?) -> SessionEvent {
        SessionEvent(.pipeline(.error(error)), id: id)
    }

    /// `load`, `next` or `page`: announce the page, then show it from memory, wait for its
    /// fetch, or start one.
    private func ask(_ index: Int, id: JSONValue?, in listing: inout Listing) -> [Action] {
        if let refusal = refusal(of: index, in: listing) {
            listing.totals.record(refusal)
            return [.emit([errorEvent(refusal, id: id)])]
        }
        listing.asked.insert(index)
        listing.cursor = index
        var actions: [Action] = [.emit([SessionEvent(.loading(pipeline: pipeline, page: index), id: id)])]
        let waiter = Waiter(id: id)
        switch listing.slots[index] {
        case .loaded(let page, let shown)?:
            if !shown {
                listing.slots[index] = .loaded(page, shown: true)
                count(page, in: &listing)
            }
            actions.append(show(page, id: id, in: listing))
            actions += finalError(afterShowing: index, to: [waiter], in: &listing)
        case .fetching(let waiters, let provisionalShown)?:
            listing.slots[index] = .fetching(waiters + [waiter], provisionalShown: provisionalShown)
        case .pending(let waiters)?:
            listing.slots[index] = .pending(waiters + [waiter])
        case .failed?, nil:
            listing.slots[index] = .pending([waiter])
        }
        return actions + launchWindow(in: &listing)
    }

    /// Why page `index` cannot be asked for, when it cannot.
    private func refusal(of index: Int, in listing: Listing) -> ListError? {
        if let end = listing.endIndex, index >= end {
            if let failure = listing.chainFailure { return failure.event(pipeline: pipeline) }
            let pages = end == 1 ? "1 page" : "\(end) pages"
            return ListError(
                pipeline: pipeline, page: index, kind: Totals.commandKind,
                message: "page \(index) is past the end of the list, which has \(pages) (0 to \(end - 1))")
        }
        if index >= pagination.maxPages { return PageLoader.tooManyPages(pagination.maxPages, page: index).event(pipeline: pipeline) }
        if listing.chain != nil, index > 0 {
            let reachable = (listing.slots.keys.max() ?? 0) + 1
            if index > reachable {
                return ListError(
                    pipeline: pipeline, page: index, kind: Totals.commandKind,
                    message: "the list is chained (each page names the next), so it is read in order: the furthest page that can be asked for now is page \(reachable), not \(index)")
            }
        }
        return nil
    }

    /// `select`: the row as the Screenlet delegate's `onSelected` gets it.
    private func select(_ row: Int, id: JSONValue?, in listing: inout Listing) -> [Action] {
        for case .loaded(let page, true) in listing.slots.values {
            if let selected = page.row(row) {
                listing.totals.selected += 1
                return [.emit([SessionEvent(.pipeline(.selected(selected)), id: id)])]
            }
            if (page.response.startRow..<(page.response.startRow + page.response.rows)).contains(row) {
                listing.totals.errors += 1
                return [.emit([errorEvent(
                    ListError(
                        pipeline: pipeline, page: page.response.page, row: row, kind: Totals.commandKind,
                        message: "row \(row) of page \(page.response.page) is not in the list: it did not pass the filter or did not convert"),
                    id: id)])]
            }
        }
        listing.totals.errors += 1
        return [.emit([errorEvent(
            ListError(pipeline: pipeline, row: row, kind: Totals.commandKind, message: "row \(row) is not on a page shown in this session"),
            id: id)])]
    }

    // MARK: - Pages

    /// The events that show `page` to one command: its `response`, then its rows.
    private func show(_ page: LoadedPage, id: JSONValue?, in listing: Listing) -> Action {
        let last = listing.endIndex.map { page.response.page + 1 >= $0 } ?? false
        var events = [SessionEvent(.response(SessionResponse(page.response, following: page.rowEvents.count, last: last)), id: id)]
        events.reserveCapacity(page.rowEvents.count + 1)
        for kind in page.rowEvents { events.append(SessionEvent(kind, id: id)) }
        return .emit(events)
    }

    /// After the last page of an indexed list is shown: the error a run ends the same list
    /// with although every page was fine (a marker path no page carried), as an `error` event.
    private func finalError(afterShowing index: Int, to waiters: [Waiter], in listing: inout Listing) -> [Action] {
        guard !waiters.isEmpty, listing.chain == nil, listing.endIndex == index + 1, let error = listing.ending.finalError else { return [] }
        let event = error.event(pipeline: pipeline)
        listing.totals.record(event, count: waiters.count)
        return [.emit(waiters.map { SessionEvent(.pipeline(.error(event)), id: $0.id) })]
    }

    /// Adds a page to the totals the first time a command sees it.
    private func count(_ page: LoadedPage, in listing: inout Listing) {
        listing.totals.pages += 1
        listing.totals.rows += page.response.rows
        listing.totals.errors += page.errorCount
        listing.totals.failures += page.errorCount
        listing.totals.skipped += page.skipped
    }

    /// Applies the checks and ending rules of the list to a fetched page.
    private func accept(_ result: Result<FetchedPage, ScreensPipeError>, index: Int, in listing: inout Listing) -> Result<FetchedPage, ScreensPipeError> {
        let fetched: FetchedPage
        switch result {
        case .failure(let error): return .failure(error)
        case .success(let page): fetched = page
        }
        if var chain = listing.chain {
            let verdict = chain.receive(fetched)
            listing.chain = chain
            switch verdict {
            case .reject(let error):
                return .failure(error)
            case .deliver(let page, let after):
                switch after {
                case .next: break
                case .end: listing.endIndex = index + 1
                case .fail(let error):
                    listing.endIndex = index + 1
                    listing.chainFailure = error
                }
                return .success(page)
            }
        }
        if index == 0 { listing.pageZeroAnswered = true }
        if let broken = listing.ending.accept(fetched) { return .failure(broken) }
        if let end = listing.ending.endIndex { listing.endIndex = min(listing.endIndex ?? end, end) }
        return .success(fetched)
    }

    /// Once the end is known: pages past it are dropped, and commands waiting for them are
    /// told so.
    private func dropPastEnd(in listing: inout Listing) -> [Action] {
        guard let end = listing.endIndex else { return [] }
        var events: [SessionEvent] = []
        for index in listing.slots.keys.sorted() where index >= end {
            switch listing.slots.removeValue(forKey: index) {
            case .pending(let waiters)?, .fetching(let waiters, _)?:
                for waiter in waiters {
                    if let refusal = refusal(of: index, in: listing) {
                        listing.totals.record(refusal)
                        events.append(errorEvent(refusal, id: waiter.id))
                    }
                }
            default:
                break
            }
        }
        return events.isEmpty ? [] : [.emit(events)]
    }

    /// Requests every page the client asked for, and up to `prefetch` pages after each,
    /// that may be requested now.
    private func launchWindow(in listing: inout Listing) -> [Action] {
        var wanted = Set<Int>()
        for page in listing.asked where !listing.draining {
            for ahead in 0...prefetch {
                let (index, overflow) = page.addingReportingOverflow(ahead)
                if overflow || index >= pagination.maxPages { break }
                if let end = listing.endIndex, index >= end { break }
                wanted.insert(index)
            }
        }
        for (index, slot) in listing.slots {
            if case .pending = slot { wanted.insert(index) }
        }
        var actions: [Action] = []
        for index in wanted.sorted() {
            let waiters: [Waiter]
            switch listing.slots[index] {
            case .pending(let pending)?: waiters = pending
            case nil: waiters = []
            case .fetching?, .loaded?, .failed?: continue
            }
            guard let request = launchableRequest(index, in: listing) else { continue }
            listing.slots[index] = .fetching(waiters, provisionalShown: false)
            if listing.chain != nil { listing.chainInFlight = true }
            actions.append(.fetch(FetchTicket(load: listing.load, request: request)))
        }
        return actions
    }

    /// The request for page `index` when it may be sent now: page 0 goes alone, and a
    /// chained page follows the one before it.
    private func launchableRequest(_ index: Int, in listing: Listing) -> PageRequest? {
        if let chain = listing.chain {
            guard !listing.chainInFlight, chain.index == index else { return nil }
            return chain.nextRequest()
        }
        guard index == 0 || listing.pageZeroAnswered else { return nil }
        return PageRequest(index: index, pagination: pagination)
    }
}
