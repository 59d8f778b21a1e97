import Sandbox
import ScreensJSON
import Testing

@Suite("Authentication and permissions")
struct AuthenticationTests {
    static let count = #"{"/bookmarks.bookmarksentry/get-entries-count":{"groupId":20143,"folderId":0}}"#

    @Test("no credentials and bad credentials answer 401 with java.lang.SecurityException")
    func unauthenticated() async throws {
        try await withSandbox { client, _ in
            for headers in [[], [TestHTTPClient.basic("test@liferay.com", "wrong")], [("Authorization", "Bearer nope")], [("Authorization", "Digest x")]] {
                let response = try client.invoke(Self.count, headers: headers).expect(401)
                let body = try response.json()
                #expect(body["error"]?["type"] == "java.lang.SecurityException")
                #expect(body["error"]?["message"] == "Authenticated access required")
                #expect(response.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
                #expect(!response.text.contains("wrong"))
            }
        }
    }

    @Test("Bearer sandbox-token is test@liferay.com")
    func bearer() async throws {
        try await withSandbox { client, _ in
            let count = try client.invoke(Self.count, headers: [("Authorization", "Bearer sandbox-token")]).expect(200).json()
            #expect(count == .int(73))
        }
    }

    @Test("joe sees fewer rows of the same folder and gets 403 PrincipalException for site 20144")
    func joe() async throws {
        try await withSandbox { client, _ in
            let joeCount = try client.invoke(Self.count, headers: [TestHTTPClient.joe]).expect(200).json()
            #expect(joeCount == .int(62))
            let joeRows = try client.invoke(
                #"{"/bookmarks.bookmarksentry/get-entries":{"groupId":20143,"folderId":0,"start":-1,"end":-1}}"#,
                headers: [TestHTTPClient.joe]
            ).expect(200).json().entryIds
            let testRows = try client.invoke(
                #"{"/bookmarks.bookmarksentry/get-entries":{"groupId":20143,"folderId":0,"start":-1,"end":-1}}"#
            ).expect(200).json().entryIds
            #expect(joeRows.count == 62)
            #expect(Set(joeRows).isStrictSubset(of: Set(testRows)))

            let forbidden = try client.invoke(
                #"{"/bookmarks.bookmarksentry/get-entries":{"groupId":20144,"folderId":0,"start":0,"end":5}}"#,
                headers: [TestHTTPClient.joe]
            ).expect(403).json()
            #expect(forbidden["error"]?["type"] == "com.liferay.portal.kernel.security.auth.PrincipalException")
            _ = try client.invoke(#"{"/bookmarks.bookmarksentry/get-entries-count":{"groupId":20144,"folderId":0}}"#).expect(200)
        }
    }

    @Test("with loginRedirect, bad credentials answer 302 to /c/portal/login, which serves a sign-in page")
    func loginRedirect() async throws {
        try await withSandbox(.init { $0.loginRedirect = true }) { client, _ in
            let redirect = try client.invoke(Self.count, headers: [TestHTTPClient.basic("test@liferay.com", "nope")]).expect(302)
            let location = try #require(redirect.header("Location"))
            #expect(location.hasPrefix("http://127.0.0.1:\(client.port)/c/portal/login"))
            let page = try client.get("/c/portal/login").expect(200)
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            _ = try client.invoke(Self.count).expect(200)
        }
    }

    @Test("headless and REST use the same accounts")
    func otherProtocols() async throws {
        try await withSandbox { client, _ in
            let path = "/o/headless-delivery/v1.0/sites/20143/structured-contents"
            let missing = try client.get(path).expect(401).json()
            #expect(missing["status"] == "UNAUTHORIZED")
            _ = try client.get(path, headers: [("Authorization", "Bearer sandbox-token")]).expect(200)
            _ = try client.get("/o/headless-delivery/v1.0/sites/20144/structured-contents", headers: [TestHTTPClient.joe]).expect(403)
            _ = try client.get("/rest/bookmarks/offset").expect(200)
            _ = try client.get("/rest/bookmarks/offset", headers: [TestHTTPClient.basic("joe@liferay.com", "x")]).expect(401)
        }
    }
}
