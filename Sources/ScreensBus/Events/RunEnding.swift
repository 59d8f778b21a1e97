/// Why a run stopped, as the `finished` event's `reason`.
public enum RunStopReason: String, Sendable, Hashable, CaseIterable {
    /// The whole list was delivered: its end was reached by the rule of ``ListEnd``.
    case completed
    /// A `limit` of selected rows was reached, so fetching stopped on purpose.
    case limit
    /// The reader closed the output (`| head`), so fetching stopped on purpose.
    case outputClosed = "output-closed"
    /// An error stopped the run (each error was also an `error` event).
    case failed
    /// A signal or a cancellation stopped the run before the end of the list.
    case interrupted
}

/// How the end of a list was recognised, as the `finished` event's `end`.
///
/// Only ``shortPage`` is ambiguous: without a row count, a page that a portal shortened by
/// hiding rows (permission filtering happens after the page is sliced) looks exactly like
/// the last page, so rows after it may exist. The run says so on stderr and in `endWarning`.
public enum ListEnd: String, Sendable, Hashable, CaseIterable {
    /// The row count the source reported with page 0 was reached (JSON-WS `count`,
    /// headless `totalCount`, REST `total`, a file's length).
    case rowCount = "row-count"
    /// The server marked the last page as its protocol does: no next link or cursor (null,
    /// empty or left out, as OData leaves out `@odata.nextLink` and HAL `_links.next`), no
    /// `Link` header with `rel="next"` (RFC 8288; GitHub sends none on a one-page list), or
    /// a page count (headless `lastPage`, `total-pages`) reached.
    case lastPage = "last-page"
    /// The page's `has-more` flag was false (`has_more`, `hasMore`, `meta.has_next`).
    case hasMore = "has-more"
    /// The pipeline's `max-offset` or `max-page` was reached: the API pages no further, so
    /// the run stops there on purpose and says so.
    case pagingCap = "paging-cap"
    /// A page came back with fewer rows than asked and nothing else marks the end.
    case shortPage = "short-page"
    /// An incremental run over a list the server sorts by the cursor, newest first, met a
    /// page whose rows are all older than the stored cursor: every row after it is older
    /// still, so the run ended there on purpose. Not a truncation.
    case cursor
    /// An `on-response:` rule with `action: end-list` matched; `endWarning` names the page
    /// and the rule.
    case responseAction = "response-action"
}
