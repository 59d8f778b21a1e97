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
        var page = fetched
        page.request.endRow = page.request.startRow + page.rowsInPage
        receivedRows += page.rowsInPage
        index += 1

        guard let next = page.continuation else {
            // The protocol's own end: no next marker, whether null, empty or left out (OData
            // leaves `@odata.nextLink` out of the last page, HAL `_links.next`, GitHub the
            // `Link` header of a one-page list). Page 0 lacking a marker the pipeline names may
            // be a mistyped path; with one page nothing was lost, so it is a warning.
            if pageIndex == 0, let missing = page.missingContinuation {
                return .deliver(
                    page,
                    after: .end(
                        page.endsList ?? .lastPage,
                        warning: "page 0 had \(missing), which ends the list after its one page; check the path if the list should have more"))
            }
            return .deliver(page, after: .end(page.endsList ?? .lastPage, warning: nil))
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
