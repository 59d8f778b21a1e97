import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The end-of-list rules of the page loader, one decision at a time: the page checks every
/// list shares (``PageSequenceGuard``) and the chained list's rule (``ChainedLoadState``).
@Suite("List endings")
struct ListEndingTests {
    private func page(_ index: Int, rows: [JSONValue], start: Int = 0, size: Int = 3, next: String? = nil, missing: String? = nil) -> FetchedPage {
        var page = FetchedPage(
            request: PageRequest(index: index, startRow: start, endRow: start + size, includesRowCount: index == 0),
            rows: rows, continuation: next, origin: .remote)
        page.missingContinuation = missing
        return page
    }

    @Test("pages with the same count, first and last row but another middle are not a repeat")
    func noFalseRepeat() {
        var checks = PageSequenceGuard(requestsPageSize: true)
        #expect(checks.check(page(0, rows: [1, 2, 3])) == nil)
        #expect(checks.check(page(1, rows: [1, 9, 3], start: 3)) == nil)
    }

    @Test("a page equal to any earlier page is a repeat naming both pages")
    func repeatOfAnEarlierPage() throws {
        var checks = PageSequenceGuard(requestsPageSize: true)
        #expect(checks.check(page(0, rows: [1, 2, 3])) == nil)
        #expect(checks.check(page(1, rows: [4, 5, 6], start: 3)) == nil)
        let found = checks.check(page(2, rows: [1, 2, 3], start: 6))
        let error = try #require(found)
        #expect(error.code == .pagination && error.page == 2)
        #expect(error.message.contains("rows of page 0"))
    }

    @Test("a digest computed in the fetch is the one compared, and is dropped when the rows change")
    func precomputedDigests() throws {
        func textsPage(_ index: Int, _ body: String) throws -> FetchedPage {
            let texts = try #require(try JSONValue.parseArrayKeepingTexts(Array(body.utf8), skippingElements: true)).texts
            var page = FetchedPage(
                request: PageRequest(index: index, startRow: 3 * index, endRow: 3 * index + 3, includesRowCount: index == 0),
                rowTexts: texts, origin: .remote)
            page.storage.precomputeTextsDigest()
            #expect(page.storage.textsDigest == texts.contentDigest)
            return page
        }
        var checks = PageSequenceGuard(requestsPageSize: true)
        let first = try textsPage(0, #"[{"a":1},{"a":2},{"a":3}]"#)
        #expect(checks.check(first) == nil)
        #expect(PageSequenceGuard.digest(first) == PageSequenceGuard.digest(try textsPage(0, #"[{"a":1},{"a":2},{"a":3}]"#)))
        #expect(checks.check(try textsPage(1, #"[{"a":1},{"a":2},{"a":3}]"#))?.message.contains("rows of page 0") == true)
        // Other rows or texts: the digest computed for the old ones is gone.
        var changed = try textsPage(2, #"[{"a":1},{"a":2},{"a":3}]"#)
        changed.rowTexts = try #require(try JSONValue.parseArrayKeepingTexts(Array(#"[{"a":7},{"a":8},{"a":9}]"#.utf8))).texts
        #expect(changed.storage.textsDigest == nil)
        #expect(checks.check(changed) == nil)
        var replaced = try textsPage(3, #"[{"a":1},{"a":2},{"a":3}]"#)
        replaced.rows = [4, 5, 6]
        #expect(replaced.storage.textsDigest == nil)

        // The loader's fetch tasks prepare the digest only for pages the check compares by
        // their texts: not a file's pages (never compared), not pages of values.
        let texts = try #require(try JSONValue.parseArrayKeepingTexts(Array(#"[{"a":4}]"#.utf8), skippingElements: true)).texts
        var fetched = FetchedPage(
            request: PageRequest(index: 4, startRow: 12, endRow: 15, includesRowCount: false), rowTexts: texts, origin: .remote)
        #expect(fetched.storage.textsDigest == nil)
        var file = fetched
        file.origin = .file
        PageSequenceGuard.prepare(&file)
        #expect(file.storage.textsDigest == nil)
        PageSequenceGuard.prepare(&fetched)
        #expect(fetched.storage.textsDigest == fetched.rowTexts?.contentDigest)
        var values = page(5, rows: [1, 2, 3], start: 15)
        PageSequenceGuard.prepare(&values)
        #expect(values.storage.textsDigest == nil)
    }

    @Test("empty pages are never a repeat; file pages are never compared")
    func emptyAndFilePages() {
        var checks = PageSequenceGuard(requestsPageSize: true)
        #expect(checks.check(page(0, rows: [])) == nil)
        #expect(checks.check(page(1, rows: [], start: 3)) == nil)
        var file = page(2, rows: [7, 7, 7], start: 6)
        file.origin = .file
        #expect(checks.check(file) == nil)
        #expect(checks.check(file) == nil)
    }

    @Test("more rows than asked is an error only where the source asks for a size")
    func moreRowsThanAsked() {
        var sized = PageSequenceGuard(requestsPageSize: true)
        #expect(sized.check(page(0, rows: [1, 2, 3, 4]))?.message.contains("4 rows for a page of 3") == true)
        var serverSized = PageSequenceGuard(requestsPageSize: false)
        #expect(serverSized.check(page(0, rows: [1, 2, 3, 4])) == nil)
    }

    @Test("chained: a null marker ends the list; row indices count received rows")
    func chainedEnd() {
        var state = ChainedLoadState(pagination: PaginationSpec(firstPageSize: 3, pageSize: 3), requestsPageSize: false)
        let first = state.nextRequest()
        #expect(first.startRow == 0 && first.endRow == 3)
        guard case .deliver(let delivered, .next) = state.receive(page(0, rows: [1, 2, 3, 4, 5], size: 3, next: "b")) else {
            Issue.record("page 0 should go on")
            return
        }
        #expect(delivered.request.startRow == 0 && delivered.request.endRow == 5)
        let second = state.nextRequest()
        #expect(second.startRow == 5 && second.continuation == "b")
        guard case .deliver(let last, .end(.lastPage, nil)) = state.receive(page(1, rows: [6], start: 5, size: 3)) else {
            Issue.record("a page without a next link ends the list")
            return
        }
        #expect(last.request.startRow == 5 && last.request.endRow == 6)
    }

    @Test("chained: an empty page with a next link goes on")
    func emptyPageGoesOn() {
        var state = ChainedLoadState(pagination: PaginationSpec(firstPageSize: 3, pageSize: 3), requestsPageSize: true)
        guard case .deliver(_, .next) = state.receive(page(0, rows: [], next: "b")) else {
            Issue.record("an empty page with a next link is not the end")
            return
        }
    }

    @Test("chained: a missing marker ends the list as the protocol says; on page 0 the warning names the path")
    func missingMarker() {
        let missing = "no 'next' (next-path) in the body"
        // Full or short, page 0 without its marker is a one-page list: a warning names the path.
        for rows: [JSONValue] in [[1, 2], [1, 2, 3]] {
            var state = ChainedLoadState(pagination: PaginationSpec(firstPageSize: 3, pageSize: 3), requestsPageSize: true)
            guard case .deliver(_, .end(.lastPage, let warning?)) = state.receive(page(0, rows: rows, missing: missing)) else {
                Issue.record("page 0 without a marker ends the list with a warning")
                return
            }
            #expect(warning.contains("page 0 had no 'next' (next-path)"))
        }
    }

    @Test("chained: a later page that leaves its marker out (OData, HAL) ends the list, full or not, without a warning")
    func markerLeftOutOfTheLastPage() {
        let missing = "no '@odata.nextLink' (next-path) in the body"
        for rows: [JSONValue] in [[4], [4, 5, 6]] {
            var state = ChainedLoadState(pagination: PaginationSpec(firstPageSize: 3, pageSize: 3), requestsPageSize: false)
            _ = state.receive(page(0, rows: [1, 2, 3], next: "b"))
            guard case .deliver(_, .end(.lastPage, nil)) = state.receive(page(1, rows: rows, start: 3, missing: missing)) else {
                Issue.record("the page that leaves the marker out is the last")
                return
            }
        }
    }

    @Test("chained: a next link named twice is an error naming both pages, without the link")
    func repeatedLink() {
        var state = ChainedLoadState(pagination: PaginationSpec(firstPageSize: 3, pageSize: 3), requestsPageSize: true)
        _ = state.receive(page(0, rows: [1, 2, 3], next: "https://x/?access_token=s3cret&p=2"))
        guard case .deliver(_, .fail(let error)) = state.receive(page(1, rows: [4, 5, 6], start: 3, next: "https://x/?access_token=s3cret&p=2")) else {
            Issue.record("a repeated next link is an error")
            return
        }
        #expect(error.page == 1 && error.message.contains("page 0"))
        #expect(!error.message.contains("s3cret"))
    }

    @Test("indexed without a count: the short page that ends the list carries a warning")
    func indexedShortPageWarning() {
        var state = IndexedLoadState(pagination: PaginationSpec(firstPageSize: 3, pageSize: 3, prefetch: 1))
        #expect(state.pagesToLaunch() == [0])
        state.receive(index: 0, result: .success(page(0, rows: [1, 2])))
        guard case .deliver = state.nextStep(), case .finished = state.nextStep() else {
            Issue.record("page 0 is delivered and ends the list")
            return
        }
        guard case .ended(.shortPage, let warning?) = state.outcome else {
            Issue.record("the end is a short page")
            return
        }
        #expect(warning.contains("count (liferay-jsonws) or total (rest)"))
    }
}
