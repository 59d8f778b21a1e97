internal import Foundation
internal import Logging
import Synchronization

/// Signs in to the portal by its login form and keeps the session, in memory only: the
/// wire sequence of liferay-mobile-sdk's `CookieSignIn`. `POST /c/portal/login` with
/// `login` and `password` (and `COOKIE_SUPPORT=true`), the session cookies from its answer
/// and from the redirects after it (same origin only), and `Liferay.authToken` from the
/// page they end on. Requests then carry `Cookie` and the token as `X-CSRF-Token`, which
/// Liferay's `AuthTokenUtil` reads as it reads `p_auth`.
///
/// Concurrent pages share one session and one sign-in. A session ends on the portal after
/// `session.timeout` minutes unused (30 by default), and the portal does not say so: the
/// next request is a guest's, which JSON-WS refuses with a 403 (`JSONWebServiceServiceAction`
/// answers SC_FORBIDDEN to a PrincipalException or SecurityException) or answers with only
/// what a guest may see. So a session unused for ``defaultIdleLimit`` is not sent again but
/// replaced, as the Mobile SDK refreshes its cookie before it expires; and a 401, a 403 or
/// a redirect (to the login page) makes the next request sign in again, once.
actor PortalSessionKeeper: SignedInCredentials {
    /// What the keeper holds: nothing, a sign-in under way, or a session and when it was
    /// last handed out.
    private enum State {
        case empty
        case obtaining(Task<Result<SignedIn, ScreensPipeError>, Never>)
        case holding(SignedIn, lastUsed: ContinuousClock.Instant)
    }

    /// How long a held session may go unused: under Liferay's default `session.timeout` of
    /// 30 minutes, with a margin for the request in flight.
    static let defaultIdleLimit: Duration = .seconds(25 * 60)

    /// Redirects followed after the sign-in before giving up (Liferay sends one or two).
    static let maximumRedirects = 5

    private let spec: CookieSignInSpec
    private let loginURL: String
    private let logger: Logger
    /// ``defaultIdleLimit``, or a test's.
    private let idleLimit: Duration
    private var state: State = .empty

    init(spec: CookieSignInSpec, loginURL: String, logger: Logger, idleLimit: Duration = defaultIdleLimit) {
        self.spec = spec
        self.loginURL = loginURL
        self.logger = logger
        self.idleLimit = idleLimit
    }

    func credentials(sender: RetryingSender, source: SourceSpec) async throws(ScreensPipeError) -> SignedIn {
        let now = ContinuousClock.now
        switch state {
        case .holding(let session, let lastUsed) where now - lastUsed < idleLimit:
            state = .holding(session, lastUsed: now)
            return session
        case .obtaining(let task):
            return try await task.value.get()
        case .holding, .empty:
            let task = Task { await self.signIn(sender: sender, source: source) }
            state = .obtaining(task)
            let result = await task.value
            switch result {
            case .success(let session): state = .holding(session, lastUsed: ContinuousClock.now)
            case .failure: state = .empty
            }
            return try result.get()
        }
    }

    func refused(_ held: SignedIn) {
        if case .holding(let current, _) = state, current.mark == held.mark { state = .empty }
    }

    /// A session the portal no longer knows makes the request a guest's: a 401 or 403, or a
    /// redirect to the login page. A 403 may also be the user's own lack of permission: that
    /// costs one sign-in and one resend before the request fails as it would have.
    nonisolated func refuses(status: Int) -> Bool { status == 401 || status == 403 || (300..<400).contains(status) }

    nonisolated func refusalNotice(status: Int) -> String { "ended the portal session (HTTP \(status)); signing in again" }

    private func signIn(sender: RetryingSender, source: SourceSpec) async -> Result<SignedIn, ScreensPipeError> {
        var jar = PortalCookieJar()
        var request = HTTPRequest(method: "POST", url: loginURL)
        request.applyTransportSettings(of: source)
        request.maxResponseSize = PortalSignInPage.maximumBodySize
        request.headers.add(name: "Accept", value: "text/html")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Cookie", value: jar.header)
        request.body = Array(
            URLText.formEncoded([QueryParameter(name: "login", value: spec.username), QueryParameter(name: "password", value: spec.password.revealed)])
                .utf8)
        request.secretValues = [spec.password.revealed]
        let signInDescription = request.requestDescription
        var response: HTTPResponse
        do throws(ScreensPipeError) {
            response = try await send(request, sender: sender)
        } catch {
            return .failure(error)
        }
        guard (300..<400).contains(response.status) else {
            // Liferay's LoginAction lets the failed login's exception through: a 500, which the
            // Mobile SDK's CookieSignIn reads as a wrong login; a portal whose login page
            // handles it answers that page again (200).
            if response.status == 500 || response.status == 200 {
                return .failure(Self.wrongLogin(signInDescription, status: response.status))
            }
            return .failure(.authentication("signing in: the portal answered HTTP \(response.status)", request: signInDescription, status: response.status))
        }
        jar.take(response.headers)
        // Follow the portal to the page it lands on, which holds the CSRF token; a redirect
        // elsewhere would carry the session to another origin.
        var url = loginURL
        for _ in 0..<Self.maximumRedirects where (300..<400).contains(response.status) {
            guard let location = response.headers["Location"], !location.isEmpty else {
                return .failure(.authentication("signing in: the portal redirected without a Location", request: signInDescription, status: response.status))
            }
            let next = URLText.resolve(location, against: url)
            guard URLParts(next).origin == URLParts(loginURL).origin else {
                return .failure(
                    .authentication(
                        "signing in: the portal redirected to another origin (\(sanitizedServerText(redactedURL(next), limit: 120))); the session stays on \(URLParts(loginURL).origin)",
                        request: signInDescription, status: response.status))
            }
            url = next
            var follow = HTTPRequest(method: "GET", url: next)
            follow.applyTransportSettings(of: source)
            follow.maxResponseSize = PortalSignInPage.maximumBodySize
            follow.headers.add(name: "Accept", value: "text/html")
            follow.headers.add(name: "Cookie", value: jar.header)
            follow.secretValues = jar.values
            do throws(ScreensPipeError) {
                response = try await send(follow, sender: sender)
            } catch {
                return .failure(error)
            }
            jar.take(response.headers)
        }
        guard response.status == 200 else {
            return .failure(
                .authentication("signing in: the page after the sign-in answered HTTP \(response.status)", request: signInDescription, status: response.status))
        }
        // Every portal page carries a Liferay.authToken, a guest's too: landing on the
        // sign-in page again means no one signed in.
        if Self.isSignInPage(url, loginURL: loginURL) {
            return .failure(Self.wrongLogin(signInDescription, status: response.status))
        }
        guard jar.holdsSession else {
            return .failure(.authentication("signing in: the portal set no session cookie", request: signInDescription))
        }
        guard let token = PortalSignInPage.authToken(in: response.body) else {
            return .failure(
                .authentication("signing in: the page after the sign-in holds no Liferay.authToken (the CSRF token JSON-WS needs)", request: signInDescription))
        }
        logger.debug("signed in to \(signInDescription) as \(spec.username)")
        let cookie = jar.header
        return .success(
            SignedIn(headers: [("Cookie", cookie), ("X-CSRF-Token", token)], secrets: jar.values + [token, cookie], mark: Secret(cookie)))
    }

    private static func wrongLogin(_ request: String, status: Int) -> ScreensPipeError {
        .authentication(
            "signing in: the portal did not start a session (HTTP \(status)): the username or password is wrong, or the account may not sign in",
            request: request, status: status)
    }

    /// Whether `url` is the portal's sign-in page: the login form's own path, or a page
    /// showing the login portlet.
    static func isSignInPage(_ url: String, loginURL: String) -> Bool {
        func path(_ url: String) -> Substring {
            let rest = URLParts(url).rest
            return rest[..<(rest.firstIndex { $0 == "?" || $0 == "#" } ?? rest.endIndex)]
        }
        return path(url) == path(loginURL) || URLParts(url).rest.contains("p_p_id=com_liferay_login_web_portlet_LoginPortlet")
    }

    /// One request of the sign-in, its failures located at the sign-in request.
    private func send(_ request: HTTPRequest, sender: RetryingSender) async throws(ScreensPipeError) -> HTTPResponse {
        do throws(HTTPError) {
            return try await sender.send(request)
        } catch {
            throw ScreensPipeError(error.pipelineCode, "signing in: \(redactingValues(error.message, request.secretValues))", request: request.requestDescription)
        }
    }
}

/// The process's portal sessions, one per login URL, user, password and route.
final class PortalSessionKeepers: Sendable {
    static let shared = PortalSessionKeepers()

    private let holders = CredentialHolders<PortalSessionKeeper>()

    func keeper(spec: CookieSignInSpec, loginURL: String, source: SourceSpec, logger: Logger) -> PortalSessionKeeper {
        let identity = [loginURL, spec.username, spec.password.revealed] + source.signInRoute(proxy: source.proxy)
        return holders.holder(identity: identity) { PortalSessionKeeper(spec: spec, loginURL: loginURL, logger: logger) }
    }
}

extension CookieSignInSpec {
    /// The login form's URL on the source's origin.
    func loginURL(against configuredURL: String) -> String {
        URLText.resolve(loginPath, against: configuredURL)
    }
}
