import Foundation
import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The pagination rules (docs/architecture.md, "Pagination"), driven through the loader's state machine.
@Suite("Pagination")
struct PaginationTests {
    /// Feeds the state machine a list of `rows` rows (optionally with a count and with
    /// `hidden` rows dropped after slicing) and returns the pages it delivers, in order.
    private func walk(
        rows: Int, pagination: PaginationSpec, reportsCount: Bool, hidden: Set<Int> = []
    ) -> (delivered: [Int], error: ScreensPipeError?, launched: Int) {
        var state = IndexedLoadState(pagination: pagination)
        var delivered: [Int] = []
        var launched = 0
        var pending = state.pagesToLaunch()
        while !pending.isEmpty || launched == 0 {
            // Complete the launched pages in reverse order to prove delivery is ordered.
            for index in pending.reversed() {
                launched += 1
                let request = PageRequest(index: index, pagination: pagination)
                let slice = (request.startRow..<max(request.startRow, min(request.endRow, rows))).filter { !hidden.contains($0) }
                let page = FetchedPage(
                    request: request, rows: slice.map { .int(Int64($0)) },
                    rowCount: reportsCount && index == 0 ? rows : nil, origin: .remote)
                state.receive(index: index, result: .success(page))
            }
            while let step = state.nextStep() {
                switch step {
                case .deliver(let page): delivered.append(page.request.index)
                case .finished: return (delivered, nil, launched)
                case .fail(let error): return (delivered, error, launched)
                case .provisional: break
                }
            }
            pending = state.pagesToLaunch()
        }
        return (delivered, nil, launched)
    }

    @Test("firstRow(p) = p == 0 ? 0 : firstPageSize + (p-1) * pageSize, end exclusive")
    func firstRowFormula() {
        let pagination = PaginationSpec(firstPageSize: 50, pageSize: 25)
        #expect(pagination.firstRow(ofPage: 0) == 0)
        #expect(pagination.firstRow(ofPage: 1) == 50)
        #expect(pagination.firstRow(ofPage: 2) == 75)
        #expect(pagination.rowRange(ofPage: 1) == 50..<75)
        let request = PageRequest(index: 0, pagination: pagination)
        #expect(request.includesRowCount)
        #expect(!PageRequest(index: 1, pagination: pagination).includesRowCount)
    }

    @Test("with a count, 73 rows make pages 0 (50 rows) and 1 (23 rows)", arguments: [1, 4])
    func countEndsTheList(prefetch: Int) {
        let result = walk(rows: 73, pagination: PaginationSpec(firstPageSize: 50, pageSize: 25, prefetch: prefetch), reportsCount: true)
        #expect(result.error == nil)
        #expect(result.delivered == [0, 1])
    }

    @Test("with a count, short pages mid-list do not end it (permission filtering)")
    func shortPagesWithCount() {
        // Every row of page 1 is hidden: it comes back empty, yet pages 2 and 3 follow.
        let hidden = Set(10..<15)
        let result = walk(rows: 27, pagination: PaginationSpec(firstPageSize: 10, pageSize: 5, prefetch: 2), reportsCount: true, hidden: hidden)
        #expect(result.error == nil)
        #expect(result.delivered == [0, 1, 2, 3, 4])
    }

    @Test("without a count, the first short page ends the list")
    func shortPageWithoutCount() {
        let result = walk(rows: 62, pagination: PaginationSpec(firstPageSize: 50, pageSize: 5, prefetch: 4), reportsCount: false)
        #expect(result.error == nil)
        #expect(result.delivered == [0, 1, 2, 3])  // 50 + 5 + 5 + 2
    }

    @Test("without a count, an empty page after a full one ends the list")
    func emptyPageWithoutCount() {
        let result = walk(rows: 60, pagination: PaginationSpec(firstPageSize: 50, pageSize: 5, prefetch: 1), reportsCount: false)
        #expect(result.delivered == [0, 1, 2, 3])  // page 3 is empty
    }

    @Test("an empty list still delivers page 0 with its zero count")
    func emptyList() {
        let result = walk(rows: 0, pagination: PaginationSpec(), reportsCount: true)
        #expect(result.delivered == [0])
    }

    @Test("more pages than max-pages is an error, never a silent stop")
    func maxPages() {
        let result = walk(rows: 1000, pagination: PaginationSpec(firstPageSize: 10, pageSize: 10, prefetch: 3, maxPages: 5), reportsCount: false)
        #expect(result.delivered == [0, 1, 2, 3, 4])
        #expect(result.error?.code == .pagination)
        #expect(result.error?.message.contains("max-pages") == true)
    }

    @Test("a row count past max-pages fails at page 0, before thousands of requests")
    func rowCountPastMaxPages() {
        let result = walk(rows: 1000, pagination: PaginationSpec(firstPageSize: 10, pageSize: 10, prefetch: 3, maxPages: 5), reportsCount: true)
        #expect(result.delivered == [])
        #expect(result.launched == 1)
        #expect(result.error?.code == .pagination)
        #expect(result.error?.page == 0)
        #expect(result.error?.message.contains("1000 rows, which take 100 pages, more than max-pages (5)") == true)
    }

    /// Counts come from servers: the largest and the negative ones are errors, never traps.
    @Test("hostile row counts", arguments: [Int.max, Int.max - 1, Int(Int32.max) * 1000, -1, Int.min])
    func hostileRowCount(count: Int) {
        var state = IndexedLoadState(pagination: PaginationSpec(firstPageSize: 100, pageSize: 100))
        #expect(state.pagesToLaunch() == [0])
        let request = PageRequest(index: 0, pagination: state.pagination)
        let rows: [JSONValue] = (0..<100).map { .int(Int64($0)) }
        state.receive(index: 0, result: .success(FetchedPage(request: request, rows: rows, rowCount: count, origin: .remote)))
        guard case .fail(let error) = state.nextStep() else { Issue.record("a row count of \(count) must fail page 0"); return }
        #expect(error.page == 0)
        #expect(error.message.contains(String(count)))
    }

    @Test("page counts never overflow")
    func pageCountArithmetic() {
        let state = IndexedLoadState(pagination: PaginationSpec(firstPageSize: 100, pageSize: 100))
        #expect(state.pageCount(forRows: Int.max) == 1 + (Int.max - 100) / 100 + 1)
        #expect(state.pageCount(forRows: 100) == 1)
        #expect(state.pageCount(forRows: 101) == 2)
        #expect(state.pageCount(forRows: 200) == 2)
        #expect(state.pageCount(forRows: 201) == 3)
    }

    @Test("page 0 goes alone, then prefetch keeps at most N pages in flight")
    func prefetchWindow() {
        var state = IndexedLoadState(pagination: PaginationSpec(firstPageSize: 10, pageSize: 10, prefetch: 3))
        #expect(state.pagesToLaunch() == [0])
        #expect(state.pagesToLaunch() == [])
        let page0 = FetchedPage(request: PageRequest(index: 0, pagination: state.pagination), rows: Array(repeating: 1, count: 10), rowCount: 100, origin: .remote)
        state.receive(index: 0, result: .success(page0))
        guard case .deliver = state.nextStep() else { Issue.record("page 0 should be delivered"); return }
        #expect(state.pagesToLaunch() == [1, 2, 3])
        let page2 = FetchedPage(request: PageRequest(index: 2, pagination: state.pagination), rows: [2], origin: .remote)
        state.receive(index: 2, result: .success(page2))
        // Page 1 is still missing: nothing can be delivered. Page 4 takes page 2's place in
        // flight, and nothing goes further than 3 pages past the one due (page 1): with it,
        // at most prefetch + 1 pages are ever held.
        #expect(state.nextStep() == nil)
        #expect(state.pagesToLaunch() == [4])
        #expect(state.pagesToLaunch() == [])
        let page3 = FetchedPage(request: PageRequest(index: 3, pagination: state.pagination), rows: [3], origin: .remote)
        state.receive(index: 3, result: .success(page3))
        #expect(state.pagesToLaunch() == [])
    }

    @Test("the next request goes out when a page arrives, before it is delivered, even at prefetch 1")
    func prefetchOneOverlapsDelivery() {
        var state = IndexedLoadState(pagination: PaginationSpec(firstPageSize: 10, pageSize: 10, prefetch: 1))
        #expect(state.pagesToLaunch() == [0])
        let page0 = FetchedPage(request: PageRequest(index: 0, pagination: state.pagination), rows: Array(repeating: 1, count: 10), rowCount: 100, origin: .remote)
        state.receive(index: 0, result: .success(page0))
        // Page 0 carries the count: nothing more goes out before it is read.
        #expect(state.pagesToLaunch() == [])
        guard case .deliver = state.nextStep() else { Issue.record("page 0 should be delivered"); return }
        #expect(state.pagesToLaunch() == [1])
        let page1 = FetchedPage(request: PageRequest(index: 1, pagination: state.pagination), rows: Array(repeating: 2, count: 10), origin: .remote)
        state.receive(index: 1, result: .success(page1))
        // Page 1 has arrived and waits for delivery while page 2 is fetched.
        #expect(state.pagesToLaunch() == [2])
        #expect(state.pagesToLaunch() == [])
        guard case .deliver = state.nextStep() else { Issue.record("page 1 should be delivered"); return }
        #expect(state.pagesToLaunch() == [])
    }

    @Test("with a count, no page past the end is ever requested")
    func noWastedRequests() {
        let result = walk(rows: 73, pagination: PaginationSpec(firstPageSize: 50, pageSize: 25, prefetch: 8), reportsCount: true)
        #expect(result.launched == 2)
    }

    @Test("a page that repeats the previous one is an error")
    func repeatedPage() {
        var state = IndexedLoadState(pagination: PaginationSpec(firstPageSize: 2, pageSize: 2, prefetch: 2))
        for index in 0..<2 {
            // A server that ignores start/end returns the same rows for every page.
            let page = FetchedPage(request: PageRequest(index: index, pagination: state.pagination), rows: [1, 2], origin: .remote)
            state.receive(index: index, result: .success(page))
        }
        guard case .deliver = state.nextStep() else { Issue.record("page 0 should be delivered"); return }
        guard case .fail(let error) = state.nextStep() else { Issue.record("page 1 should fail"); return }
        #expect(error.code == .pagination)
        #expect(error.page == 1)
    }
}

extension IndexedLoadState.Step: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.finished, .finished): true
        case (.deliver(let a), .deliver(let b)), (.provisional(let a), .provisional(let b)): a == b
        case (.fail(let a), .fail(let b)): a == b
        default: false
        }
    }
}
