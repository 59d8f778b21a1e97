import ScreensBus

/// Walks a list page by page with fluent pagination, fetching up to `prefetch` pages at
/// once and handing them over strictly in list order.
///
/// Where a list ends is one type's decision per kind of list, shared with the list session:
/// ``IndexedListEnding`` for indexed lists (JSON-WS, headless, REST offset and page, file),
/// ``ChainedLoadState`` for chained ones (cursor, next link, `Link` header). Both end a list
/// where its protocol says it ends, and turn every other ending into an error naming the
/// page: more rows than asked for, rows past the reported count, a page that repeats an
/// earlier one (``PageSequenceGuard``), a next link or cursor seen before, more than
/// `maxPages` pages. A loader that stopped silently would lose rows unnoticed.
package struct PageLoader: Sendable {
    /// What the consumer wants after a page.
    package enum Decision: Sendable {
        /// Go on to the next page.
        case next
        /// Stop fetching (a `limit` was reached, the output closed).
        case stop
    }

    /// How a load that did not fail came to its end.
    package enum Outcome: Sendable, Hashable {
        /// The consumer asked to stop (``Decision/stop``).
        case stopped
        /// The end of the list was reached by `end`; `warning` says why that end may not be
        /// the real one (only for ``ListEnd/shortPage``).
        case ended(ListEnd, warning: String?)
    }

    /// The source (or cache stage) every page is fetched from.
    package let fetcher: any PageFetcher
    /// The page sizes, prefetch and page limit, as the source really uses them.
    package let pagination: PaginationSpec

    /// With `prefetch: auto`, what tunes the pages in flight (fed the source's retries too).
    let prefetch: PrefetchController?

    /// Creates a loader that walks `fetcher`'s list with `pagination`. `prefetch` is the
    /// controller of a `prefetch: auto` list (one is made when the pagination asks for it).
    package init(fetcher: any PageFetcher, pagination: PaginationSpec) {
        self.init(fetcher: fetcher, pagination: pagination, prefetch: nil)
    }

    init(fetcher: any PageFetcher, pagination: PaginationSpec, prefetch: PrefetchController?) {
        self.fetcher = fetcher
        self.pagination = pagination
        self.prefetch = prefetch ?? (pagination.adaptivePrefetch ? PrefetchController(ceiling: pagination.prefetch) : nil)
    }

    /// Loads the list. `provisional` gets early answers (cached copies under
    /// cache-and-remote) for the page that is due next; `deliver` gets every final page in
    /// order, exactly once. Returns how the load ended; throws the error that stopped it.
    @discardableResult
    package func load(
        provisional: @Sendable (FetchedPage) async -> Void,
        deliver: @Sendable (FetchedPage) async throws(ScreensPipeError) -> Decision
    ) async throws(ScreensPipeError) -> Outcome {
        switch fetcher.chaining {
        case .indexed: try await loadIndexed(provisional: provisional, deliver: deliver)
        case .chained: try await loadChained(provisional: provisional, deliver: deliver)
        }
    }

    /// The warning for a list without a row count that ended on a short page: the only
    /// ambiguous ending (chained lists end by their protocol's marker, never by a size).
    static func shortPageWarning(page: FetchedPage) -> String {
        let asked = page.request.endRow - page.request.startRow
        return "the list ended on page \(page.request.index), which had \(page.rowsInPage) of \(asked) rows, and the source reports no row count; a portal that hides rows by permission sends such pages mid-list too, so rows after it may be missing. Make the end exact with a row count: count (liferay-jsonws) or total (rest)"
    }

    // MARK: - Indexed pages (prefetch)

    private enum Message: Sendable {
        case provisional(index: Int, page: FetchedPage)
        case completed(index: Int, result: Result<FetchedPage, ScreensPipeError>, elapsed: Duration)
    }

    private func loadIndexed(
        provisional: @Sendable (FetchedPage) async -> Void,
        deliver: @Sendable (FetchedPage) async throws(ScreensPipeError) -> Decision
    ) async throws(ScreensPipeError) -> Outcome {
        let fetcher = self.fetcher
        let pagination = self.pagination
        // A discarding group: page tasks report through `messages`, never through the group,
        // and a plain task group keeps every finished child until it is awaited, so memory
        // grew with the length of the list (about 10 KB per page).
        let requestsPageSize = fetcher.requestsPageSize
        let prefetch = self.prefetch
        let outcome: Result<Outcome, ScreensPipeError> = await withDiscardingTaskGroup { group in
            let (messages, sender) = AsyncStream.makeStream(of: Message.self)
            var state = IndexedLoadState(pagination: pagination, requestsPageSize: requestsPageSize, prefetch: prefetch)

            func launch(_ index: Int) {
                let request = PageRequest(index: index, pagination: pagination)
                group.addTask {
                    let start = ContinuousClock.now
                    do throws(ScreensPipeError) {
                        var page = try await fetcher.fetch(request) { early in
                            sender.yield(.provisional(index: index, page: early))
                        }
                        PageSequenceGuard.prepare(&page)
                        sender.yield(.completed(index: index, result: .success(page), elapsed: ContinuousClock.now - start))
                    } catch {
                        sender.yield(.completed(index: index, result: .failure(error), elapsed: ContinuousClock.now - start))
                    }
                }
            }

            defer {
                sender.finish()
                group.cancelAll()
            }
            for index in state.pagesToLaunch() { launch(index) }
            for await message in messages {
                switch message {
                case .provisional(let index, let page):
                    if let due = state.receiveProvisional(index: index, page: page) { await provisional(due) }
                case .completed(let index, let result, let elapsed):
                    if let prefetch, index > 0 {
                        // Page 0 goes alone, and a page from the cache says nothing of the server.
                        let failed = if case .failure = result { true } else { false }
                        let remote = if case .success(let page) = result { page.origin == .remote } else { true }
                        if remote { prefetch.completed(after: elapsed, failed: failed) }
                    }
                    state.receive(index: index, result: result)
                    // The next request goes out before this page is converted and published,
                    // so the server's latency overlaps the work on the page (at prefetch 1 too).
                    for index in state.pagesToLaunch() { launch(index) }
                }
                // Hand over everything that is ready, in order.
                while let step = state.nextStep() {
                    switch step {
                    case .provisional(let page):
                        await provisional(page)
                    case .deliver(let page):
                        do throws(ScreensPipeError) {
                            if try await deliver(page) == .stop { return .success(.stopped) }
                        } catch {
                            return .failure(error)
                        }
                    case .fail(let error):
                        return .failure(error)
                    case .finished:
                        return .success(state.outcome)
                    }
                }
                if Task.isCancelled { return .failure(ScreensPipeError.cancelled("the run was cancelled")) }
                for index in state.pagesToLaunch() { launch(index) }
            }
            return .failure(ScreensPipeError.cancelled("the run was cancelled"))
        }
        return try outcome.get()
    }

    // MARK: - Chained pages (cursor, next link)

    private func loadChained(
        provisional: @Sendable (FetchedPage) async -> Void,
        deliver: @Sendable (FetchedPage) async throws(ScreensPipeError) -> Decision
    ) async throws(ScreensPipeError) -> Outcome {
        var state = ChainedLoadState(pagination: pagination, requestsPageSize: fetcher.requestsPageSize)
        while true {
            if Task.isCancelled { throw ScreensPipeError.cancelled("the run was cancelled") }
            let page = try await fetcher.fetch(state.nextRequest(), provisional: provisional)
            switch state.receive(page) {
            case .reject(let error):
                throw error
            case .deliver(let page, let after):
                if try await deliver(page) == .stop { return .stopped }
                switch after {
                case .next: continue
                case .end(let end, let warning): return .ended(end, warning: warning)
                case .fail(let error): throw error
                }
            }
        }
    }

    /// Says which pages `on-response:` rules skipped: their rows are not in the output.
    static func skippedPagesWarning(_ pages: [FetchedPage]) -> String? {
        guard let first = pages.first, let action = first.responseAction else { return nil }
        let names = pages.prefix(20).map { String($0.request.index) }.joined(separator: ", ") + (pages.count > 20 ? ", ..." : "")
        return "\(pages.count) page\(pages.count == 1 ? " was" : "s were") skipped (page\(pages.count == 1 ? "" : "s") \(names)), their rows are not in the output: \(action.reason)"
    }

    static func tooManyPages(_ maxPages: Int, page: Int) -> ScreensPipeError {
        ScreensPipeError(
            .pagination,
            "the list has more than \(maxPages) pages (max-pages); raise source.pagination.max-pages if that is expected",
            page: page)
    }

    /// Page 0 reported a row count no list can have.
    static func impossibleRowCount(_ count: Int, page: Int) -> ScreensPipeError {
        ScreensPipeError.malformedResponse("the server reports a row count of \(count), which is negative", page: page)
    }

    /// Page 0 reported more rows than `max-pages` pages can hold: fail before fetching
    /// thousands of pages only to fail at the end.
    static func rowCountPastMaxPages(_ count: Int, pages: Int, maxPages: Int, page: Int) -> ScreensPipeError {
        ScreensPipeError(
            .pagination,
            "the server reports \(count) rows, which take \(pages) pages, more than max-pages (\(maxPages)); raise source.pagination.max-pages if that is expected",
            page: page)
    }
}

/// The bookkeeping of an indexed load, kept apart from the concurrency: which pages to
/// request and hand over; where the list ends is ``IndexedListEnding``'s to say.
struct IndexedLoadState {
    enum Step {
        case provisional(FetchedPage)
        case deliver(FetchedPage)
        case fail(ScreensPipeError)
        case finished
    }

    let pagination: PaginationSpec
    /// The next page index to request.
    private(set) var nextToLaunch = 0
    /// The next page index to hand over.
    private(set) var nextToDeliver = 0
    private var ending: IndexedListEnding
    private var completed: [Int: Result<FetchedPage, ScreensPipeError>] = [:]
    private var provisionals: [Int: FetchedPage] = [:]
    private var provisionalSent: Set<Int> = []
    private var inFlight = 0
    /// `prefetch: auto`'s controller; nil keeps `pagination.prefetch` in flight.
    private let prefetch: PrefetchController?

    init(pagination: PaginationSpec, requestsPageSize: Bool = true, prefetch: PrefetchController? = nil) {
        self.pagination = pagination
        self.prefetch = prefetch
        ending = IndexedListEnding(pagination: pagination, requestsPageSize: requestsPageSize)
    }

    /// The first page index known to be past the end of the list.
    var endIndex: Int? { ending.endIndex }

    /// The row count page 0 reported.
    var rowCount: Int? { ending.rowCount }

    /// How the list ended, once ``nextStep()`` said `.finished`.
    var outcome: PageLoader.Outcome { ending.outcome }

    /// Pages to request now: keep `prefetch` in flight, never past the known end or max-pages.
    /// Arrived pages wait for their turn; with the one being delivered, at most `prefetch + 1`
    /// pages are held at once, whatever order they arrive in.
    ///
    /// Page 0 goes alone: it carries the row count, and with the count known no request is
    /// ever sent for a page past the end (a short list, or a failing server, costs one request
    /// instead of `prefetch`).
    mutating func pagesToLaunch() -> [Int] {
        var indexes: [Int] = []
        let window = max(1, min(prefetch?.limit ?? pagination.prefetch, pagination.prefetch))
        while inFlight < window, nextToLaunch <= nextToDeliver + window, nextToLaunch < pagination.maxPages {
            if ending.isPastEnd(nextToLaunch) { break }
            if nextToLaunch > 0, nextToDeliver == 0 { break }
            indexes.append(nextToLaunch)
            nextToLaunch += 1
            inFlight += 1
            if nextToLaunch > 1 { prefetch?.launched(inFlight: inFlight) }
        }
        return indexes
    }

    /// A provisional page arrived; returns it when it is for the page due next.
    mutating func receiveProvisional(index: Int, page: FetchedPage) -> FetchedPage? {
        provisionals[index] = page
        if index == nextToDeliver, provisionalSent.insert(index).inserted { return page }
        return nil
    }

    mutating func receive(index: Int, result: Result<FetchedPage, ScreensPipeError>) {
        inFlight -= 1
        completed[index] = result
    }

    /// What to do next, or nil to wait for more pages.
    mutating func nextStep() -> Step? {
        if ending.isPastEnd(nextToDeliver) {
            if let error = ending.finalError { return .fail(error) }
            return .finished
        }
        if nextToDeliver >= pagination.maxPages {
            return .fail(PageLoader.tooManyPages(pagination.maxPages, page: nextToDeliver))
        }
        let index = nextToDeliver
        if let early = provisionals[index], provisionalSent.insert(index).inserted {
            return .provisional(early)
        }
        guard let result = completed.removeValue(forKey: index) else { return nil }
        provisionals[index] = nil
        let page: FetchedPage
        switch result {
        case .failure(let error): return .fail(error)
        case .success(let fetched): page = fetched
        }
        if let broken = ending.accept(page) { return .fail(broken) }
        nextToDeliver += 1
        // Results of speculative requests past the end are dropped, errors included.
        if let endIndex = ending.endIndex { completed = completed.filter { $0.key < endIndex } }
        return .deliver(page)
    }

    /// The number of pages that cover `rows` rows (``IndexedListEnding/pageCount(forRows:)``).
    func pageCount(forRows rows: Int) -> Int {
        ending.pageCount(forRows: rows)
    }
}
