import Sandbox
import ScreensJSON
import Testing

/// The portal's form sign-in as liferay-mobile-sdk's `CookieSignIn` meets it, and the CSRF
/// token (`p_auth`) JSON-WS wants from a session.
@Suite("Cookie sign-in and p_auth")
struct CookieSignInTests {
    static let count = #"{"/bookmarks.bookmarksentry/get-entries-count":{"groupId":20143,"folderId":0}}"#

    private func form(_ login: String, _ password: String) -> [UInt8] {
        Array("login=\(login.replacingOccurrences(of: "@", with: "%40"))&password=\(password)".utf8)
    }

    /// Signs in and reads the landing page: the session cookie and its token.
    private func signIn(_ client: TestHTTPClient, _ login: String = "test@liferay.com", _ password: String = "test") throws -> (cookie: String, token: String) {
        let answer = try client.send(
            "POST", "/c/portal/login", headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", "COOKIE_SUPPORT=true")],
            body: form(login, password)
        ).expect(302)
        #expect(answer.header("Location")?.hasSuffix("/web/guest") == true)
        let setCookie = try #require(answer.headers.first { $0.name.lowercased() == "set-cookie" && $0.value.hasPrefix("JSESSIONID=") }?.value)
        let cookie = String(setCookie.split(separator: ";")[0])
        let page = try client.get("/web/guest", headers: [("Cookie", "COOKIE_SUPPORT=true; \(cookie)")]).expect(200).text
        let start = try #require(page.range(of: "Liferay.authToken = '"))
        let token = String(page[start.upperBound...].prefix { $0 != "'" })
        #expect(token.count == 8)
        return (cookie, token)
    }

    @Test("a good login answers a JSESSIONID and a redirect to a page holding Liferay.authToken")
    func signsIn() async throws {
        try await withSandbox { client, server in
            let session = try signIn(client)
            #expect(session.cookie.hasPrefix("JSESSIONID="))
            #expect(server.cookieSignIns == 1)
        }
    }

    @Test("a wrong password is a 500, as LoginAction's uncaught exception (the Mobile SDK reads it so), with no session and without the password")
    func wrongPassword() async throws {
        try await withSandbox { client, server in
            let answer = try client.send(
                "POST", "/c/portal/login", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form("test@liferay.com", "WRONG-77")
            ).expect(500)
            #expect(answer.text.contains("Authentication failed"))
            #expect(!answer.text.contains("WRONG-77"))
            #expect(!answer.headers.contains { $0.name.lowercased() == "set-cookie" })
            #expect(server.cookieSignIns == 0)
        }
    }

    @Test("JSON-WS with the session cookie needs its token: none or a wrong one is MustHaveValidCSRFToken 403, p_auth or X-CSRF-Token pass")
    func csrfToken() async throws {
        try await withSandbox { client, _ in
            let session = try signIn(client)
            let cookie = ("Cookie", "COOKIE_SUPPORT=true; \(session.cookie)")
            for headers in [[cookie], [cookie, ("X-CSRF-Token", "wrong123")]] {
                let refused = try client.invoke(Self.count, headers: headers).expect(403).json()
                #expect(refused["error"]?["type"] == "com.liferay.portal.kernel.security.auth.PrincipalException$MustHaveValidCSRFToken")
                #expect(refused["error"]?["message"] == "User 20139 did not provide a valid CSRF token for /api/jsonws/invoke")
            }
            #expect(try client.invoke(Self.count, headers: [cookie, ("X-CSRF-Token", session.token)]).expect(200).json() == .int(73))
            let byParameter = try client.send(
                "POST", "/api/jsonws/invoke?p_auth=\(session.token)", headers: [("Content-Type", "application/json"), cookie],
                body: Array(Self.count.utf8)
            ).expect(200).json()
            #expect(byParameter == .int(73))
            // An empty p_auth falls back to the header, as SessionAuthToken reads them.
            let emptyParameter = try client.send(
                "POST", "/api/jsonws/invoke?p_auth=", headers: [("Content-Type", "application/json"), cookie, ("X-CSRF-Token", session.token)],
                body: Array(Self.count.utf8)
            ).expect(200).json()
            #expect(emptyParameter == .int(73))
            // Another session's token is not this one's.
            let joe = try signIn(client, "joe@liferay.com", "joe")
            _ = try client.invoke(Self.count, headers: [cookie, ("X-CSRF-Token", joe.token)]).expect(403)
        }
    }

    @Test("a session ended after its requests is a guest: JSON-WS answers 403 Authenticated access required (SecurityException is SC_FORBIDDEN)")
    func sessionExpires() async throws {
        try await withSandbox(.init { $0.sessionUses = 1 }) { client, _ in
            let session = try signIn(client)
            let headers = [("Cookie", "COOKIE_SUPPORT=true; \(session.cookie)"), ("X-CSRF-Token", session.token)]
            _ = try client.invoke(Self.count, headers: headers).expect(200)
            let expired = try client.invoke(Self.count, headers: headers).expect(403).json()
            #expect(expired["error"]?["message"] == "Authenticated access required")
        }
    }
}
