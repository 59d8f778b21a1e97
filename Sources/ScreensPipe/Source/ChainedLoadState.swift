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
    /// The most rows any page held so far: the server's page size, where the server picks it.
    private var largestPage = 0

    init(pagination: PaginationSpec, requestsPageSize: Bool) {
        self.pagination = pagination
        checks = PageSequenceGuard(requestsPageSize: requestsPageSize)
    }

    /// Whether `page` is as long as a page of this list gets, so that a missing next marker
    /// cannot mean "last page". Where the request carries the size, that is the size asked
    /// for; where the server picks it (next links, `Link` headers, a cursor without a size
    /// parameter), page 0 with any row is full (it sets the size), and a later page is full
    /// when it holds as many rows as the largest page before it.
    private func isFull(_ page: FetchedPage, asked: Int) -> Bool {
        if checks.requestsPageSize { return page.rowsInPage >= asked }
        return page.request.index == 0 ? page.rowsInPage > 0 : page.rowsInPage >= largestPage
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
        switch fetched.responseAction?.action {
        case .endList?:
            index += 1
            return .deliver(fetched, after: .end(.responseAction, warning: "the list ended on page \(fetched.request.index): \(fetched.responseAction!.reason)"))
        case .skipPage?:
            // A skipped page names no next page, so a chained list cannot go on past it.
            return .reject(
                ScreensPipeError(
                    .pagination,
                    "\(fetched.responseAction!.reason), but skip-page cannot go on in a cursor, next-link or Link-header list: the skipped page names no next page; use end-list or fail",
                    page: fetched.request.index))
        default:
            break
        }
        if let broken = checks.check(fetched) { return .reject(broken) }
        let pageIndex = fetched.request.index
        let asked = fetched.request.endRow - fetched.request.startRow
        let full = isFull(fetched, asked: asked)
        largestPage = max(largestPage, fetched.rowsInPage)
        var page = fetched
        page.request.endRow = page.request.startRow + page.rowsInPage
        receivedRows += page.rowsInPage
        index += 1

        guard let next = page.continuation else {
            guard let missing = page.missingContinuation else { return .deliver(page, after: .end(.lastPage, warning: nil)) }
            if full {
                return .deliver(
                    page,
                    after: .fail(
                        ScreensPipeError(
                            .pagination,
                            "the page is full (\(page.rowsInPage) rows) but has \(missing), so nothing says whether rows follow: check the path; a server whose list has no more pages should say so with a null or empty value (or a Link header without rel=\"next\")",
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
