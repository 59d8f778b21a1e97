import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// A run whose convert and filter read rows as texts tells its HTTP source which members they
/// read; the source finds them while it checks each page's rows.
@Suite struct RowMembersTests {
    private static let source = "{ type: liferay-jsonws, server: 'http://127.0.0.1:1', rows: { service: /a/get-entries }, count: { service: /a/get-entries-count } }"

    /// The rows' texts of a JSON-WS answer with `body`, as the source built for `environment`
    /// reads it.
    private static func rowTexts(_ body: String, rows: RowForm) throws -> JSONElementTexts? {
        let spec = try PipelineLoader(environment: [:]).load(yaml: "source: \(source)", file: "members.yaml")
        guard case .http(let wire, let settings) = try SourceFactory.blueprint(
            spec: spec, baseURL: "http://127.0.0.1:1", environment: PipelineEnvironment(), rows: rows)
        else {
            Issue.record("not an HTTP source")
            return nil
        }
        return try rowTexts(body, wire: wire, settings: settings)
    }

    private static func rowTexts(_ body: String, wire: some WireFormat, settings: HTTPSourceSettings) throws -> JSONElementTexts? {
        let response = HTTPResponse(status: 200, headers: HTTPHeaders(), body: Array(body.utf8), effectiveURL: "http://127.0.0.1:1/api/jsonws/invoke")
        let page = PageRequest(index: 0, pagination: PaginationSpec(firstPageSize: 5, pageSize: 5))
        guard case .final(.success(let decoded)) = HTTPPageFetcher(wire: wire, settings: settings).interpret(response, page: page, request: "POST") else {
            Issue.record("the answer was not read")
            return nil
        }
        return decoded.rowTexts
    }

    @Test func theSourceFindsTheMembersThePlanReads() throws {
        let plan = try #require(RowTextPlan(converter: try RowConverter(spec: ConvertSpec(model: .bookmark)), filter: try RowFilter(expression: "visits > 1")))
        // Compact and pretty-printed answers: positions are in each row's compact text.
        for body in [
            #"[[{"entryId":1,"url":"a","visits":3},{"entryId":2,"name":"b"}],2]"#,
            "[ [ { \"entryId\" : 1 , \"url\" : \"a\" , \"visits\" : 3 } ,\n  { \"entryId\": 2, \"name\": \"b\" } ] , 2 ]",
        ] {
            let texts = try #require(try Self.rowTexts(body, rows: .texts(members: plan.selection)))
            let tape = try #require(texts.memberTape)
            #expect(tape.selection == plan.selection && texts.count == 2)
            let row = Array(try #require(texts[0]))
            let url = try #require(plan.selection.slots[Array("url".utf8)])
            let start = tape.entries[1 + 2 * url]
            #expect(String(decoding: row[start..<tape.entries[2 + 2 * url]], as: UTF8.self) == #""a""#)
        }
        // Without a plan's members (a run that only passes rows through), none are looked for.
        let passed = try #require(try Self.rowTexts(#"[[{"entryId":1}],1]"#, rows: .texts(members: nil)))
        #expect(passed.count == 1 && passed.memberTape == nil)
    }
}
