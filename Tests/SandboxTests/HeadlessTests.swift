import Sandbox
import ScreensJSON
import Testing

@Suite("Headless delivery structured contents")
struct HeadlessTests {
    static let path = "/o/headless-delivery/v1.0/sites/20143/structured-contents"

    @Test("pages are 1-based: 25 + 25 + 23 of 73 (flatten=true: every folder), lastPage 3, every item once")
    func paging() async throws {
        try await withSandbox { client, _ in
            var ids: [JSONValue] = []
            for page in 1...4 {
                let body = try client.get("\(Self.path)?page=\(page)&pageSize=25&flatten=true", headers: [TestHTTPClient.testUser]).expect(200).json()
                #expect(body["page"] == .int(Int64(page)))
                #expect(body["pageSize"] == 25)
                #expect(body["totalCount"] == 73)
                #expect(body["lastPage"] == 3)
                let items = body["items"]?.arrayValue ?? []
                #expect(items.count == [25, 25, 23, 0][page - 1])
                ids += items.compactMap { $0["id"] }
            }
            #expect(ids.count == 73)
            #expect(Set(ids).count == 73)
            #expect(ids.contains(.int(9_007_199_254_740_993)))
            let defaults = try client.get(Self.path, headers: [TestHTTPClient.testUser]).expect(200).json()
            #expect(defaults["pageSize"] == 20)
            #expect(defaults["totalCount"] == 60)
            #expect(defaults["items"]?.arrayValue?.count == 20)
        }
    }

    @Test("Accept-Language es-ES or es_ES localizes titles; English-only articles fall back to en_US")
    func localization() async throws {
        try await withSandbox { client, _ in
            func first(_ language: String?) throws -> [JSONValue] {
                let headers = [TestHTTPClient.testUser] + (language.map { [("Accept-Language", $0)] } ?? [])
                return try client.get("\(Self.path)?page=1&pageSize=10", headers: headers).expect(200).json()["items"]?.arrayValue ?? []
            }
            let english = try first(nil)
            let spanish = try first("es-ES")
            #expect(english[0]["title"] == "Quarterly results #1")
            #expect(spanish[0]["title"] == "Resultados trimestrales n.º 1")
            #expect(spanish[0]["description"] == "Resumen de Resultados trimestrales n.º 1")
            #expect(try first("es_ES")[0]["title"] == spanish[0]["title"])
            #expect(try first("es-MX,es;q=0.9")[0]["title"] == spanish[0]["title"])
            // Article 5 is English only.
            #expect(english[4]["availableLanguages"] == ["en-US"])
            #expect(spanish[4]["title"] == english[4]["title"])
            #expect(spanish[0]["contentFields"]?[1]?["contentFieldValue"]?["data"] == "<p>Cuerpo de Resultados trimestrales n.º 1.</p>")
            #expect(spanish[7]["title"] == "Ñandú & «comillas» 🚀")
            #expect(english[7]["title"] == #"Ünïcødé & <tags> "quoted" 🚀"#)
            #expect(english[0]["dateCreated"] == "2024-01-01T00:00:20Z")
        }
    }

    @Test("unknown site 404, bad paging 400")
    func errors() async throws {
        try await withSandbox { client, _ in
            let missing = try client.get("/o/headless-delivery/v1.0/sites/424242/structured-contents", headers: [TestHTTPClient.testUser]).expect(404).json()
            #expect(missing["status"] == "NOT_FOUND")
            _ = try client.get("\(Self.path)?page=0", headers: [TestHTTPClient.testUser]).expect(400)
            _ = try client.get("\(Self.path)?pageSize=abc", headers: [TestHTTPClient.testUser]).expect(400)
        }
    }
}
