import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// Headless `Page` numbers: `lastPage` ends a list that has no `totalCount`, and the two
/// must agree when both are there (portal-vulcan's `Page.getLastPage()`).
@Suite struct HeadlessLastPageTests {
    static let wire = HeadlessWireFormat(spec: HeadlessSourceSpec(path: "/o/x"), baseURL: "http://127.0.0.1:1", locale: nil)

    static func decode(_ body: JSONValue, page: Int = 0, size: Int = 10) throws(ScreensPipeError) -> DecodedPage {
        let request = PageRequest(index: page, startRow: page * size, endRow: (page + 1) * size, includesRowCount: page == 0)
        return try wire.decode(body, response: HTTPResponse(status: 200, effectiveURL: "http://127.0.0.1:1/o/x"), page: request)
    }

    @Test func lastPageAsLiferayComputesIt() {
        #expect(HeadlessPageNumbers.lastPage(totalCount: 0, pageSize: 10) == 1)
        #expect(HeadlessPageNumbers.lastPage(totalCount: 1, pageSize: 10) == 1)
        #expect(HeadlessPageNumbers.lastPage(totalCount: 10, pageSize: 10) == 1)
        #expect(HeadlessPageNumbers.lastPage(totalCount: 11, pageSize: 10) == 2)
        #expect(HeadlessPageNumbers.lastPage(totalCount: 73, pageSize: 25) == 3)
    }

    @Test func theCountWinsAndAgreeingNumbersPass() throws {
        let decoded = try Self.decode(["items": [1, 2], "totalCount": 73, "lastPage": 8, "page": 1, "pageSize": 10])
        #expect(decoded.rowCount == 73)
        #expect(decoded.pageCount == nil)
    }

    @Test func withoutACountTheLastPageEndsTheList() throws {
        let decoded = try Self.decode(["items": [1, 2], "lastPage": 8, "page": 1, "pageSize": 10])
        #expect(decoded.rowCount == nil)
        #expect(decoded.pageCount == 8)
    }

    @Test func disagreeingNumbersAreAnError() {
        #expect(throws: ScreensPipeError.self) {
            try Self.decode(["items": [1], "totalCount": 73, "lastPage": 7, "pageSize": 10])
        }
        do {
            _ = try Self.decode(["items": [1], "totalCount": 73, "lastPage": 7, "pageSize": 10])
        } catch {
            #expect(error.code == .malformedResponse)
            #expect(error.message == "lastPage is 7 but totalCount 73 in pages of 10 makes 8; the server's page numbers disagree, so the end of the list is unknown")
        }
    }

    @Test("hostile numbers are errors naming the field", arguments: [
        ("lastPage", JSONValue.int(0)), ("lastPage", .string("3")), ("lastPage", .number("99999999999999999999999")),
        ("totalCount", .int(-1)), ("totalCount", .double(1.5)), ("pageSize", .int(0)),
    ])
    func hostileNumbers(field: String, value: JSONValue) throws {
        var body: JSONObject = ["items": [], "lastPage": 1]
        body[field] = value
        do {
            _ = try Self.decode(.object(body))
            Issue.record("\(field) = \(value.jsonString) was accepted")
        } catch {
            #expect(error.code == .malformedResponse)
            #expect(error.message.hasPrefix("\(field) must be an integer of at least"))
        }
    }

    @Test func thePageLoaderEndsAtTheLastPage() {
        var state = IndexedLoadState(pagination: PaginationSpec(firstPageSize: 10, pageSize: 10, prefetch: 1))
        #expect(state.pagesToLaunch() == [0])
        var first = FetchedPage(
            request: PageRequest(index: 0, startRow: 0, endRow: 10, includesRowCount: true), rows: Array(repeating: 1, count: 3).enumerated().map { .int(Int64($0.offset)) },
            origin: .remote)
        first.pageCount = 2
        state.receive(index: 0, result: .success(first))
        guard case .deliver = state.nextStep() else {
            Issue.record("page 0 was not delivered")
            return
        }
        // A short page 0 does not end a numbered list: page 1 is still asked for.
        #expect(state.pagesToLaunch() == [1])
        let second = FetchedPage(
            request: PageRequest(index: 1, startRow: 10, endRow: 20, includesRowCount: false), rows: [7, 8], origin: .remote)
        state.receive(index: 1, result: .success(second))
        guard case .deliver = state.nextStep() else {
            Issue.record("page 1 was not delivered")
            return
        }
        guard case .finished = state.nextStep() else {
            Issue.record("the list did not end at lastPage")
            return
        }
        #expect(state.outcome == .ended(.lastPage, warning: nil))
        #expect(state.pagesToLaunch().isEmpty)
    }
}
