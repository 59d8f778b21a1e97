import ScreensBus

/// One change to the raw rows of an indexed list, applied to its pages in place, as a list
/// Screenlet's view inserts, updates and deletes a row (`BaseListView`) and as
/// `ImageGalleryUploadInteractor` updates the cached page and count after a write.
///
/// The pages keep the list's geometry (page `N` always holds the rows the pipeline's
/// pagination puts on it), so a later run reads them as it reads pages from the portal: an
/// insert or a removal moves the rows after it across page boundaries and changes page 0's
/// row count by one. The one rule for the session's loaded pages and the cache's pages.
struct ListEdit: Sendable, Hashable {
    enum Change: Sendable, Hashable {
        /// A new row, at the end of the list: where a portal listing in creation order
        /// (bookmarks' `get-entries`) puts it. A refresh shows the portal's own order.
        case append(JSONValue)
        /// The row at this index of the whole list, replaced.
        case replace(at: Int, with: JSONValue)
        /// The row at this index of the whole list, removed.
        case remove(at: Int)
    }

    var change: Change
    var pagination: PaginationSpec

    /// `pages` (contiguous from page 0) after the change; empty when no page is left whole.
    ///
    /// `complete` says the pages reach the end of the list. When they do not, an appended
    /// row lies on a page not at hand (only the count changes), and after a removal the last
    /// page lacks the row that would move onto it from the next one, so it is dropped: a
    /// reader asks for it again instead of getting a page one row short.
    func apply(to pages: [FetchedPage], complete: Bool) -> [FetchedPage] {
        guard let first = pages.first else { return pages }
        var rows = pages.flatMap(\.rows)
        var count = first.rowCount
        switch change {
        case .replace(let index, let row):
            guard rows.indices.contains(index) else { return pages }
            var edited = pages
            for (position, page) in pages.enumerated() where (page.request.startRow..<page.request.startRow + page.rowsInPage).contains(index) {
                var pageRows = page.rows
                pageRows[index - page.request.startRow] = row
                edited[position] = Self.page(page, rows: pageRows)
            }
            return edited
        case .remove(let index):
            guard rows.indices.contains(index) else { return pages }
            rows.remove(at: index)
            count = count.map { max(0, $0 - 1) }
        case .append(let row):
            count = count.map { $0 + 1 }
            guard complete else {
                var edited = pages
                edited[0].rowCount = count
                return edited
            }
            rows.append(row)
        }
        var cut: [FetchedPage] = []
        var index = 0
        while true {
            let request = PageRequest(index: index, pagination: pagination)
            let start = min(request.startRow, rows.count)
            let end = min(request.endRow, rows.count)
            if index > 0, start >= rows.count { break }
            let original = index < pages.count ? pages[index] : pages[pages.count - 1]
            var page = FetchedPage(
                request: request, rows: Array(rows[start..<end]), rowCount: index == 0 ? count : nil,
                origin: original.origin, fetchedAt: original.fetchedAt)
            page.pageCount = index == 0 && first.pageCount != nil ? Self.pageCount(rows: rows.count, pagination: pagination) : nil
            cut.append(page)
            index += 1
        }
        // The last page lost its first row to the page before, and its own last row is on
        // the next page, not at hand (when the removal emptied it, it is gone already).
        if !complete, case .remove = change, cut.count == pages.count { cut.removeLast() }
        return cut
    }

    /// `page` holding `rows` instead of its own.
    private static func page(_ page: FetchedPage, rows: [JSONValue]) -> FetchedPage {
        var edited = FetchedPage(
            request: page.request, rows: rows, rowCount: page.rowCount, continuation: page.continuation, origin: page.origin,
            fetchedAt: page.fetchedAt)
        edited.pageCount = page.pageCount
        return edited
    }

    private static func pageCount(rows: Int, pagination: PaginationSpec) -> Int {
        if rows <= pagination.firstPageSize { return 1 }
        let rest = rows - pagination.firstPageSize
        let size = max(1, pagination.pageSize)
        return 1 + rest / size + (rest % size == 0 ? 0 : 1)
    }
}
