import Sandbox
import ScreensJSON
import Testing

/// headless-delivery's `deleteStructuredContent` and
/// `deleteSiteStructuredContentByExternalReferenceCode` as `StructuredContentResourceImpl`
/// serves them: the article is looked up first (404 when there is none), then
/// `JournalArticleService.deleteArticle` checks the site permission (403) and removes it;
/// the answer is 204 with no body.
@Suite("Headless delivery structured content deletes")
struct StructuredContentDeleteTests {
    static let list = "/o/headless-delivery/v1.0/sites/20143/structured-contents?pageSize=100&flatten=true"

    private func ids(_ client: TestHTTPClient) throws -> [Int64] {
        try client.get(Self.list, headers: [TestHTTPClient.testUser]).expect(200).json()["items"]?.arrayValue?.compactMap { $0["id"]?.int64Value } ?? []
    }

    @Test("DELETE by id: 204 and no body, gone from the list and from GET; a second DELETE is 404")
    func deleteById() async throws {
        try await withSandbox { client, _ in
            let before = try ids(client)
            #expect(before.contains(40002))
            let deleted = try client.send("DELETE", "/o/headless-delivery/v1.0/structured-contents/40002", headers: [TestHTTPClient.testUser], body: []).expect(204)
            #expect(deleted.body.isEmpty)
            #expect(try ids(client) == before.filter { $0 != 40002 })
            let gone = try client.get("/o/headless-delivery/v1.0/structured-contents/40002", headers: [TestHTTPClient.testUser]).expect(404).json()
            #expect(gone["title"]?.stringValue == "No JournalArticle exists with the key {resourcePrimKey=40002}")
            _ = try client.send("DELETE", "/o/headless-delivery/v1.0/structured-contents/40002", headers: [TestHTTPClient.testUser], body: []).expect(404)
            _ = try client.get("/o/headless-delivery/v1.0/structured-contents/40003", headers: [TestHTTPClient.testUser]).expect(200)
        }
    }

    @Test("DELETE by external reference code: 204, gone; unknown code 404 naming the site and code")
    func deleteByExternalReferenceCode() async throws {
        try await withSandbox { client, _ in
            let path = "/o/headless-delivery/v1.0/sites/20143/structured-contents/by-external-reference-code/40005"
            _ = try client.send("DELETE", path, headers: [TestHTTPClient.testUser], body: []).expect(204)
            #expect(try !ids(client).contains(40005))
            let missing = try client.send("DELETE", path, headers: [TestHTTPClient.testUser], body: []).expect(404).json()
            #expect(missing["title"]?.stringValue == "No JournalArticle exists with the key {groupId=20143, externalReferenceCode=40005}")
        }
    }

    @Test("a guest gets 401 and a user without the site 403; the article stays")
    func permissions() async throws {
        try await withSandbox { client, _ in
            _ = try client.send("DELETE", "/o/headless-delivery/v1.0/structured-contents/40074", headers: [], body: []).expect(401)
            // joe is no member of site 20144.
            _ = try client.send("DELETE", "/o/headless-delivery/v1.0/structured-contents/40074", headers: [TestHTTPClient.joe], body: []).expect(403)
            _ = try client.get("/o/headless-delivery/v1.0/structured-contents/40074", headers: [TestHTTPClient.testUser]).expect(200)
        }
    }
}
