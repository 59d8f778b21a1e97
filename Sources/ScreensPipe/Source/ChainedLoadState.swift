import ScreensBus

/// The bookkeeping of a chained load (cursor, next link, `Link` header): which request comes
/// next, and what each page means for the list, as one small, testable decision per page.
///
/// Row indices count the rows actually received: the server decides what a chained page
/// holds, so page `p` covers `received..<received + rows` whatever the configured sizes say.
struct ChainedLoadState {
    /// What to do with a page that arrived.
    enum Verdict {
        /// The page breaks a rule and must not be delivered.
        case reject(ScreensPipeError)
        /// Deliver the page (its row range now counts received rows), then do `after`.
        case deliver(FetchedPage, after: After)
    }

    /// What follows a delivered page.
    enum After {
        /// Ask for the next page (``nextRequest()``).
        case next
        /// The list ended.
        case end(ListEnd, warning: String?)
        /// The page was fine, but what it says comes next is not: stop with this error.
        case fail(ScreensPipeError)
    }

    let pagination: PaginationSpec
    /// The index of the next page to ask for.
    private(set) var index = 0
    /// Rows received so far: the first row of the next page.
    private(set) var receivedRows = 0
    private var continuation: String?
    /// The page that named each continuation, to name both pages when one repeats.
    private var pageByContinuation: [String: Int] = [:]
    private var checks: PageSequenceGuard

    init(pagination: PaginationSpec, requestsPageSize: Bool) {
        self.pagination = pagination
        checks = PageSequenceGuard(requestsPageSize: requestsPageSize)
    }

    /// The request for the next page: it asks for `first-page-size` rows on page 0 and
    /// `page-size` after (the size a cursor API is sent), from the rows received so far.
    func nextRequest() -> PageRequest {
        let size = index == 0 ? pagination.firstPageSize : pagination.pageSize
        return PageRequest(
            index: index, startRow: receivedRows, endRow: receivedRows + size, includesRowCount: index == 0,
            continuation: continuation)
    }

    /// Applies the ending rule of a chained list to the page that answered ``nextRequest()``.
    mutating func receive(_ fetched: FetchedPage) -> Verdict {
        if let broken = checks.check(fetched) { return .reject(broken) }
        let pageIndex = fetched.request.index
        let asked = fetched.request.endRow - fetched.request.startRow
        var page = fetched
        page.request.endRow = page.request.startRow + page.rows.count
        receivedRows += page.rows.count
        index += 1

        guard let next = page.continuation else {
            guard let missing = page.missingContinuation else { return .deliver(page, after: .end(.lastPage, warning: nil)) }
            if page.rows.count >= asked {
                return .deliver(
                    page,
                    after: .fail(
                        ScreensPipeError(
                            .pagination,
                            "the page is full (\(page.rows.count) rows) but has \(missing), so nothing says whether rows follow; check the path, or make page-size the server's page size if it sends more rows per page",
                            page: pageIndex)))
            }
            return .deliver(page, after: .end(.shortPage, warning: PageLoader.shortPageWarning(page: fetched, marker: missing)))
        }
        if let earlier = pageByContinuation[next] {
            // The link itself is not printed: next links may carry tokens.
            return .deliver(
                page,
                after: .fail(
                    ScreensPipeError(
                        .pagination,
                        "the page names the same next page as page \(earlier) did; stopping instead of looping",
                        page: pageIndex)))
        }
        pageByContinuation[next] = pageIndex
        if index >= pagination.maxPages {
            return .deliver(page, after: .fail(PageLoader.tooManyPages(pagination.maxPages, page: index)))
        }
        continuation = next
        return .deliver(page, after: .next)
    }
}
