import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// What the loaders make of pages an `on-response:` rule answered for.
@Suite("Response actions in the loaders")
struct ResponseActionLoadTests {
    private func page(_ index: Int, rows: [JSONValue], start: Int, action: ResponseAction? = nil, count: Int? = nil) -> FetchedPage {
        var page = FetchedPage(
            request: PageRequest(index: index, startRow: start, endRow: start + 3, includesRowCount: index == 0),
            rows: rows, rowCount: count, origin: .remote)
        page.responseAction = action.map { PageResponseAction(action: $0, reason: "on-response rule 1 (status 404) matched HTTP 404") }
        return page
    }

    private func deliveredIndexes(_ state: inout IndexedLoadState) -> [Int] {
        var delivered: [Int] = []
        while let step = state.nextStep() {
            switch step {
            case .deliver(let page): delivered.append(page.request.index)
            case .finished, .fail: return delivered
            case .provisional: continue
            }
        }
        return delivered
    }

    @Test("indexed without a count: a skipped empty page does not end the list, and finished names it")
    func skipDoesNotEndTheList() {
        var state = IndexedLoadState(pagination: PaginationSpec(firstPageSize: 3, pageSize: 3, prefetch: 1))
        _ = state.pagesToLaunch()
        state.receive(index: 0, result: .success(page(0, rows: [1, 2, 3], start: 0)))
        #expect(deliveredIndexes(&state) == [0])
        _ = state.pagesToLaunch()
        state.receive(index: 1, result: .success(page(1, rows: [], start: 3, action: .skipPage)))
        #expect(deliveredIndexes(&state) == [1])
        #expect(state.pagesToLaunch() == [2])
        state.receive(index: 2, result: .success(page(2, rows: [7], start: 6)))
        #expect(deliveredIndexes(&state) == [2])
        guard case .ended(.shortPage, let warning?) = state.outcome else {
            Issue.record("the list ends on its short page 2")
            return
        }
        #expect(warning.contains("1 page was skipped (page 1)"), "\(warning)")
    }

    @Test("indexed with a count: end-list stops at its page, and pages in flight after it are dropped")
    func endListStops() {
        var state = IndexedLoadState(pagination: PaginationSpec(firstPageSize: 3, pageSize: 3, prefetch: 3))
        _ = state.pagesToLaunch()
        state.receive(index: 0, result: .success(page(0, rows: [1, 2, 3], start: 0, count: 12)))
        #expect(deliveredIndexes(&state) == [0])
        #expect(state.pagesToLaunch() == [1, 2, 3])
        state.receive(index: 2, result: .success(page(2, rows: [7, 8, 9], start: 6)))
        state.receive(index: 1, result: .success(page(1, rows: [], start: 3, action: .endList)))
        #expect(deliveredIndexes(&state) == [1])
        guard case .ended(.responseAction, let warning?) = state.outcome else {
            Issue.record("the list ended by the rule")
            return
        }
        #expect(warning.contains("page 1") && warning.contains("status 404"))
    }

    @Test("chained: end-list ends the list; skip-page is an error naming the page")
    func chained() {
        var ending = ChainedLoadState(pagination: PaginationSpec(firstPageSize: 3, pageSize: 3), requestsPageSize: true)
        guard case .deliver(_, .end(.responseAction, let warning?)) = ending.receive(page(0, rows: [], start: 0, action: .endList)) else {
            Issue.record("end-list ends a chained list")
            return
        }
        #expect(warning.contains("page 0"))
        var skipping = ChainedLoadState(pagination: PaginationSpec(firstPageSize: 3, pageSize: 3), requestsPageSize: true)
        guard case .reject(let error) = skipping.receive(page(0, rows: [], start: 0, action: .skipPage)) else {
            Issue.record("skip-page cannot go on in a chained list")
            return
        }
        #expect(error.page == 0 && error.message.contains("skip-page cannot go on"))
    }

    @Test("body-contains matching is linear and finds needles across the buffer, but only within the first MiB")
    func bodyMatching() {
        #expect(ResponseRule.contains(Array("aaaab".utf8)[...], Array("aab".utf8)))
        #expect(ResponseRule.contains(Array("abababc".utf8)[...], Array("ababc".utf8)))
        #expect(!ResponseRule.contains(Array("abababd".utf8)[...], Array("ababc".utf8)))
        let rule = ResponseRule(bodyContains: "needle", action: .fail)
        let late = Array(repeating: UInt8(ascii: "a"), count: ResponseRule.maximumScannedBytes) + Array("needle".utf8)
        #expect(!rule.matches(status: 200, body: late))
        #expect(rule.matches(status: 200, body: Array("a needle".utf8)))
        let json = ResponseRule(statuses: [200, 403], json: .init(path: try! FieldPath("error.code"), value: 7), action: .fail)
        #expect(json.matches(status: 403, body: Array(#"{"error":{"code":7}}"#.utf8)))
        #expect(!json.matches(status: 500, body: Array(#"{"error":{"code":7}}"#.utf8)))
        #expect(!json.matches(status: 200, body: Array(#"{"error":{"code":"7x"}}"#.utf8)))
        #expect(!json.matches(status: 200, body: Array("not json".utf8)))
    }
}
