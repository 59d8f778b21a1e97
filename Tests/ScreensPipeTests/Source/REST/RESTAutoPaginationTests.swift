import ScreensBus
import Testing

@testable import ScreensPipe

@Suite("REST paginate auto")
struct RESTAutoPaginationTests {
    private func response(_ headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: 200, headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }), effectiveURL: "https://api.example.com/items")
    }

    private func choose(_ text: String, headers: [(String, String)] = []) throws(ScreensPipeError) -> RESTAutoPagination.Choice {
        try RESTAutoPagination.choose(try! JSONValue(parsing: Array(text.utf8)), response: response(headers))
    }

    @Test("each kind of first page decides its paginator")
    func decides() throws {
        #expect(try choose(#"{"items":[]}"#, headers: [("Link", "<https://api.example.com/items?page=2>; rel=\"next\"")]) == .linkHeader)
        #expect(try choose(#"{"items":[],"next":"https://api.example.com/items?after=5"}"#) == .nextLink(path: "next"))
        #expect(try choose(#"{"items":[],"links":{"next":null}}"#) == .nextLink(path: "links.next"))
        #expect(try choose(#"{"value":[],"@odata.nextLink":"/items?$skip=5"}"#) == .nextLink(path: #"["@odata.nextLink"]"#))
        #expect(try choose(#"{"results":[],"nextPageToken":"tok"}"#) == .cursor(param: "pageToken", path: "nextPageToken"))
        #expect(
            try choose(#"{"items":[],"page":1,"pageSize":20,"lastPage":4,"totalCount":70}"#)
                == .page(pageParam: "page", sizeParam: "pageSize", lastPagePath: "lastPage", totalPath: "totalCount"))
        #expect(try choose(#"{"data":{"records":[]},"meta":{"total":73}}"#) == .offset(totalPath: "meta.total"))
    }

    @Test(
        "ambiguous or empty first pages are errors naming what was found or looked for",
        arguments: [
            (#"{"items":[],"next":"/a","cursor":"b"}"#, "cannot decide"),
            (#"{"items":[],"total":5,"count":5}"#, "cannot decide"),
            (#"{"items":[]}"#, "found nothing"),
            (#"{"items":[],"page":1,"per_page":5}"#, "nothing that says where the list ends"),
            (#"{"items":[],"next":{"href":1}}"#, "found nothing"),
        ])
    func refuses(_ body: String, _ message: String) {
        do {
            _ = try choose(body)
            Issue.record("decided on \(body)")
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test("rows are found in the body, under a usual name, or under data")
    func rows() throws {
        #expect(try RESTAutoPagination.rows(in: [1, 2], records: nil).rows.count == 2)
        #expect(try RESTAutoPagination.rows(in: ["results": [1]], records: nil).path == "results")
        #expect(try RESTAutoPagination.rows(in: ["data": ["items": [1]]], records: nil).path == "data.items")
        #expect(throws: ScreensPipeError.self) { try RESTAutoPagination.rows(in: ["x": 1], records: nil) }
    }

    @Test("the decision travels in the continuation: a cursor page asks with the cursor and keeps the choice")
    func followsTheDecision() throws {
        let first = try RESTAutoPagination.decode(
            ["results": [["id": 1]], "next_cursor": "c\"2"], response: response(),
            page: PageRequest(index: 0, startRow: 0, endRow: 25, includesRowCount: true), records: nil)
        #expect(first.paginator == "{ style: cursor, cursor-path: next_cursor, cursor-param: cursor, size-param: null }")
        let continuation = try #require(first.continuation)
        let request = try RESTAutoPagination.request(continuation: continuation, firstURL: "https://api.example.com/items", query: [])
        #expect(request.url == "https://api.example.com/items?cursor=c%222")
        let second = try RESTAutoPagination.decode(
            ["results": [["id": 2]], "next_cursor": .null], response: response(),
            page: PageRequest(index: 1, startRow: 1, endRow: 26, includesRowCount: false, continuation: continuation), records: nil)
        #expect(second.paginator == first.paginator)
        #expect(second.continuation == nil)
        #expect(throws: ScreensPipeError.self) {
            try RESTAutoPagination.request(continuation: "garbage", firstURL: "https://api.example.com/items", query: [])
        }
    }
}
