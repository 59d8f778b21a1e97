import Sandbox
import ScreensJSON
import Testing

@Suite("Generic REST paginators")
struct RESTTests {
    /// The reference list: group 20143 folder 0 through JSON-WS.
    static func reference(_ client: TestHTTPClient) throws -> [Int64] {
        try client.invoke(#"{"/bookmarks.bookmarksentry/get-entries":{"groupId":20143,"folderId":0,"start":-1,"end":-1}}"#)
            .expect(200).json().entryIds
    }

    /// Follows one pagination style to its end and returns the ids in the order received.
    static func walk(_ client: TestHTTPClient, dataset: String, style: String, size: Int) throws -> [Int64] {
        var ids: [Int64] = []
        var next: String? = nil
        var requests = 0
        switch style {
        case "offset":
            var offset = 0
            while true {
                let body = try client.get("/rest/\(dataset)/offset?offset=\(offset)&limit=\(size)").expect(200).json()
                let total = try #require(body["meta"]?["total"]?.int64Value)
                ids += body["data"]?["records"]?.entryIds ?? []
                offset += size
                if offset >= total { return ids }
            }
        case "pages":
            var page = 1
            while true {
                let body = try client.get("/rest/\(dataset)/pages?page=\(page)&per_page=\(size)").expect(200).json()
                ids += body["items"]?.entryIds ?? []
                if page >= body["total_pages"]?.int64Value ?? 0 { return ids }
                page += 1
            }
        case "cursor":
            repeat {
                let cursor = next.map { "&cursor=\($0)" } ?? ""
                let body = try client.get("/rest/\(dataset)/cursor?limit=\(size)\(cursor)").expect(200).json()
                ids += body["results"]?.entryIds ?? []
                next = body["next_cursor"]?.stringValue
                requests += 1
            } while next != nil && requests < 10_000
            return ids
        case "next-link":
            var url: String? = "http://127.0.0.1:\(client.port)/rest/\(dataset)/next-link?limit=\(size)"
            while let absolute = url {
                let prefix = "http://127.0.0.1:\(client.port)"
                #expect(absolute.hasPrefix(prefix))
                let body = try client.get(String(absolute.dropFirst(prefix.count))).expect(200).json()
                ids += body["items"]?.entryIds ?? []
                url = body["next"]?.stringValue
            }
            return ids
        case "link-header":
            var path: String? = "/rest/\(dataset)/link-header?page=1&per_page=\(size)"
            while let current = path {
                let response = try client.get(current).expect(200)
                ids += try response.json().entryIds
                path = Self.nextLink(response.header("Link") ?? "").map { String($0.dropFirst("http://127.0.0.1:\(client.port)".count)) }
            }
            return ids
        default:
            Issue.record("unknown style \(style)")
            return []
        }
    }

    static func nextLink(_ header: String) -> String? {
        for part in header.split(separator: ",") where part.contains(#"rel="next""#) {
            guard let open = part.firstIndex(of: "<"), let close = part.firstIndex(of: ">") else { return nil }
            return String(part[part.index(after: open)..<close])
        }
        return nil
    }

    @Test("each style walked to the end gives the whole list exactly once, in order", arguments: ["offset", "pages", "cursor", "next-link", "link-header"])
    func walkToTheEnd(style: String) async throws {
        try await withSandbox { client, _ in
            let reference = try Self.reference(client)
            #expect(reference.count == 73)
            #expect(try Self.walk(client, dataset: "bookmarks", style: style, size: 25) == reference)
            #expect(try Self.walk(client, dataset: "bookmarks", style: style, size: 73) == reference)
        }
    }

    @Test("the generated list is served on the REST endpoints too", arguments: ["offset", "cursor", "link-header"])
    func generated(style: String) async throws {
        try await withSandbox(.init { $0.generatedRows = 2_500 }) { client, _ in
            let ids = try Self.walk(client, dataset: "generated", style: style, size: 1_000)
            #expect(ids.count == 2_500)
            #expect(ids.first == 9_007_199_254_740_993)
            #expect(ids == Array(ids.first!..<(ids.first! + 2_500)))
        }
    }

    @Test("response shapes: records path and total, X-Total-Count, opaque cursor, null next at the end")
    func shapes() async throws {
        try await withSandbox { client, _ in
            let offset = try client.get("/rest/bookmarks/offset?offset=70&limit=25").expect(200).json()
            #expect(offset["meta"] == ["total": 73, "offset": 70, "limit": 25])
            #expect(offset["data"]?["records"]?.arrayValue?.count == 3)
            let header = try client.get("/rest/bookmarks/link-header?page=3&per_page=25").expect(200)
            #expect(header.header("X-Total-Count") == "73")
            #expect(Self.nextLink(header.header("Link") ?? "") == nil)
            #expect(header.header("Link")?.contains(#"rel="prev""#) == true)
            let last = try client.get("/rest/bookmarks/next-link?limit=25&after=50").expect(200).json()
            #expect(last["next"] == .null)
            _ = try client.get("/rest/bookmarks/cursor?cursor=garbage").expect(400)
            _ = try client.get("/rest/bookmarks/offset?limit=0").expect(400)
            _ = try client.get("/rest/bookmarks/sideways").expect(404)
            _ = try client.get("/rest/generated/offset").expect(404)
        }
    }
}
