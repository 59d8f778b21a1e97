import Testing

@testable import ScreensPipeCore

/// What the portal's sign-in answers are read for: cookies a header can carry back, and the
/// page's CSRF token; hostile answers give nothing rather than a broken header.
@Suite("Cookie sign-in: answers and keys")
struct PortalSignInPageTests {
    @Test("Liferay.authToken is read with either quote and spacing; anything but a short alphanumeric token is not")
    func authToken() {
        func token(_ html: String) -> String? { PortalSignInPage.authToken(in: Array(html.utf8)) }
        #expect(token("<script>Liferay.authToken = 'aB3dE6gH';</script>") == "aB3dE6gH")
        #expect(token(#"Liferay.authToken="Zx81Qw00""#) == "Zx81Qw00")
        #expect(token("Liferay.authToken.length; Liferay.authToken = 'k9k9k9k9'") == "k9k9k9k9")
        #expect(token("<html>no token</html>") == nil)
        #expect(token("Liferay.authToken = 'a b\r\nX-Evil: 1'") == nil)
        #expect(token("Liferay.authToken = ''") == nil)
        #expect(token("Liferay.authToken = '\(String(repeating: "a", count: 65))'") == nil)
    }

    @Test("Set-Cookie values become one Cookie header; attributes, bad names and header-breaking values are left out")
    func cookieJar() {
        var headers: HTTPHeaders = [:]
        headers.add(name: "Set-Cookie", value: "JSESSIONID=ABC123DEF; Path=/; HttpOnly")
        headers.add(name: "Set-Cookie", value: "COMPANY_ID=20099; Path=/")
        headers.add(name: "Set-Cookie", value: "EVIL=a\r\nX-Injected: 1")
        headers.add(name: "Set-Cookie", value: "bad name=1")
        headers.add(name: "Set-Cookie", value: "JSESSIONID=NEWER999; Path=/")
        var jar = PortalCookieJar()
        #expect(!jar.holdsSession)
        jar.take(headers)
        #expect(jar.holdsSession)
        #expect(jar.header == "COOKIE_SUPPORT=true; COMPANY_ID=20099; JSESSIONID=NEWER999")
        #expect(jar.values.sorted() == ["20099", "NEWER999"])
        var liferay: HTTPHeaders = [:]
        liferay.add(name: "Set-Cookie", value: "GUEST_LANGUAGE_ID=en_US; Path=/")
        liferay.add(name: "Set-Cookie", value: "LFR_SESSION_STATE_20123=1764206400000; Path=/")
        liferay.add(name: "Set-Cookie", value: "USER_UUID=\"mMxY8zQ2rT\"; Path=/")
        jar.take(liferay)
        #expect(jar.values.sorted() == ["20099", "NEWER999", "mMxY8zQ2rT"], "a user's cookies are redacted, the language and access time are not")
    }

    @Test("auth: cookie decodes; plan and reflection show the user, never the password; the cache key's user is the login")
    func decodes() throws {
        let yaml = """
            source:
              type: liferay-jsonws
              server: https://portal.example.com
              auth: { cookie: { username: joe@liferay.com, password: "${P}" } }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
            """
        let spec = try loadPipeline(yaml, environment: ["P": "c00kie-pw-Z"])
        guard case .cookie(let cookie) = spec.source.auth else {
            Issue.record("not cookie")
            return
        }
        #expect(cookie.loginPath == "/c/portal/login")
        #expect(cookie.loginURL(against: "https://portal.example.com/api/jsonws/invoke") == "https://portal.example.com/c/portal/login")
        let shown = [spec.redactedDescription(), "\(spec.source.auth!)", String(reflecting: spec.source), try CacheKey(spec: spec).text]
        for text in shown { #expect(!text.contains("c00kie-pw-Z"), "\(text)") }
        #expect(try CacheKey(spec: spec).text.contains(#""user":"joe@liferay.com""#))
    }

    @Test(
        "missing keys and a login path off the server are errors",
        arguments: [
            ("{ cookie: { password: p } }", "username"),
            ("{ cookie: { username: u } }", "password"),
            ("{ cookie: { username: u, password: p, login-path: 'https://evil.example.com/login' } }", "must be a path on the server"),
            ("{ cookie: { username: u, password: p, login-path: //evil.example.com/login } }", "must be a path on the server"),
            ("{ cookie: { username: u, password: p, realm: x } }", "realm"),
            ("{ cookie: { username: u, password: p }, basic: { username: u, password: p } }", "auth takes one of"),
        ])
    func refused(_ auth: String, _ message: String) {
        let yaml = """
            source:
              type: liferay-jsonws
              server: https://portal.example.com
              auth: \(auth)
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
            """
        let errors = configErrors(yaml)
        #expect(errors.contains { $0.contains(message) }, "\(errors)")
    }
}
