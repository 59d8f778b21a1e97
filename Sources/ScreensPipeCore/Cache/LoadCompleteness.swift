/// A page of one load as stored in a cache, as much as it takes to tell whether the load's
/// pages make a whole list: the one rule both cache backends use to decide when a refresh
/// is complete (PostgreSQL publishes it then; both let go of the list's lock).
package struct StoredLoadPage: Sendable {
    var index: Int
    var endRow: Int
    var isShort: Bool
    var rowCount: Int?
    var pageCount: Int?
    /// A chained source named no next page after this one.
    var endsChain: Bool

    package init(index: Int, endRow: Int, isShort: Bool, rowCount: Int?, pageCount: Int?, endsChain: Bool) {
        self.index = index
        self.endRow = endRow
        self.isShort = isShort
        self.rowCount = rowCount
        self.pageCount = pageCount
        self.endsChain = endsChain
    }

    /// Whether this page is the last of a list whose page 0 is `first`, as the loader
    /// decides where a list ends.
    func endsList(first: StoredLoadPage) -> Bool {
        if let rowCount = first.rowCount { return rowCount <= 0 || endRow >= rowCount }
        if let pageCount = first.pageCount { return index >= max(1, pageCount) - 1 }
        // A later page that says it is the last (a false `has-more`) stores `index + 1`.
        if let pageCount, index >= pageCount - 1 { return true }
        return isShort || endsChain
    }

    /// The index of the last page when `pages` (sorted by index), from page 0 on without a
    /// gap, make a whole list; nil while they do not.
    package static func lastPageOfCompleteList(_ pages: [StoredLoadPage]) -> Int? {
        guard let first = pages.first, first.index == 0 else { return nil }
        for (position, page) in pages.enumerated() {
            guard page.index == position else { return nil }
            if page.endsList(first: first) { return page.index }
        }
        return nil
    }
}

/// The pages of one load stored so far, in any order (prefetched pages land out of order),
/// told complete as ``StoredLoadPage/lastPageOfCompleteList(_:)`` would, in constant time per
/// page: a list of a million rows stores tens of thousands of pages.
package struct LoadProgress: Sendable {
    private var first: StoredLoadPage?
    /// Pages `0..<next` are stored and none of them ends the list.
    private var next = 0
    /// Stored pages past a gap.
    private var ahead: [Int: StoredLoadPage] = [:]
    private(set) var isComplete = false

    package init() {}

    /// Adds a stored page; true once the stored pages make a whole list.
    package mutating func add(_ page: StoredLoadPage) -> Bool {
        guard !isComplete, page.index >= next else { return isComplete }
        ahead[page.index] = page
        while let page = ahead.removeValue(forKey: next) {
            if page.index == 0 { first = page }
            guard let first else { return false }
            if page.endsList(first: first) {
                isComplete = true
                ahead = [:]
                return true
            }
            next += 1
        }
        return false
    }
}
