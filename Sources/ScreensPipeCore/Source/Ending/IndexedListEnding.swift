import ScreensBus

/// The ending rules of an indexed list (JSON-WS, headless, REST offset and page, a file),
/// one page at a time: the one type the run's loader (``IndexedLoadState``) and the list
/// session (``ListSessionStateMachine``) both apply, so that a list ends the same way
/// wherever it is read. Pages may arrive in any order (prefetch); every rule only ever moves
/// the known end earlier, so the order does not change the outcome.
///
/// Where a list ends, first rule that applies (docs/architecture.md, "When a list ends"):
///
/// 1. an `on-response:` rule with `end-list` on a page;
/// 2. the row count of page 0 (JSON-WS `count`, headless `totalCount`, REST `total`): the
///    first page at or past it, whatever the sizes of the pages before (portals drop rows
///    by permission after slicing, so short pages happen mid-list); a page with rows past
///    the count is an error naming it (the count is wrong, so rows past it could be lost);
/// 3. a page count (headless `lastPage`, REST `total-pages`), or a page that says it is the
///    last (a false `has-more`, `max-offset` reached: ``FetchedPage/endsList``);
/// 4. without either, the first short page, unless its server said more rows follow (a true
///    `has-more`). That ending is ambiguous and carries a warning.
///
/// A marker the pipeline names (`has-more`, `total`) that no page of a list of several
/// pages carried is a mistyped path: an error once the list ended. On a one-page list it
/// is a warning naming the path.
struct IndexedListEnding {
    let pagination: PaginationSpec
    /// The first page index known to be past the end of the list.
    private(set) var endIndex: Int?
    /// The row count page 0 reported.
    private(set) var rowCount: Int?
    private var checks: PageSequenceGuard
    /// The page that set ``endIndex`` and the rule it followed.
    private var ending: (page: FetchedPage, rule: ListEnd)?
    /// Pages an `on-response:` rule skipped, for the `finished` event.
    private var skippedPages: [FetchedPage] = []
    /// What a page lacked of the markers the pipeline names, while no page had them.
    private var missingMarker: String?
    private var markerSeen = false

    init(pagination: PaginationSpec, requestsPageSize: Bool) {
        self.pagination = pagination
        checks = PageSequenceGuard(requestsPageSize: requestsPageSize)
    }

    /// Applies the rules to `page`. Nil when it may be delivered (``endIndex`` may have
    /// moved); else the error that stops the list at it.
    mutating func accept(_ page: FetchedPage) -> ScreensPipeError? {
        let index = page.request.index
        switch page.responseAction?.action {
        case .endList?:
            end(at: page, by: .responseAction)
            return nil
        case .skipPage?:
            // The page's rows are missing, said in `finished`; the list goes on.
            skippedPages.append(page)
            return nil
        default:
            break
        }
        if let missing = page.missingContinuation {
            if missingMarker == nil { missingMarker = missing }
        } else {
            markerSeen = true
        }
        if index == 0, let count = page.rowCount {
            guard count >= 0 else { return PageLoader.impossibleRowCount(count, page: index) }
            let pages = pageCount(forRows: count)
            guard pages <= pagination.maxPages else {
                return PageLoader.rowCountPastMaxPages(count, pages: pages, maxPages: pagination.maxPages, page: index)
            }
            rowCount = count
            end(atIndex: max(1, pages), page: page, by: .rowCount)
        }
        if let rowCount {
            let (received, overflow) = page.request.startRow.addingReportingOverflow(page.rowsInPage)
            if overflow || received > rowCount { return Self.rowsPastCount(rowCount, page: page) }
        } else if let pages = page.pageCount {
            // No count, but the server numbered its pages (headless `lastPage`), or said that
            // this one is the last (`has-more: false`, read from the cache as a page count).
            guard pages <= pagination.maxPages else { return PageLoader.tooManyPages(pagination.maxPages, page: index) }
            // A count below this page's own number cannot take back a page that arrived.
            end(atIndex: max(index + 1, pages), page: page, by: page.endsList ?? .lastPage)
        }
        // A paging cap ends a counted list too: the API pages no further than the cap.
        if let rule = page.endsList, rule == .pagingCap || (rowCount == nil && page.pageCount == nil) {
            end(at: page, by: rule)
        }
        if let broken = checks.check(page) { return broken }
        if rowCount == nil, page.pageCount == nil, page.endsAsShortPage { end(at: page, by: .shortPage) }
        return nil
    }

    /// Whether page `index` lies past the known end.
    func isPastEnd(_ index: Int) -> Bool {
        endIndex.map { index >= $0 } ?? false
    }

    /// The error the list ends with although every page was fine: a marker path that no page
    /// of a list of several pages carried.
    var finalError: ScreensPipeError? {
        guard !markerSeen, let missingMarker, let endIndex, endIndex > 1, rowCount == nil else { return nil }
        return ScreensPipeError(
            .pagination,
            "no page of the list's \(endIndex) had what the pipeline names where the list ends (\(missingMarker)), so the end was guessed from the page sizes: check the path",
            page: endIndex - 1)
    }

    /// How the list ended, once every page before ``endIndex`` was accepted.
    var outcome: PageLoader.Outcome {
        var warnings: [String] = []
        let rule = ending?.rule ?? .rowCount
        if let (page, rule) = ending {
            switch rule {
            case .responseAction:
                if let action = page.responseAction { warnings.append("the list ended on page \(page.request.index): \(action.reason)") }
            case .shortPage:
                warnings.append(PageLoader.shortPageWarning(page: page))
            case .pagingCap:
                warnings.append("the list was cut after page \(page.request.index), where the pipeline's max-offset or max-page stops paging; rows after it were not asked for")
            default:
                break
            }
        }
        if !markerSeen, let missingMarker, endIndex == 1, rowCount == nil {
            warnings.append("page 0 had \(missingMarker); the list had one page, so nothing was lost, but check the path if the list should have more")
        }
        if let skipped = PageLoader.skippedPagesWarning(skippedPages) { warnings.append(skipped) }
        return .ended(rule, warning: warnings.isEmpty ? nil : warnings.joined(separator: "; "))
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

    private mutating func end(at page: FetchedPage, by rule: ListEnd) {
        end(atIndex: page.request.index + 1, page: page, by: rule)
    }

    /// Moves the end to `index` when that is earlier than the end known so far.
    private mutating func end(atIndex index: Int, page: FetchedPage, by rule: ListEnd) {
        if let endIndex, endIndex <= index { return }
        endIndex = index
        ending = (page, rule)
    }

    /// A page holds rows past the count page 0 reported: the count is wrong (too low), and
    /// the rows past it would be lost without a word.
    static func rowsPastCount(_ count: Int, page: FetchedPage) -> ScreensPipeError {
        ScreensPipeError(
            .pagination,
            "the server reported \(count) rows, but page \(page.request.index) holds rows \(page.request.startRow)..<\(page.request.startRow + page.rowsInPage), past that count; the count is wrong, so the end of the list is unknown",
            page: page.request.index)
    }
}
