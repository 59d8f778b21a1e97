import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite("REST paginate auto")
struct RESTAutoPaginationTests {
    private func response(_ headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: 200, headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }), effectiveURL: "https://api.example.com/items")
    }

    private func body(_ text: String) -> JSONValue { try! JSONValue(parsing: Array(text.utf8)) }

    private func choose(_ text: String, headers: [(String, String)] = []) throws(ScreensPipeError) -> RESTAutoPagination.Choice {
        try RESTAutoPagination.choose(body(text), response: response(headers))
    }

    private func path(_ text: String) -> FieldPath { try! FieldPath(text) }

    /// The first pages of dlt's detector tests (dlt-hub/dlt
    /// tests/sources/helpers/rest_client/test_detector.py), the published shapes of OData,
    /// HAL, Stripe and GitHub, and the rows path and paginator each must give.
    static let firstPages: [(body: String, rows: String?, choice: String)] = [
        (#"{"data":[{"id":1},{"id":2}],"pagination":{"offset":0,"limit":2,"total":100}}"#, "data", "offset with total: 'pagination.total'"),
        (#"{"items":[{"id":11}],"page_info":{"current_page":1,"items_per_page":2,"total_pages":50}}"#, "items",
         "{ style: page, page-param: page, first-page: 1 } with total-pages: 'page_info.total_pages'"),
        (#"{"products":[{"id":101}],"next_cursor":"eyJpZCI6MTAyfQ=="}"#, "products",
         "{ style: cursor, cursor-path: 'next_cursor', cursor-param: cursor, size-param: null }"),
        (#"{"results":[{"id":201}],"cursors":{"next":"NjM=","previous":"MTk="}}"#, "results",
         "{ style: cursor, cursor-path: 'cursors.next', cursor-param: cursor, size-param: null }"),
        (#"{"entries":[{"id":31}],"next_id":33,"limit":2}"#, "entries",
         "{ style: cursor, cursor-path: 'next_id', cursor-param: cursor, size-param: null }"),
        (#"{"comments":[{"id":51}],"page_number":3,"total_pages":15}"#, "comments",
         "{ style: page, page-param: page_number, first-page: 3 } with total-pages: 'total_pages'"),
        (#"{"count":1023,"next":"https://api.example.org/accounts/?page=5","previous":"https://api.example.org/accounts/?page=3","results":[{"id":1}]}"#,
         "results", "{ style: next-link, next-path: 'next' }"),
        (#"{"_embedded":{"items":[{"id":1}]},"_links":{"self":{"href":"http://api.example.com/items?page=1&size=2"},"next":{"href":"http://api.example.com/items?page=2&size=2"}},"page":{"size":2,"totalElements":100,"totalPages":50,"number":1}}"#,
         "_embedded.items", "{ style: next-link, next-path: '_links.next.href' }"),
        (#"{"items":[{"id":1}],"meta":{"currentPage":1,"pageSize":2,"totalPages":50,"totalItems":100},"links":{"firstPage":"/items?page=1&limit=2","previousPage":"/items?page=0&limit=2","nextPage":"/items?page=2&limit=2","lastPage":"/items?page=50&limit=2"}}"#,
         "items", "{ style: next-link, next-path: 'links.nextPage' }"),
        (#"{"data":[{"id":1}],"pagination":{"currentPage":1,"pageSize":2,"totalPages":5,"totalItems":10}}"#, "data",
         "{ style: page, page-param: page, first-page: 1 } with total-pages: 'pagination.totalPages'"),
        (#"{"items":[{"id":1}],"pagination":{"page":1,"perPage":2,"total":10,"totalPages":5}}"#, "items",
         "{ style: page, page-param: page, first-page: 1 } with total-pages: 'pagination.totalPages'"),
        (#"{"data":[{"id":1}],"meta":{"currentPage":1,"itemsPerPage":2,"totalItems":10,"totalPages":5},"links":{"first":"/api/items?page=1","previous":null,"next":"/api/items?page=2","last":"/api/items?page=5"}}"#,
         "data", "{ style: next-link, next-path: 'links.next' }"),
        (#"{"page":2,"per_page":10,"total":100,"pages":10,"data":[{"id":1}]}"#, "data",
         "{ style: page, page-param: page, first-page: 2 } with total-pages: 'pages'"),
        (#"{"currentPage":1,"pageSize":10,"totalPages":5,"totalRecords":50,"items":[{"id":1}]}"#, "items",
         "{ style: page, page-param: page, first-page: 1 } with total-pages: 'totalPages'"),
        (#"{"feed":[{"id":41}],"offset":40,"limit":2,"total_count":200}"#, "feed", "offset with total: 'total_count'"),
        (#"{"query_results":[{"id":81}],"page_details":{"number":1,"size":2,"total_elements":50,"total_pages":25}}"#, "query_results",
         "{ style: page, page-param: page, first-page: 1 } with total-pages: 'page_details.total_pages'"),
        (#"{"posts":[{"id":91}],"pagination_details":{"current_page":4,"posts_per_page":2,"total_posts":100,"total_pages":50}}"#, "posts",
         "{ style: page, page-param: page, first-page: 4 } with total-pages: 'pagination_details.total_pages'"),
        // OData v4: a one-page answer has no nextLink at all, and is still OData.
        (#"{"@odata.context":"https://services.odata.org/V4/TripPinService/$metadata#People","value":[{"UserName":"a"}]}"#, "value",
         #"{ style: next-link, next-path: '["@odata.nextLink"]' }"#),
        (#"{"@odata.context":"x","value":[{"a":1}],"@odata.nextLink":"People?%24skiptoken=8"}"#, "value",
         #"{ style: next-link, next-path: '["@odata.nextLink"]' }"#),
        // OData 4.01 without the `odata.` prefix (OData JSON Format 4.01, "Control Information").
        (#"{"@context":"$metadata#People","value":[{"UserName":"a"}],"@nextLink":"People?$skiptoken=8"}"#, "value",
         "{ style: next-link, next-path: '@nextLink' }"),
        // Stripe: `has_more` and no cursor in the body.
        (#"{"object":"list","url":"/v1/customers","has_more":true,"data":[{"id":"cus_1"}]}"#, "data", "offset with has-more: 'has_more'"),
        (#"{"items":[{"id":1}],"meta":{"has_next":"true"}}"#, "items", "offset with has-more: 'meta.has_next'"),
        (#"{"data":{"records":[{"id":1}]},"meta":{"total":"73"}}"#, "data.records", "offset with total: 'meta.total'"),
        (#"{"items":[{"id":1}],"next_page":"?page=2"}"#, "items", "{ style: next-link, next-path: 'next_page' }"),
        (#"{"items":[{"id":1}],"next":{"href":"/items?page=2"}}"#, "items", "{ style: next-link, next-path: 'next.href' }"),
        (#"{"members":[{"id":1}],"next_url":null}"#, "members", "{ style: next-link, next-path: 'next_url' }"),
        (#"{"results":[],"nextPageToken":"tok"}"#, "results", "{ style: cursor, cursor-path: 'nextPageToken', cursor-param: pageToken, size-param: null }"),
    ]

    @Test("each first page gives its rows and its paginator", arguments: firstPages.indices)
    func decides(_ index: Int) throws {
        let (text, rowsPath, expected) = Self.firstPages[index]
        let found = try RESTAutoPagination.rows(in: body(text), records: nil)
        #expect(found.path.map { "\($0)" } == rowsPath)
        #expect(try choose(text).name == expected)
    }

    @Test("headers decide before the body: Link (RFC 8288), then a cursor header")
    func headers() throws {
        #expect(try choose(#"[{"id":1}]"#, headers: [("Link", "<https://api.example.com/items?page=2>; rel=\"next\"")]) == .linkHeader)
        #expect(try choose(#"[{"id":1}]"#, headers: [("Link", "<https://api.example.com/items?page=1>; rel=\"prev\"")]) == .linkHeader)
        #expect(try choose(#"[{"id":1}]"#, headers: [("X-Next-Cursor", "abc")]) == .headerCursor(param: "cursor", header: "X-Next-Cursor"))
    }

    @Test(
        "ambiguous or undecidable first pages are errors naming what was found or looked for",
        arguments: [
            (#"{"items":[],"next":"/a","links":{"next":"/b"}}"#, "cannot decide"),
            (#"{"items":[]}"#, "found nothing"),
            (#"{"items":[],"page":1,"per_page":5}"#, "found nothing"),
            (#"[{"id":1}]"#, "bare array with no Link header"),
        ])
    func refuses(_ body: String, _ message: String) {
        do {
            _ = try choose(body)
            Issue.record("decided on \(body)")
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test("rows are found in the body, under a usual name, or the first array of objects two levels down")
    func rows() throws {
        #expect(try RESTAutoPagination.rows(in: [1, 2], records: nil).rows.count == 2)
        #expect(try RESTAutoPagination.rows(in: ["results": [1]], records: nil).path == path("results"))
        #expect(try RESTAutoPagination.rows(in: ["data": ["items": [1]]], records: nil).path == path("data.items"))
        #expect(try RESTAutoPagination.rows(in: ["members": [["id": 1]]], records: nil).path == path("members"))
        #expect(throws: ScreensPipeError.self) { try RESTAutoPagination.rows(in: ["x": 1], records: nil) }
        #expect(throws: ScreensPipeError.self) { try RESTAutoPagination.rows(in: ["id": 101, "name": "A"], records: nil) }
    }

    private func page(_ index: Int, start: Int, continuation: String? = nil) -> PageRequest {
        PageRequest(index: index, startRow: start, endRow: start + 25, includesRowCount: index == 0, continuation: continuation)
    }

    @Test("the decision travels in the continuation: a cursor page asks with the cursor and keeps the choice")
    func followsTheDecision() throws {
        let first = try RESTAutoPagination.decode(["results": [["id": 1]], "next_cursor": "c\"2"], response: response(), page: page(0, start: 0), records: nil)
        #expect(first.paginator == "{ style: cursor, cursor-path: 'next_cursor', cursor-param: cursor, size-param: null }")
        let continuation = try #require(first.continuation)
        let request = try RESTAutoPagination.request(continuation: continuation, firstURL: "https://api.example.com/items", query: [])
        #expect(request.url == "https://api.example.com/items?cursor=c%222")
        let second = try RESTAutoPagination.decode(
            ["results": [["id": 2]], "next_cursor": .null], response: response(), page: page(1, start: 1, continuation: continuation), records: nil)
        #expect(second.paginator == first.paginator)
        #expect(second.continuation == nil)
        #expect(throws: ScreensPipeError.self) {
            try RESTAutoPagination.request(continuation: "garbage", firstURL: "https://api.example.com/items", query: [])
        }
    }

    @Test("a page count walks page numbers from the first page's own number and ends at the count")
    func pageCount() throws {
        // Spring HAL without _links: pages numbered from 0.
        let first = try RESTAutoPagination.decode(
            body(#"{"content":[{"id":1}],"page":{"number":0,"totalPages":2}}"#), response: response(), page: page(0, start: 0), records: nil)
        let continuation = try #require(first.continuation)
        let request = try RESTAutoPagination.request(continuation: continuation, firstURL: "https://api.example.com/items", query: [])
        #expect(request.url == "https://api.example.com/items?page=1")
        let last = try RESTAutoPagination.decode(
            body(#"{"content":[{"id":2}],"page":{"number":1,"totalPages":"2"}}"#), response: response(),
            page: page(1, start: 1, continuation: continuation), records: nil)
        #expect(last.continuation == nil)
    }

    @Test("a query-only next link resolves against the page's URL")
    func queryOnlyLink() throws {
        let first = try RESTAutoPagination.decode(body(#"{"items":[{"id":1}],"next_page":"?page=2"}"#), response: response(), page: page(0, start: 0), records: nil)
        let request = try RESTAutoPagination.request(continuation: try #require(first.continuation), firstURL: "https://api.example.com/items", query: [])
        #expect(request.url == "https://api.example.com/items?page=2")
    }

    @Test(
        "a total or flag that cannot be right is an error naming the page, never a silent end",
        arguments: [
            #"{"items":[{"id":1}],"total":-1}"#,
            #"{"items":[{"id":1},{"id":2}],"total":"1"}"#,
            #"{"items":[{"id":1}],"total":"1e3x"}"#,
            #"{"items":[{"id":1}],"has_more":"yes"}"#,
            #"{"items":[],"has_more":true}"#,
            #"{"items":[{"id":1}],"next":{"href":1}}"#,
        ])
    func refusesBadEnds(_ text: String) {
        #expect(throws: ScreensPipeError.self) {
            try RESTAutoPagination.decode(body(text), response: response(), page: page(0, start: 0), records: nil)
        }
    }
}
