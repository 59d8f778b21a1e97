import ScreensBus
public import struct Foundation.Date

/// What the pipeline asks of a source for one page.
public struct PageRequest: Sendable, Hashable {
    /// 0-based page index.
    public var index: Int
    /// The first row (inclusive).
    public var startRow: Int
    /// One past the last row (exclusive), as Liferay's `end`.
    public var endRow: Int
    /// Ask for the total row count with this page (page 0 only).
    public var includesRowCount: Bool
    /// For chained sources (cursor, next link): what the previous page said comes next.
    public var continuation: String?

    /// Creates a request for rows `startRow..<endRow` of page `index`.
    public init(index: Int, startRow: Int, endRow: Int, includesRowCount: Bool, continuation: String? = nil) {
        self.index = index
        self.startRow = startRow
        self.endRow = endRow
        self.includesRowCount = includesRowCount
        self.continuation = continuation
    }

    /// The request for page `index` under fluent pagination.
    public init(index: Int, pagination: PaginationSpec, continuation: String? = nil) {
        let range = pagination.rowRange(ofPage: index)
        self.init(
            index: index, startRow: range.lowerBound, endRow: range.upperBound,
            includesRowCount: index == 0, continuation: continuation)
    }
}

/// One page as a source (or the cache) returned it, before conversion.
public struct FetchedPage: Sendable, Hashable {
    /// The request this page answers.
    public var request: PageRequest
    /// The raw rows, in list order.
    ///
    /// A page kept as texts (``rowsAreTexts``) parses them on first read, once for every
    /// copy of the page. Setting the rows drops the kept texts, which were the old rows'.
    public var rows: [JSONValue] {
        get { storage.rows }
        set { storage.rows = newValue }
    }
    /// The rows and their texts, kept in step.
    var storage: PageRows

    /// How many rows the page holds; never parses rows kept as texts.
    public var rowsInPage: Int { storage.count }

    /// Whether the rows are kept as texts and parsed only when read: a pipeline whose
    /// stages change no row writes each one's text, and no tree of them is ever built.
    public var rowsAreTexts: Bool { storage.lazyValues != nil }
    /// The total row count, when the source reported one.
    public var rowCount: Int?
    /// For chained sources: where the next page starts; nil means there is no next page.
    public var continuation: String?
    /// Where the rows came from: the server, the cache or a local file.
    public var origin: PageOrigin
    /// When the rows were fetched from the server (for cached pages: when they were stored).
    public var fetchedAt: Date
    /// What the response lacked of the markers the pipeline names (`no 'next_cursor'
    /// (cursor-path) in the body`, `no 'has_more' (has-more) in the body`), when it lacked
    /// them altogether; nil when they were there. A missing next marker ends a list as its
    /// protocol says (OData leaves `@odata.nextLink` out of the last page); a path that was
    /// missing from every page of a longer list is mistyped, which the ending rules report
    /// (``IndexedListEnding``, ``ChainedLoadState``).
    public var missingContinuation: String?
    /// The number of pages the server says the list has (headless `lastPage`, `total-pages`),
    /// for lists without a row count; on a later page, `index + 1` says "this page is the
    /// last" (a false `has-more`). Nil when it said nothing.
    public var pageCount: Int?
    /// Which rule made this page the last one, when the source decided it (a false
    /// `has-more`, a `max-offset` reached); named in the `finished` event. Not kept by the
    /// cache, whose copy of the page ends the list by ``pageCount``.
    public var endsList: ListEnd?
    /// The `on-response:` rule that skipped this page or ended the list at it; nil for a
    /// page read as usual.
    public var responseAction: PageResponseAction?
    /// The paginator `paginate: auto` chose from page 0, as a `paginate:` value; nil when
    /// the pipeline names its paginator.
    public var paginator: String?
    /// Each row's text as received, whitespace between tokens left out (see
    /// ``JSONElementTexts``), when the source kept it: the HTTP wire formats keep the rows'
    /// texts of the body, the cache replays the text it stored. Nil otherwise. A row that
    /// nothing changes is written from it instead of being encoded again, and the cache
    /// stores it. Setting ``rows`` drops it; setting other texts on a page whose rows are
    /// kept as texts parses its rows first.
    public var rowTexts: JSONElementTexts? {
        get { storage.texts }
        set { storage.texts = newValue }
    }

    /// Creates a page; `fetchedAt` defaults to now, and `rowCount` and `continuation` to nil
    /// (no count, no next page).
    public init(
        request: PageRequest, rows: [JSONValue], rowCount: Int? = nil, continuation: String? = nil,
        origin: PageOrigin, fetchedAt: Date = Date()
    ) {
        self.request = request
        storage = PageRows(values: rows)
        self.rowCount = rowCount
        self.continuation = continuation
        self.origin = origin
        self.fetchedAt = fetchedAt
    }

    /// Creates a page whose rows are kept as `texts` (checked JSON, each one value) and
    /// parsed only when ``rows`` is read.
    public init(
        request: PageRequest, rowTexts texts: JSONElementTexts, rowCount: Int? = nil, continuation: String? = nil,
        origin: PageOrigin, fetchedAt: Date = Date()
    ) {
        self.init(request: request, rows: [], rowCount: rowCount, continuation: continuation, origin: origin, fetchedAt: fetchedAt)
        storage = PageRows(texts: texts)
    }

    /// The page `request` asks for of an in-memory list, as a paged server answers: the rows
    /// of its row range, and the list's size when the request asks for it and `reportsCount`.
    /// What sources that serve rows they hold (a test's recording, a scripted list) return.
    public init(serving rows: [JSONValue], for request: PageRequest, reportsCount: Bool = true, origin: PageOrigin = .remote, fetchedAt: Date = Date()) {
        let slice = rows.indices.clamped(to: request.startRow..<max(request.startRow, request.endRow))
        self.init(
            request: request, rows: Array(rows[slice]), rowCount: request.includesRowCount && reportsCount ? rows.count : nil,
            origin: origin, fetchedAt: fetchedAt)
    }

    /// Whether fewer rows came back than the page covers. Without a row count this ends the
    /// list; with one it does not (portals drop rows by permission after slicing).
    public var isShort: Bool { rowsInPage < request.endRow - request.startRow }

    /// The ``continuation`` of an indexed page whose server said more rows follow (a true
    /// `has-more`): such a page does not end the list, however short.
    public static let moreRowsFollow = "has-more"

    /// Whether this page ends a list without a row count by being short: a short page whose
    /// server did not say that more rows follow.
    public var endsAsShortPage: Bool { isShort && continuation == nil }

    public static func == (lhs: FetchedPage, rhs: FetchedPage) -> Bool {
        lhs.request == rhs.request && lhs.rowCount == rhs.rowCount && lhs.continuation == rhs.continuation
            && lhs.origin == rhs.origin && lhs.fetchedAt == rhs.fetchedAt && lhs.missingContinuation == rhs.missingContinuation
            && lhs.pageCount == rhs.pageCount && lhs.endsList == rhs.endsList && lhs.responseAction == rhs.responseAction && lhs.paginator == rhs.paginator
            && lhs.storage == rhs.storage
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(request)
        hasher.combine(rowsInPage)
        hasher.combine(continuation)
        hasher.combine(fetchedAt)
    }
}

/// How a source's pages relate to each other.
public enum PageChaining: Sendable, Hashable {
    /// Any page can be asked for by its index (offset, page number, start/end): prefetch works.
    case indexed
    /// Each page needs the previous page's continuation (cursor, next link): one at a time.
    case chained
}

/// A request as `plan` shows it: nothing secret, everything else exact.
public struct PlannedRequest: Sendable, Hashable {
    /// The page index, 0-based.
    public var page: Int
    /// The HTTP method (`GET`, `POST`); `READ` for a file source.
    public var method: String
    /// The full URL without userinfo and with secret-looking query values redacted; for a
    /// file source, the path and the rows read.
    public var url: String
    /// Headers with secret values replaced by `<redacted>`.
    public var headers: [String]
    /// The request body as text (the JSON-WS batch); nil when there is none.
    public var body: String?

    /// Creates a planned request; by default with no headers and no body.
    public init(page: Int, method: String, url: String, headers: [String] = [], body: String? = nil) {
        self.page = page
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The source stage: fetches one page at a time. Implementations are the file source, the
/// HTTP wire formats (JSON-WS, headless, REST) and the cache policy that wraps one of them.
public protocol PageFetcher: Sendable {
    /// Whether pages can be asked for by index, and so prefetched, or only one after another.
    var chaining: PageChaining { get }

    /// Whether each request asks the server for at most `endRow - startRow` rows, so that a
    /// page with more rows means the server ignored the range (an error). False when the
    /// server chooses the page size: next links, `Link` headers, a cursor without a size
    /// parameter.
    var requestsPageSize: Bool { get }

    /// Everything about the source that changes its answers except the page, the server, the
    /// user, the locale and the page sizes (the cache key holds those itself): the cache key
    /// is built from it. A built-in source's identity is a canonical JSON object of its
    /// settings (service and params, path or URL and query...), held in the key as it is; a
    /// custom source's is held as a digest. Never holds secrets.
    var identity: String { get }

    /// A redacted one-line description for `started` events and logs.
    var summary: String { get }

    /// Fetches one page. `provisional` receives an early answer (the cached copy under
    /// cache-and-remote) before the final one; most fetchers never call it.
    func fetch(_ request: PageRequest, provisional: @Sendable (FetchedPage) async -> Void) async throws(ScreensPipeError) -> FetchedPage

    /// The requests `plan` shows for `request`.
    func plan(_ request: PageRequest) -> [PlannedRequest]

    /// Releases connections and files.
    func shutdown() async
}

extension PageFetcher {
    /// ``PageChaining/indexed``: most sources can ask for any page.
    public var chaining: PageChaining { .indexed }

    /// True: most sources ask for each page's rows by range or size.
    public var requestsPageSize: Bool { true }

    /// Fetches one page, ignoring any provisional answer.
    public func fetch(_ request: PageRequest) async throws(ScreensPipeError) -> FetchedPage {
        try await fetch(request, provisional: { _ in })
    }

    /// No requests: a fetcher that sends nothing shows nothing.
    public func plan(_ request: PageRequest) -> [PlannedRequest] { [] }

    /// Does nothing: the fetcher holds nothing to release.
    public func shutdown() async {}
}

extension FetchedPage {
    /// The rows as the cache stores them: one JSON array of the rows' received texts when
    /// the page kept them (a replay then writes exactly what the remote run wrote), with the
    /// index a replay reads them back by without checking them again (see
    /// ``JSONElementTexts/storedArray``); else the rows encoded, and no index.
    package var storedRows: (text: String, index: [UInt8]?) {
        if let rowTexts, rowTexts.count == rowsInPage {
            let (text, index) = rowTexts.storedArray
            return (String(decoding: text, as: UTF8.self), index)
        }
        return (JSONValue.array(rows).jsonString, nil)
    }
}
