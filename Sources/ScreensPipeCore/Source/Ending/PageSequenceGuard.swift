import ScreensBus

/// The checks every page passes before it is delivered, for indexed and chained lists
/// alike, so that no ending other than the paginator's own rule goes unnoticed:
///
/// - more rows than the request asked for means the server ignores the range (the rows
///   would be delivered twice, and a page may not grow without bound);
/// - a page whose rows are exactly those of an earlier page means the server repeats
///   pages (it ignores start/end, or hands out fresh links to the same rows).
///
/// Pages are compared by a digest of all their rows (a keyed 64-bit hash, so a server
/// cannot aim for a collision), never by count, first and last row alone: two different
/// pages that share those would be a false alarm. Empty pages are not compared: rows
/// hidden by permission can empty several pages of one list.
struct PageSequenceGuard: Sendable {
    /// Whether the source asks for a page size (see ``PageFetcher/requestsPageSize``).
    let requestsPageSize: Bool
    /// Page index by digest, for every non-empty page seen so far (at most max-pages entries).
    private var seen: [Int: Int] = [:]

    init(requestsPageSize: Bool) {
        self.requestsPageSize = requestsPageSize
    }

    /// Computes ahead what ``check(_:)`` will compare `page` by: called where pages are
    /// fetched side by side (the loader's fetch tasks), rather than in the one loop that
    /// hands them over in order. Only for pages the check compares by their texts.
    static func prepare(_ page: inout FetchedPage) {
        guard page.rowsInPage > 0, page.origin != .file, page.rowTexts?.count == page.rowsInPage else { return }
        page.storage.precomputeTextsDigest()
    }

    /// An error naming the page when `page` breaks a rule; nil when it may be delivered.
    mutating func check(_ page: FetchedPage) -> ScreensPipeError? {
        let index = page.request.index
        let asked = page.request.endRow - page.request.startRow
        if requestsPageSize, page.rowsInPage > asked { return Self.tooManyRows(sent: "\(page.rowsInPage)", for: page.request) }
        // A local file is sliced here, not by a server: equal pages are equal rows in the file.
        guard page.rowsInPage > 0, page.origin != .file else { return nil }
        let digest = Self.digest(page)
        if let earlier = seen[digest] {
            return ScreensPipeError(
                .pagination,
                "the page repeats the \(page.rowsInPage) rows of page \(earlier); the server seems to ignore the requested range or cursor, so rows would repeat",
                page: index)
        }
        seen[digest] = index
        return nil
    }

    /// The error for a page of more rows than `request` asked for; `sent` says how many
    /// ("12", or "more than 5" when reading stopped there).
    static func tooManyRows(sent: String, for request: PageRequest) -> ScreensPipeError {
        ScreensPipeError(
            .pagination,
            "the server sent \(sent) rows for a page of \(request.endRow - request.startRow) (rows \(request.startRow)..<\(request.endRow)); it seems to ignore the requested range, so rows would repeat",
            page: request.index)
    }

    /// A digest of every row, in order: of the rows' texts when the page kept them (a
    /// server that repeats a page sends the same bytes again), else of the parsed rows.
    /// The two kinds never match each other.
    static func digest(_ page: FetchedPage) -> Int {
        var hasher = Hasher()
        if let texts = page.rowTexts, texts.count == page.rowsInPage {
            hasher.combine(true)
            hasher.combine(page.storage.textsDigest ?? texts.contentDigest)
        } else {
            hasher.combine(false)
            hasher.combine(page.rowsInPage)
            for row in page.rows { hasher.combine(row) }
        }
        return hasher.finalize()
    }
}
