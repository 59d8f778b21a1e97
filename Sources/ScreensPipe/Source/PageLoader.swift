import ScreensBus

/// Walks a list page by page with fluent pagination, fetching up to `prefetch` pages at
/// once and handing them over strictly in list order.
///
/// The one rule that ends a list, per kind of source (README, "How a list is loaded"):
///
/// - Indexed lists (JSON-WS, headless, REST offset and page, file) with a row count (asked
///   with page 0): the list ends at the first page `p` with `firstRow(p) >= rowCount`, even
///   past short pages (portals filter by permission after slicing).
/// - Indexed lists without a row count: the first page with fewer rows than asked ends the
///   list. That ending is ambiguous (a page shortened by permission filtering looks the
///   same), so the outcome carries a warning that says how to make it exact.
/// - Chained lists (cursor, next link, `Link` header): the list ends on the first page whose
///   next-page marker is there and empty: a null or empty cursor or link, or a `Link` header
///   without `rel="next"`. A page without any marker ends the list only when it is short
///   (ambiguous, warned about as above); a full page without one is an error. A page with a
///   next link goes on, even when it has no rows (hidden rows can empty a page).
///
/// Every other ending is an error naming the page: more rows than asked for, a page that
/// repeats an earlier one (``PageSequenceGuard``), a next link or cursor seen before, more
/// than `maxPages` pages. A loader that stopped silently would lose rows unnoticed.
package struct PageLoader: Sendable {
    /// What the consumer wants after a page.
    public enum Decision: Sendable {
        /// Go on to the next page.
        case next
        /// Stop fetching (a `limit` was reached, the output closed).
        case stop
    }

    /// How a load that did not fail came to its end.
    public enum Outcome: Sendable, Hashable {
        /// The consumer asked to stop (``Decision/stop``).
        case stopped
        /// The end of the list was reached by `end`; `warning` says why that end may not be
        /// the real one (only for ``ListEnd/shortPage``).
        case ended(ListEnd, warning: String?)
    }

    /// The source (or cache stage) every page is fetched from.
    public let fetcher: any PageFetcher
    /// The page sizes, prefetch and page limit, as the source really uses them.
    public let pagination: PaginationSpec

    /// Creates a loader that walks `fetcher`'s list with `pagination`.
    public init(fetcher: any PageFetcher, pagination: PaginationSpec) {
        self.fetcher = fetcher
        self.pagination = pagination
    }

    /// Loads the list. `provisional` gets early answers (cached copies under
    /// cache-and-remote) for the page that is due next; `deliver` gets every final page in
    /// order, exactly once. Returns how the load ended; throws the error that stopped it.
    @discardableResult
    public func load(
        provisional: @Sendable (FetchedPage) async -> Void,
        deliver: @Sendable (FetchedPage) async throws(ScreensPipeError) -> Decision
    ) async throws(ScreensPipeError) -> Outcome {
        switch fetcher.chaining {
        case .indexed: try await loadIndexed(provisional: provisional, deliver: deliver)
        case .chained: try await loadChained(provisional: provisional, deliver: deliver)
        }
    }

    /// The warning for a list that ended on a short page with nothing else marking its end.
    static func shortPageWarning(page: FetchedPage, marker: String?) -> String {
        let asked = page.request.endRow - page.request.startRow
        var text = "the list ended on page \(page.request.index), which had \(page.rowsInPage) of \(asked) rows"
        if let marker {
            text += " and \(marker); a server that hides rows by permission sends such pages mid-list too, so rows after it may be missing. Make the end exact: the server should send the next-page marker as null (or an empty string) on the last page"
        } else {
            text += ", and the source reports no row count; a portal that hides rows by permission sends such pages mid-list too, so rows after it may be missing. Make the end exact with a row count: count (liferay-jsonws) or total (rest)"
        }
        return text
    }

    // MARK: - Indexed pages (prefetch)

    private enum Message: Sendable {
        case provisional(index: Int, page: FetchedPage)
        case completed(index: Int, result: Result<FetchedPage, ScreensPipeError>)
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
        let outcome: Result<Outcome, ScreensPipeError> = await withDiscardingTaskGroup { group in
            let (messages, sender) = AsyncStream.makeStream(of: Message.self)
            var state = IndexedLoadState(pagination: pagination, requestsPageSize: requestsPageSize)

            func launch(_ index: Int) {
                let request = PageRequest(index: index, pagination: pagination)
                group.addTask {
                    do throws(ScreensPipeError) {
                        var page = try await fetcher.fetch(request) { early in
                            sender.yield(.provisional(index: index, page: early))
                        }
                        PageSequenceGuard.prepare(&page)
                        sender.yield(.completed(index: index, result: .success(page)))
                    } catch {
                        sender.yield(.completed(index: index, result: .failure(error)))
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
                case .completed(let index, let result):
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

/// The bookkeeping of an indexed load, kept apart from the concurrency so each rule of
/// fluent pagination is one small, testable decision.
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
    /// The first page index known to be past the end of the list.
    private(set) var endIndex: Int?
    private(set) var rowCount: Int?
    private var completed: [Int: Result<FetchedPage, ScreensPipeError>] = [:]
    private var provisionals: [Int: FetchedPage] = [:]
    private var provisionalSent: Set<Int> = []
    private var inFlight = 0
    private var checks: PageSequenceGuard
    /// The short page that ended a list without a row count.
    private var endingShortPage: FetchedPage?
    /// Whether page 0's page count (headless `lastPage`) set the end, for lack of a row count.
    private var endedByPageCount = false
    /// The page whose `on-response:` rule ended the list.
    private var endingActionPage: FetchedPage?
    /// Pages an `on-response:` rule skipped, for the `finished` event.
    private var skippedPages: [FetchedPage] = []

    init(pagination: PaginationSpec, requestsPageSize: Bool = true) {
        self.pagination = pagination
        checks = PageSequenceGuard(requestsPageSize: requestsPageSize)
    }

    /// How the list ended, once ``nextStep()`` said `.finished`.
    var outcome: PageLoader.Outcome {
        let skipped = PageLoader.skippedPagesWarning(skippedPages)
        if let endingActionPage, let action = endingActionPage.responseAction {
            let text = "the list ended on page \(endingActionPage.request.index): \(action.reason)"
            return .ended(.responseAction, warning: [text, skipped].compactMap { $0 }.joined(separator: "; "))
        }
        if let endingShortPage, rowCount == nil {
            let text = PageLoader.shortPageWarning(page: endingShortPage, marker: nil)
            return .ended(.shortPage, warning: [text, skipped].compactMap { $0 }.joined(separator: "; "))
        }
        return .ended(endedByPageCount ? .lastPage : .rowCount, warning: skipped)
    }

    /// Pages to request now: keep `prefetch` in flight, never past the known end or max-pages.
    /// Arrived pages wait for their turn; with the one being delivered, at most `prefetch + 1`
    /// pages are held at once, whatever order they arrive in.
    ///
    /// Page 0 goes alone: it carries the row count, and with the count known no request is
    /// ever sent for a page past the end (a short list, or a failing server, costs one request
    /// instead of `prefetch`).
    mutating func pagesToLaunch() -> [Int] {
        var indexes: [Int] = []
        let window = max(1, pagination.prefetch)
        while inFlight < window, nextToLaunch <= nextToDeliver + window, nextToLaunch < pagination.maxPages {
            if let endIndex, nextToLaunch >= endIndex { break }
            if nextToLaunch > 0, nextToDeliver == 0 { break }
            indexes.append(nextToLaunch)
            nextToLaunch += 1
            inFlight += 1
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
        if let endIndex, nextToDeliver >= endIndex { return .finished }
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
        switch page.responseAction?.action {
        case .endList?:
            endIndex = index + 1
            endingActionPage = page
            nextToDeliver += 1
            completed = completed.filter { $0.key < index + 1 }
            return .deliver(page)
        case .skipPage?:
            // The page's rows are missing, said in `finished`; the list goes on.
            skippedPages.append(page)
            nextToDeliver += 1
            return .deliver(page)
        default:
            break
        }
        if index == 0, let count = page.rowCount {
            guard count >= 0 else { return .fail(PageLoader.impossibleRowCount(count, page: index)) }
            let pages = pageCount(forRows: count)
            guard pages <= pagination.maxPages else {
                return .fail(PageLoader.rowCountPastMaxPages(count, pages: pages, maxPages: pagination.maxPages, page: index))
            }
            rowCount = count
            endIndex = max(1, pages)
        } else if index == 0, let pages = page.pageCount {
            // No count, but the server numbered its pages (headless `lastPage`): that is the end.
            guard pages <= pagination.maxPages else {
                return .fail(PageLoader.tooManyPages(pagination.maxPages, page: index))
            }
            endIndex = max(1, pages)
            endedByPageCount = true
        }
        if let broken = checks.check(page) { return .fail(broken) }
        if rowCount == nil, !endedByPageCount, page.isShort {
            endIndex = index + 1
            endingShortPage = page
        }
        nextToDeliver += 1
        // Results of speculative requests past the end are dropped, errors included.
        if let endIndex { completed = completed.filter { $0.key < endIndex } }
        return .deliver(page)
    }

    /// The number of pages that cover `rows` rows. `rows` comes from a server, so nothing
    /// here may overflow: `Int.max` rows is a (huge) page count, not a trap.
    func pageCount(forRows rows: Int) -> Int {
        if rows <= 0 { return 0 }
        if rows <= pagination.firstPageSize { return 1 }
        let rest = rows - pagination.firstPageSize
        let pageSize = max(1, pagination.pageSize)
        return 1 + rest / pageSize + (rest % pageSize == 0 ? 0 : 1)
    }
}
