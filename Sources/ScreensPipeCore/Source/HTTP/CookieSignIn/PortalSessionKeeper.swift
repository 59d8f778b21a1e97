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
/// Concurrent pages share one session and one sign-in; when the portal refuses the session
/// (it expired: a 401, or a redirect to its login page) the next request signs in again.
actor PortalSessionKeeper: SignedInCredentials {
    /// What the keeper holds: nothing, a sign-in under way, or a session.
    private enum State {
        case empty
        case obtaining(Task<Result<SignedIn, ScreensPipeError>, Never>)
        case holding(SignedIn)
    }

    /// Redirects followed after the sign-in before giving up (Liferay sends one or two).
    static let maximumRedirects = 5

    private let spec: CookieSignInSpec
    private let loginURL: String
    private let logger: Logger
    private var state: State = .empty

    init(spec: CookieSignInSpec, loginURL: String, logger: Logger) {
        self.spec = spec
        self.loginURL = loginURL
        self.logger = logger
    }

    func credentials(sender: RetryingSender, source: SourceSpec) async throws(ScreensPipeError) -> SignedIn {
        switch state {
        case .holding(let session):
            return session
        case .obtaining(let task):
            return try await task.value.get()
        case .empty:
            let task = Task { await self.signIn(sender: sender, source: source) }
            state = .obtaining(task)
            let result = await task.value
            switch result {
            case .success(let session): state = .holding(session)
            case .failure: state = .empty
            }
            return try result.get()
        }
    }

    func refused(_ held: SignedIn) {
        if case .holding(let current) = state, current.mark == held.mark { state = .empty }
    }

    nonisolated func refuses(status: Int) -> Bool { status == 401 || (300..<400).contains(status) }

    nonisolated func refusalNotice(status: Int) -> String { "ended the portal session (HTTP \(status)); signing in again" }

    private func signIn(sender: RetryingSender, source: SourceSpec) async -> Result<SignedIn, ScreensPipeError> {
        var jar = PortalCookieJar()
        var request = HTTPRequest(method: "POST", url: loginURL)
        request.applyTransportSettings(of: source)
        request.maxResponseSize = PortalSignInPage.maximumBodySize
        request.headers.add(name: "Accept", value: "text/html")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Cookie", value: jar.header)
        let form = [("login", spec.username), ("password", spec.password.revealed)]
        request.body = Array(form.map { "\(URLText.encode($0.0))=\(URLText.encode($0.1))" }.joined(separator: "&").utf8)
        request.secretValues = [spec.password.revealed]
        let signInDescription = request.requestDescription
        var response: HTTPResponse
        do throws(ScreensPipeError) {
            response = try await send(request, sender: sender)
        } catch {
            return .failure(error)
        }
        guard (300..<400).contains(response.status) else {
            if response.status == 200 {
                return .failure(
                    .authentication(
                        "signing in: the portal answered its sign-in page again instead of a session: the username or password is wrong, or the account may not sign in",
                        request: signInDescription, status: 200))
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

    /// One request of the sign-in, its failures located at the sign-in request.
    private func send(_ request: HTTPRequest, sender: RetryingSender) async throws(ScreensPipeError) -> HTTPResponse {
        do throws(HTTPError) {
            return try await sender.send(request)
        } catch {
            let code: ScreensPipeError.Code = error.kind == .cancelled ? .cancelled : (error.isConnectivity ? .connectivity : .http)
            throw ScreensPipeError(code, "signing in: \(redactingValues(error.message, request.secretValues))", request: request.requestDescription)
        }
    }
}

/// The process's portal sessions, one per login URL, user, password and transport route,
/// named by a digest so no password is a key in the clear.
final class PortalSessionKeepers: Sendable {
    static let shared = PortalSessionKeepers()

    private let keepers = Mutex<[String: PortalSessionKeeper]>([:])

    func keeper(spec: CookieSignInSpec, loginURL: String, source: SourceSpec, logger: Logger) -> PortalSessionKeeper {
        let identity = [
            loginURL, spec.username, spec.password.revealed, source.caFile ?? "", source.insecureSkipTLSVerify ? "insecure" : "verified",
            "\(source.proxy.hashValue)", "\(source.clientCertificate.hashValue)",
        ]
        let key = CacheKey.digest(identity.joined(separator: "\n"))
        return keepers.withLock { keepers in
            if let existing = keepers[key] { return existing }
            let made = PortalSessionKeeper(spec: spec, loginURL: loginURL, logger: logger)
            keepers[key] = made
            return made
        }
    }
}

extension CookieSignInSpec {
    /// The login form's URL on the source's origin.
    func loginURL(against configuredURL: String) -> String {
        URLText.resolve(loginPath, against: configuredURL)
    }
}
