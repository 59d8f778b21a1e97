// A plain import: SwiftPM's generated resource accessor imports Foundation publicly.
import Foundation
import ScreensJSON
import Synchronization

/// The token endpoint and the check of the tokens it issued, shared by every connection.
final class OAuth2Authority: Sendable {
    static let tokenPath = "/o/oauth2/token"

    /// One issued access token.
    private struct Issued {
        var userEmail: String
        var scopes: Set<String>
        var expires: ContinuousClock.Instant
        var uses: Int
    }

    /// What a refresh token stands for: the client that holds it and the user its tokens
    /// act as (the client's own, or the one who signed in with the password grant).
    private struct RefreshGrant {
        var clientID: String
        var userEmail: String
        /// Registered in the plan (``OAuth2Plan/Client/refreshToken``): it stays valid when
        /// used, so every run of a sample pipeline can start from it. An issued one is
        /// rotated: spent by its refresh, as Liferay's provider does by default.
        var registered: Bool
        /// Used once already (rotated): kept, refused, so tests can still look for it.
        var spent = false
    }

    private struct Ledger {
        var accessTokens: [String: Issued] = [:]
        var refreshTokens: [String: RefreshGrant] = [:]
        var tokensIssued = 0
        /// Token requests answered with a token, per `grant_type`.
        var grantsAnswered: [String: Int] = [:]
    }

    let plan: OAuth2Plan
    private let ledger: Mutex<Ledger>

    init(plan: OAuth2Plan) {
        self.plan = plan
        var ledger = Ledger()
        for client in plan.clients {
            if let refresh = client.refreshToken {
                ledger.refreshTokens[refresh] = RefreshGrant(clientID: client.id, userEmail: client.userEmail, registered: true)
            }
        }
        self.ledger = Mutex(ledger)
    }

    /// Access tokens issued so far.
    var tokensIssued: Int { ledger.withLock { $0.tokensIssued } }

    /// Token requests answered with a token, per `grant_type` (`password`, `refresh_token`, ...).
    var grantsAnswered: [String: Int] { ledger.withLock { $0.grantsAnswered } }

    /// Every access and refresh token issued or registered, for tests that prove none leaks.
    var knownTokens: [String] { ledger.withLock { Array($0.accessTokens.keys) + Array($0.refreshTokens.keys) } }

    /// What a bearer token is to this provider.
    enum Verdict {
        /// Not one of ours: the portal's own token check decides.
        case unknown
        case valid(userEmail: String, scopes: Set<String>)
        case expired
    }

    /// Checks (and counts a use of) the bearer token in `authorization`, as of `now` (when
    /// the request arrived).
    func check(authorization: String?, at now: ContinuousClock.Instant) -> Verdict {
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else { return .unknown }
        let token = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        return ledger.withLock { ledger in
            guard var issued = ledger.accessTokens[token] else { return .unknown }
            issued.uses += 1
            ledger.accessTokens[token] = issued
            if now >= issued.expires { return .expired }
            if let limit = plan.tokenUses, issued.uses > limit { return .expired }
            return .valid(userEmail: issued.userEmail, scopes: issued.scopes)
        }
    }

    /// Whether a token with `scopes` may make a headless request with `method`: Liferay
    /// checks a JAX-RS application's scopes per HTTP method, `everything.read` for GET,
    /// HEAD and OPTIONS, `everything.write` for the rest (`everything` for both).
    static func allowsHeadless(method: String, scopes: Set<String>) -> Bool {
        let reads = ["GET", "HEAD", "OPTIONS"].contains(method)
        return scopes.contains { scope in
            scope.hasSuffix(".everything") || scope.hasSuffix(reads ? ".everything.read" : ".everything.write")
        }
    }

    /// Whether a token with `scopes` may invoke the JSON-WS method `method` (the path's
    /// last part, `add-entry`): the service access policies Liferay's OAuth 2 provider
    /// registers, `OAUTH2_everything.read` matching `fetch*`, `get*`, `has*`, `is*` and
    /// `search*`, `OAUTH2_everything.write` `add*`, `create*`, `update*` and `delete*`,
    /// `OAUTH2_everything` all.
    static func allowsJSONWS(method: String, scopes: Set<String>) -> Bool {
        if scopes.contains("everything") { return true }
        let prefixes =
            (scopes.contains("everything.read") ? ["fetch", "get", "has", "is", "search"] : [])
            + (scopes.contains("everything.write") ? ["add", "create", "update", "delete"] : [])
        return prefixes.contains { method.hasPrefix($0) }
    }

    /// Liferay's answer to an expired or revoked token on a data endpoint.
    static func expiredTokenResponse(body: JSONValue) -> SandboxResponse {
        .json(
            401, body,
            headers: [("WWW-Authenticate", "Bearer realm=\"PortalRealm\", error=\"invalid_token\", error_description=\"The access token expired\"")])
    }

    /// `POST /o/oauth2/token`: RFC 6749 §4.4, §4.3 (the user's password checked against
    /// `accounts`, by email address as Liferay's default sign-in is) and §6, form-encoded,
    /// client authentication by form parameters or HTTP basic; errors as §5.2 bodies.
    func respond(to request: SandboxRequest, accounts: Accounts) -> SandboxResponse {
        guard request.method == "POST" else {
            var response = SandboxResponse.text(405, "Method Not Allowed\n")
            response.headers.append(("Allow", "POST"))
            return response
        }
        guard request.headers["content-type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
            return Self.error(400, "invalid_request", "The token request must be application/x-www-form-urlencoded")
        }
        let form = QueryString(String(decoding: request.body, as: UTF8.self))
        var clientID = form["client_id"]
        var clientSecret = form["client_secret"]
        if let (id, secret) = Self.basicCredentials(request.headers["authorization"]) {
            // RFC 6749 section 2.3: "The client MUST NOT use more than one authentication
            // method in each request."
            guard clientID == nil, clientSecret == nil else {
                return Self.error(401, "invalid_client", "The client used more than one authentication method")
            }
            clientID = id
            clientSecret = secret
        }
        guard let clientID, let client = plan.clients.first(where: { $0.id == clientID }), client.secret == clientSecret else {
            // RFC 6749 §5.2: a client that authenticated by the Authorization header gets a 401
            // with WWW-Authenticate naming the scheme it used.
            let usedBasic = Self.basicCredentials(request.headers["authorization"]) != nil
            return Self.error(
                401, "invalid_client", "Client authentication failed",
                headers: usedBasic ? [("WWW-Authenticate", "Basic realm=\"PortalRealm\"")] : [])
        }
        // Before the grant is looked at, as the portal's token service (CXF's
        // AccessTokenService) checks it: a grant the application does not allow is
        // unauthorized_client (RFC 6749 section 5.2), whatever else the request says.
        if let grant = form["grant_type"], !client.grantTypes.contains(grant),
            ["client_credentials", "password", "refresh_token", "authorization_code"].contains(grant)
        {
            return Self.error(400, "unauthorized_client", "The client is not authorized to use the \(grant) grant")
        }
        // The scopes asked for that the client has (RFC 6749 section 3.3), or all of its own.
        let asked = form["scope"].map { Set($0.split(separator: " ").map(String.init)) }
        let scopes = asked.map { $0.intersection(client.scopes) } ?? Set(client.scopes)
        guard !scopes.isEmpty else { return Self.error(400, "invalid_scope", "The client has none of the scopes asked for") }
        switch form["grant_type"] {
        case "client_credentials":
            return issue(grant: "client_credentials", userEmail: client.userEmail, scopes: scopes, refreshFor: nil)
        case "password":
            guard let username = form["username"], let password = form["password"] else {
                return Self.error(400, "invalid_request", "The password grant needs username and password")
            }
            // Liferay answers a wrong login as an invalid grant, naming neither part.
            guard let user = accounts.users.first(where: { $0.emailAddress.lowercased() == username.lowercased() && $0.password == password })
            else { return Self.error(400, "invalid_grant", "The resource owner credentials are invalid") }
            return issue(grant: "password", userEmail: user.emailAddress, scopes: scopes, refreshFor: client.id)
        case "refresh_token":
            let grant = form["refresh_token"].flatMap { refresh in
                ledger.withLock { ledger -> RefreshGrant? in
                    guard let grant = ledger.refreshTokens[refresh], grant.clientID == client.id, !grant.spent,
                        grant.registered || !plan.refusesIssuedRefreshTokens
                    else { return nil }
                    if !grant.registered { ledger.refreshTokens[refresh]?.spent = true }
                    return grant
                }
            }
            guard let grant else { return Self.error(400, "invalid_grant", "The refresh token is invalid") }
            return issue(grant: "refresh_token", userEmail: grant.userEmail, scopes: scopes, refreshFor: client.id)
        case nil:
            return Self.error(400, "invalid_request", "Missing grant_type")
        default:
            return Self.error(400, "unsupported_grant_type", "Unsupported grant type")
        }
    }

    /// An access token acting as `userEmail`, and a new refresh token for client `refreshFor`
    /// when the grant brings one.
    private func issue(grant: String, userEmail: String, scopes: Set<String>, refreshFor clientID: String?) -> SandboxResponse {
        let token = Self.randomToken()
        let refreshToken = clientID.map { _ in Self.randomToken() }
        let seconds = max(1, plan.tokenLifetime.components.seconds)
        ledger.withLock { ledger in
            ledger.accessTokens[token] = Issued(userEmail: userEmail, scopes: scopes, expires: .now + .seconds(seconds), uses: 0)
            if let refreshToken, let clientID {
                ledger.refreshTokens[refreshToken] = RefreshGrant(clientID: clientID, userEmail: userEmail, registered: false)
            }
            ledger.tokensIssued += 1
            ledger.grantsAnswered[grant, default: 0] += 1
        }
        var body: JSONObject = [
            "access_token": .string(token), "token_type": "Bearer", "expires_in": .int(seconds),
            "scope": .string(scopes.sorted().joined(separator: " ")),
        ]
        if let refreshToken { body["refresh_token"] = .string(refreshToken) }
        return .json(200, .object(body), headers: [("Cache-Control", "no-store"), ("Pragma", "no-cache")])
    }

    private static func basicCredentials(_ header: String?) -> (String, String)? {
        guard let header, header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(header.dropFirst("basic ".count)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        let decode = { (part: Substring) in String(part).removingPercentEncoding ?? String(part) }
        return (decode(text[..<colon]), decode(text[text.index(after: colon)...]))
    }

    private static func error(
        _ status: Int, _ code: String, _ description: String, headers: [(String, String)] = []
    ) -> SandboxResponse {
        .json(status, ["error": .string(code), "error_description": .string(description)], headers: [("Cache-Control", "no-store")] + headers)
    }

    private static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined()
    }
}
