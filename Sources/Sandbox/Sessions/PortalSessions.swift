import Foundation
import ScreensJSON
import Synchronization

/// The portal's form sign-in and its sessions, as Liferay Screens' cookie authentication
/// (liferay-mobile-sdk `CookieSignIn`) meets them: `POST /c/portal/login` with `login` and
/// `password` answers a `JSESSIONID` cookie and a redirect to the landing page, whose HTML
/// carries the session's CSRF token as `Liferay.authToken = '...'`. A request signed in by
/// the cookie alone is a guest's; JSON-WS also wants that token (`p_auth` parameter or
/// `X-CSRF-Token` header), as `AuthTokenUtil.checkCSRFToken` does.
final class PortalSessions: Sendable {
    static let cookieName = "JSESSIONID"
    /// Where Liferay sends a user after signing in (the default site's public pages).
    static let landingPath = "/web/guest"

    private struct Session {
        var email: String
        var authToken: String
        var uses = 0
    }

    private struct Ledger {
        var sessions: [String: Session] = [:]
        var signIns = 0
        /// Every session id and token handed out, so tests can prove none leaks.
        var issued: [String] = []
    }

    /// End a session after this many data requests carried it (nil: never): "the session
    /// expires mid-list" without waiting for a clock.
    let sessionUses: Int?
    private let ledger = Mutex(Ledger())

    init(sessionUses: Int?) {
        self.sessionUses = sessionUses
    }

    /// Successful sign-ins so far.
    var signIns: Int { ledger.withLock { $0.signIns } }

    /// Every session cookie value and CSRF token issued.
    var issuedSecrets: [String] { ledger.withLock { $0.issued } }

    /// What the request's cookie is to the portal.
    enum Verdict {
        /// No session cookie, or one the portal does not know (expired, ended): a guest.
        case guest
        /// A live session of `email`; `validToken` says whether the request carried its CSRF token.
        case user(email: String, validToken: Bool)
    }

    /// Checks (and counts a use of) the session the request's `Cookie` names.
    func check(_ request: SandboxRequest) -> Verdict {
        guard let id = Self.cookie(Self.cookieName, in: request.headers["cookie"]) else { return .guest }
        // SessionAuthToken reads p_auth, and the X-CSRF-Token header when p_auth is empty.
        let carried = request.query["p_auth"].flatMap { $0.isEmpty ? nil : $0 } ?? request.headers["x-csrf-token"]
        return ledger.withLock { ledger in
            guard var session = ledger.sessions[id] else { return .guest }
            session.uses += 1
            if let limit = sessionUses, session.uses > limit {
                ledger.sessions[id] = nil
                return .guest
            }
            ledger.sessions[id] = session
            return .user(email: session.email, validToken: carried == session.authToken)
        }
    }

    /// `POST /c/portal/login`: a good login starts a session (a new `JSESSIONID`, so a
    /// session id known before signing in is never the signed-in one) and redirects to the
    /// landing page. A bad one is a 500: Liferay's `LoginAction` lets the failed login's
    /// exception through to the servlet, and the Mobile SDK's `CookieSignIn` reads a 500 as
    /// "cookie invalid or empty".
    func signIn(_ request: SandboxRequest, accounts: Accounts) -> SandboxResponse {
        let form = QueryString(String(decoding: request.body, as: UTF8.self))
        guard let login = form["login"], let password = form["password"],
            let user = accounts.users.first(where: { $0.emailAddress.lowercased() == login.lowercased() && $0.password == password })
        else {
            return .text(500, Self.errorPage(message: "Authentication failed. Please try again."), contentType: "text/html; charset=UTF-8")
        }
        let id = Self.randomHex(16).uppercased()
        let token = Self.randomAlphanumeric(8)
        ledger.withLock { ledger in
            ledger.sessions[id] = Session(email: user.emailAddress, authToken: token)
            ledger.signIns += 1
            ledger.issued += [id, token]
        }
        return SandboxResponse(
            status: 302,
            headers: [
                ("Location", "\(request.baseURL)\(Self.landingPath)"),
                ("Set-Cookie", "\(Self.cookieName)=\(id); Path=/; HttpOnly"),
                ("Set-Cookie", "COMPANY_ID=20099; Path=/; HttpOnly"),
                ("Content-Type", "text/html; charset=UTF-8"),
            ],
            body: [])
    }

    /// `GET /web/guest`: a page whose script sets `Liferay.authToken` to the session's CSRF
    /// token (a guest's page has a token of its own, which no session accepts).
    func landingPage(_ request: SandboxRequest) -> SandboxResponse {
        let id = Self.cookie(Self.cookieName, in: request.headers["cookie"])
        let token = id.flatMap { id in ledger.withLock { $0.sessions[id]?.authToken } } ?? Self.randomAlphanumeric(8)
        let html = """
            <!DOCTYPE html><html><head><title>Home - Liferay</title>
            <script>var Liferay = Liferay || {}; Liferay.authToken = '\(token)'; Liferay.currentURL = '\\x2fweb\\x2fguest';</script>
            </head><body class="\(id == nil ? "signed-out" : "signed-in")"><h1>Welcome</h1></body></html>
            """
        return .text(200, html, contentType: "text/html; charset=UTF-8")
    }

    /// The JSON-WS answer to a request whose session cookie the portal no longer knows: it
    /// runs as the guest, whose call fails with a SecurityException, which
    /// `JSONWebServiceServiceAction` answers with SC_FORBIDDEN.
    static let endedSession = PortalError(status: 403, type: "java.lang.SecurityException", message: "Authenticated access required")

    /// Whether the request names a session cookie (known to the portal or not).
    static func carriesSessionCookie(_ request: SandboxRequest) -> Bool {
        cookie(cookieName, in: request.headers["cookie"]) != nil
    }

    /// The JSON-WS answer to a signed-in session that did not send its CSRF token.
    static func invalidCSRFToken(userId: Int64, path: String) -> SandboxResponse {
        let error = PortalError(
            status: 403, type: "com.liferay.portal.kernel.security.auth.PrincipalException$MustHaveValidCSRFToken",
            message: "User \(userId) did not provide a valid CSRF token for \(path)")
        return .json(error.status, error.jsonwsBody)
    }

    /// The portal's page for an uncaught exception.
    static func errorPage(message: String) -> String {
        "<!DOCTYPE html><html><head><title>Error - Liferay</title></head><body><h1>An unexpected error occurred.</h1><p>\(message)</p></body></html>"
    }

    static func signInPage(message: String? = nil) -> String {
        let alert = message.map { "<div class=\"alert alert-danger\">\($0)</div>" } ?? ""
        return "<!DOCTYPE html><html><head><title>Sign In - Liferay</title></head><body>\(alert)<form action=\"/c/portal/login\" method=\"post\"><input name=\"login\"><input name=\"password\" type=\"password\"></form></body></html>"
    }

    /// The value of cookie `name` in a `Cookie` header.
    static func cookie(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    private static func randomHex(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

    private static func randomAlphanumeric(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
