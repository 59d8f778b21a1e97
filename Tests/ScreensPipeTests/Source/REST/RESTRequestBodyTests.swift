import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite("REST POST body templates")
struct RESTRequestBodyTests {
    private func source(_ keys: String) -> String {
        """
        source:
          type: rest
          server: https://api.example.com
          url: /search
          records: items
        \(keys.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        """
    }

    @Test("a cursor is a JSON string value: quotes and braces in it cannot change the JSON")
    func cursorIsAValue() throws {
        let body = RESTRequestBody(template: ["cursor": "{cursor}", "size": "{limit}"])
        let hostile = #"x", "admin": true, "y": "{"#
        let filled = body.body(offset: 0, size: 5, page: 1, cursor: hostile)
        let parsed = try JSONValue(parsing: filled.jsonBytes)
        #expect(parsed["cursor"]?.stringValue == hostile)
        #expect(parsed["admin"] == nil)
        #expect(parsed["size"]?.int64Value == 5)
        #expect(body.body(offset: 0, size: 5, page: 1, cursor: nil)["cursor"] == .null)
    }

    @Test("offset, page and nested placeholders are replaced; text around a placeholder is not one")
    func replacement() {
        let body = RESTRequestBody(template: [
            "from": "{offset}", "size": "{pageSize}", "page": "{page}", "label": "{offset} rows", "deep": ["a": ["{limit}"]],
        ])
        let filled = body.body(offset: 40, size: 20, page: 3, cursor: nil)
        #expect(filled["from"]?.int64Value == 40)
        #expect(filled["size"]?.int64Value == 20)
        #expect(filled["page"]?.int64Value == 3)
        #expect(filled["label"]?.stringValue == "{offset} rows")
        #expect(filled["deep"]?["a"]?.arrayValue?.first?.int64Value == 20)
    }

    @Test(
        "bad POST settings are configuration errors",
        arguments: [
            ("paginate: offset\nmethod: POST", "needs 'body'"),
            ("paginate: offset\nmethod: POST\nbody: [1, 2]", "must be a mapping"),
            ("paginate: offset\nmethod: POST\nbody: { limit: \"{limit}\" }", "\"{offset}\""),
            ("paginate: page\nmethod: POST\nbody: { page: \"{page}\" }", "\"{limit}\" or \"{pageSize}\""),
            ("paginate: cursor\nmethod: POST\nbody: { size: 5 }", "\"{cursor}\""),
            ("paginate: offset\nbody: { offset: \"{offset}\" }", "needs 'method: POST'"),
            ("paginate: offset\nmethod: PUT\nbody: {}", "expected one of GET, POST"),
        ])
    func refused(_ keys: String, _ message: String) {
        let errors = configErrors(source(keys))
        #expect(errors.contains { $0.contains(message) }, "\(errors)")
    }

    @Test("a POST request carries the filled body as application/json, the page not in the query")
    func request() throws {
        let spec = try loadPipeline(source("""
            paginate: offset
            method: POST
            query: { lang: en }
            body: { offset: "{offset}", limit: "{limit}" }
            """))
        let rest = try #require(spec.source.type.settings as? RESTSourceSpec)
        let wire = try RESTWireFormat(spec: rest, baseURL: "https://api.example.com")
        let request = try wire.request(for: PageRequest(index: 1, startRow: 50, endRow: 75, includesRowCount: false))
        #expect(request.method == "POST")
        #expect(request.url == "https://api.example.com/search?lang=en")
        #expect(request.headers["Content-Type"] == "application/json")
        let body = try JSONValue(parsing: try #require(request.body))
        #expect(body == ["offset": 50, "limit": 25])
    }
}
