import ScreensBus

/// Walks a list page by page with fluent pagination (DESIGN §2), fetching up to
/// `prefetch` pages at once and handing them over strictly in list order.
///
/// Stop rules: with a row count (asked with page 0), pages continue until
/// `firstRow(p) >= rowCount`, even past short pages (portals filter by permission after
/// slicing). Without a count, the first short or empty page ends the list. More than
/// `maxPages` pages, or a page that repeats the previous one, is an error: a loader that
/// stops silently would lose rows without anyone noticing.
public struct PageLoader: Sendable {
    /// What the consumer wants after a page.
    public enum Decision: Sendable {
        /// Go on to the next page.
        case next
        /// Stop fetching (a `limit` was reached, the output closed).
        case stop
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
    /// order, exactly once.
    public func load(
        provisional: @Sendable (FetchedPage) async -> Void,
        deliver: @Sendable (FetchedPage) async throws(ScreensPipeError) -> Decision
    ) async throws(ScreensPipeError) {
        switch fetcher.chaining {
        case .indexed: try await loadIndexed(provisional: provisional, deliver: deliver)
        case .chained: try await loadChained(provisional: provisional, deliver: deliver)
        }
    }

    // MARK: - Indexed pages (prefetch)

    private enum Message: Sendable {
        case provisional(index: Int, page: FetchedPage)
        case completed(index: Int, result: Result<FetchedPage, ScreensPipeError>)
    }

    private func loadIndexed(
        provisional: @Sendable (FetchedPage) async -> Void,
        deliver: @Sendable (FetchedPage) async throws(ScreensPipeError) -> Decision
    ) async throws(ScreensPipeError) {
        let fetcher = self.fetcher
        let pagination = self.pagination
        // A discarding group: page tasks report through `messages`, never through the group,
        // and a plain task group keeps every finished child until it is awaited, so memory
        // grew with the length of the list (about 10 KB per page).
        let outcome: Result<Void, ScreensPipeError> = await withDiscardingTaskGroup { group in
            let (messages, sender) = AsyncStream.makeStream(of: Message.self)
            var state = IndexedLoadState(pagination: pagination)

            func launch(_ index: Int) {
                let request = PageRequest(index: index, pagination: pagination)
                group.addTask {
                    do throws(ScreensPipeError) {
                        let page = try await fetcher.fetch(request) { early in
                            sender.yield(.provisional(index: index, page: early))
                        }
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
                }
                // Hand over everything that is ready, in order.
                while let step = state.nextStep() {
                    switch step {
                    case .provisional(let page):
                        await provisional(page)
                    case .deliver(let page):
                        do throws(ScreensPipeError) {
                            if try await deliver(page) == .stop { return .success(()) }
                        } catch {
                            return .failure(error)
                        }
                    case .fail(let error):
                        return .failure(error)
                    case .finished:
                        return .success(())
                    }
                }
                if Task.isCancelled { return .failure(ScreensPipeError(.cancelled, "the run was cancelled")) }
                for index in state.pagesToLaunch() { launch(index) }
            }
            return .failure(ScreensPipeError(.cancelled, "the run was cancelled"))
        }
        try outcome.get()
    }

    // MARK: - Chained pages (cursor, next link)

    private func loadChained(
        provisional: @Sendable (FetchedPage) async -> Void,
        deliver: @Sendable (FetchedPage) async throws(ScreensPipeError) -> Decision
    ) async throws(ScreensPipeError) {
        var continuation: String?
        var seenContinuations: Set<String> = []
        var rowCount: Int?
        var index = 0
        while true {
            if index >= pagination.maxPages {
                throw PageLoader.tooManyPages(pagination.maxPages, page: index)
            }
            if Task.isCancelled { throw ScreensPipeError(.cancelled, "the run was cancelled") }
            let request = PageRequest(index: index, pagination: pagination, continuation: continuation)
            let page = try await fetcher.fetch(request, provisional: provisional)
            rowCount = rowCount ?? page.rowCount
            if try await deliver(page) == .stop { return }
            if page.rows.isEmpty { return }
            if let count = rowCount, pagination.firstRow(ofPage: index + 1) >= count { return }
            guard let next = page.continuation else { return }
            if !seenContinuations.insert(next).inserted {
                throw ScreensPipeError(
                    .pagination, "the server sent the same next-page link twice (\(sanitizedServerText(redactedURL(next)))); stopping instead of looping",
                    page: index + 1)
            }
            continuation = next
            index += 1
        }
    }

    static func tooManyPages(_ maxPages: Int, page: Int) -> ScreensPipeError {
        ScreensPipeError(
            .pagination,
            "the list has more than \(maxPages) pages (max-pages); raise source.pagination.max-pages if that is expected",
            page: page)
    }
}

/// The bookkeeping of an indexed load, kept apart from the concurrency so each rule of
/// DESIGN §2 is one small, testable decision.
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
    private var previous: (count: Int, first: JSONValue?, last: JSONValue?)?

    init(pagination: PaginationSpec) {
        self.pagination = pagination
    }

    /// Pages to request now: keep `prefetch` in flight, never past the known end or max-pages.
    ///
    /// Page 0 goes alone: it carries the row count, and with the count known no request is
    /// ever sent for a page past the end (a short list, or a failing server, costs one request
    /// instead of `prefetch`).
    mutating func pagesToLaunch() -> [Int] {
        var indexes: [Int] = []
        let window = max(1, pagination.prefetch)
        while inFlight < window, nextToLaunch < nextToDeliver + window, nextToLaunch < pagination.maxPages {
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
        if index == 0, let count = page.rowCount {
            rowCount = count
            endIndex = max(1, pageCount(forRows: count))
        }
        if let repeated = checkRepeated(page) { return .fail(repeated) }
        if rowCount == nil {
            if page.isShort { endIndex = index + 1 }
        }
        nextToDeliver += 1
        // Results of speculative requests past the end are dropped, errors included.
        if let endIndex { completed = completed.filter { $0.key < endIndex } }
        return .deliver(page)
    }

    /// The number of pages that cover `rows` rows.
    func pageCount(forRows rows: Int) -> Int {
        if rows <= 0 { return 0 }
        if rows <= pagination.firstPageSize { return 1 }
        let rest = rows - pagination.firstPageSize
        return 1 + (rest + pagination.pageSize - 1) / pagination.pageSize
    }

    /// A page identical to the one before it means the server ignores start/end: without
    /// this check the loader would repeat rows until max-pages.
    private mutating func checkRepeated(_ page: FetchedPage) -> ScreensPipeError? {
        let signature = (count: page.rows.count, first: page.rows.first, last: page.rows.last)
        defer { previous = signature }
        guard let previous, signature.count > 0, previous.count == signature.count,
            previous.first == signature.first, previous.last == signature.last
        else { return nil }
        return ScreensPipeError(
            .pagination,
            "page \(page.request.index) repeats the rows of page \(page.request.index - 1); the server seems to ignore start/end",
            page: page.request.index)
    }
}
