import ScreensBus
public import struct Foundation.Date

/// One page as the cache holds it.
public struct CachedPage: Sendable, Hashable {
    /// The cache key (``CacheKey/text``) without the page index.
    public var key: String
    /// The pipeline that stored the page.
    public var pipeline: String
    /// 0-based page index.
    public var index: Int
    /// The rows the page was asked for: `startRow..<endRow`.
    public var startRow: Int
    /// One past the last row asked for (exclusive, as Liferay's `end`).
    public var endRow: Int
    /// The raw rows, in list order, exactly as the source returned them. A page read from a
    /// store keeps them as their stored texts (checked on read) and parses them on first use.
    public var rows: [JSONValue] {
        get { storage.rows }
        set { storage.rows = newValue }
    }
    /// The rows and their texts, kept in step.
    private var storage: PageRows
    /// The total row count the source reported with the page (page 0).
    public var rowCount: Int?
    /// For chained sources: what the source said comes next.
    public var continuation: String?
    /// When the rows were fetched from the server.
    public var fetchedAt: Date
    /// The size of the stored rows text, in bytes.
    public var byteSize: Int
    /// The load (one run's fetches) that stored the page; nil for pages stored before
    /// snapshots were recorded.
    public var snapshot: String?
    /// The number of pages the source said the list has (headless `lastPage`), stored with
    /// page 0 of a list without a row count.
    public var pageCount: Int?
    /// The stored text of each row (the text it was received as, or the encoded row;
    /// see ``FetchedPage/rowTexts``); nil for a page built in code.
    public var rowTexts: JSONElementTexts? {
        get { storage.texts }
        set { storage.texts = newValue }
    }

    /// Creates a stored page; `rowCount`, `continuation` and `pageCount` are nil when the
    /// source sent none.
    public init(
        key: String, pipeline: String, index: Int, startRow: Int, endRow: Int, rows: [JSONValue],
        rowCount: Int?, continuation: String?, fetchedAt: Date, byteSize: Int, snapshot: String? = nil,
        pageCount: Int? = nil
    ) {
        self.snapshot = snapshot
        self.pageCount = pageCount
        self.key = key
        self.pipeline = pipeline
        self.index = index
        self.startRow = startRow
        self.endRow = endRow
        storage = PageRows(values: rows)
        self.rowCount = rowCount
        self.continuation = continuation
        self.fetchedAt = fetchedAt
        self.byteSize = byteSize
    }

    /// Reads the rows from the page's stored rows text, checked as strictly as a parse: a
    /// damaged or hand-edited cache is an error here, not a wrong row later. Each row keeps
    /// its stored text (a row nothing changes is written from it). With `asTexts` the rows
    /// are only checked and parsed if a stage or a subscriber reads them; without, they are
    /// parsed in the same pass, for a run whose stages read every row.
    ///
    /// A page kept as texts with its stored `rowIndex` (``JSONElementTexts/storedArray``) is
    /// read by it without checking the rows again, when the index is the text's; else in full.
    package mutating func readRows(storedText text: [UInt8], rowIndex: [UInt8]? = nil, asTexts: Bool) throws(ScreensPipeError) {
        if asTexts, let rowIndex, let texts = JSONElementTexts(storedArray: text, index: rowIndex) {
            storage = PageRows(texts: texts)
            return
        }
        let kept: (elements: [JSONValue], texts: JSONElementTexts)?
        do throws(JSONParseError) {
            kept = try JSONValue.parseArrayKeepingTexts(text, skippingElements: asTexts)
        } catch {
            throw ScreensPipeError.cache("page \(index) of key \(key) holds unreadable JSON: \(error)")
        }
        guard let (values, texts) = kept else {
            throw ScreensPipeError.cache("page \(index) of key \(key) does not hold a JSON array")
        }
        storage = asTexts ? PageRows(texts: texts) : PageRows(values: values, texts: texts)
    }

    /// How many rows the page holds; never parses.
    public var rowsInPage: Int { storage.count }

    /// The page as an answer to `request`, marked as coming from the cache.
    public func fetchedPage(for request: PageRequest) -> FetchedPage {
        var page = FetchedPage(
            request: request, rows: [], rowCount: rowCount, continuation: continuation, origin: .cache, fetchedAt: fetchedAt)
        page.storage = storage
        page.pageCount = pageCount
        return page
    }

    public static func == (lhs: CachedPage, rhs: CachedPage) -> Bool {
        lhs.key == rhs.key && lhs.pipeline == rhs.pipeline && lhs.index == rhs.index && lhs.startRow == rhs.startRow
            && lhs.endRow == rhs.endRow && lhs.rowCount == rhs.rowCount && lhs.continuation == rhs.continuation
            && lhs.fetchedAt == rhs.fetchedAt && lhs.byteSize == rhs.byteSize && lhs.snapshot == rhs.snapshot
            && lhs.pageCount == rhs.pageCount && lhs.storage == rhs.storage
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(index)
        hasher.combine(rowsInPage)
        hasher.combine(fetchedAt)
    }
}

/// What the cache knows about one page of a key.
public enum CacheLookup: Sendable, Hashable {
    /// The page is stored.
    case page(CachedPage)
    /// The page is not stored, but the stored pages show the list ends before it: page 0's
    /// row count says so, or (without a count) an earlier stored page came back short.
    /// `fetchedAt` is the fetch time of the page that tells.
    case endOfList(fetchedAt: Date)
    /// Nothing is known about the page.
    case miss
}

/// One key of the cache, as `screens-pipe cache list` shows it.
public struct CacheEntrySummary: Sendable, Hashable {
    /// The cache key (``CacheKey/text``), without page indexes.
    public var key: String
    /// The pipeline that stored the newest page of the key.
    public var pipeline: String
    /// The pages stored under the key.
    public var pages: Int
    /// The rows stored over all pages.
    public var rows: Int
    /// The total row count page 0 reported, when it did.
    public var rowCount: Int?
    /// The stored rows text over all pages, in bytes.
    public var bytes: Int
    /// When the least recently fetched page of the key was fetched.
    public var oldestFetch: Date
    /// When the most recently fetched page of the key was fetched.
    public var newestFetch: Date

    /// Creates a summary of one key.
    public init(
        key: String, pipeline: String, pages: Int, rows: Int, rowCount: Int?, bytes: Int,
        oldestFetch: Date, newestFetch: Date
    ) {
        self.key = key
        self.pipeline = pipeline
        self.pages = pages
        self.rows = rows
        self.rowCount = rowCount
        self.bytes = bytes
        self.oldestFetch = oldestFetch
        self.newestFetch = newestFetch
    }
}

/// The whole cache, as `screens-pipe cache stats` shows it.
public struct CacheStats: Sendable, Hashable {
    /// The database file.
    public var path: String
    /// The database file plus its write-ahead log, in bytes.
    public var fileSize: Int
    /// Distinct keys.
    public var entries: Int
    /// Pages stored, over all keys.
    public var pages: Int
    /// Rows stored, over all pages.
    public var rows: Int
    /// The stored rows text, in bytes.
    public var bytes: Int
    /// When the least recently fetched page was fetched; nil when the cache is empty.
    public var oldestFetch: Date?
    /// When the most recently fetched page was fetched; nil when the cache is empty.
    public var newestFetch: Date?

    /// Creates the statistics of a cache; the fetch dates are nil for an empty cache.
    public init(
        path: String, fileSize: Int, entries: Int, pages: Int, rows: Int, bytes: Int, oldestFetch: Date?,
        newestFetch: Date?
    ) {
        self.path = path
        self.fileSize = fileSize
        self.entries = entries
        self.pages = pages
        self.rows = rows
        self.bytes = bytes
        self.oldestFetch = oldestFetch
        self.newestFetch = newestFetch
    }
}
