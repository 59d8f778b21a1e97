/// The sandbox's OAuth 2 provider, as Liferay's `/o/oauth2/token` (7.2+): registered
/// clients, the lifetime of the tokens it issues, and an optional early expiry for tests.
public struct OAuth2Plan: Sendable {
    /// One registered OAuth 2 application.
    public struct Client: Sendable {
        public var id: String
        public var secret: String
        /// The portal user the client's tokens act as (its email address in users.json).
        public var userEmail: String
        /// A refresh token the client holds from the start, for the refresh-token grant.
        public var refreshToken: String?
        /// The scopes the application may be granted: a token asked with `scope` gets
        /// those of them it names, one asked without gets them all.
        public var scopes: [String]
        /// The grant types the application allows (Liferay's "Allowed Authorization Types":
        /// `client_credentials`, `password`, `refresh_token`); a token request with another
        /// is refused with `unauthorized_client`, as the portal's token service refuses it.
        public var grantTypes: Set<String>

        /// The grants of a confidential client that acts for itself and signs users in.
        public static let allGrantTypes: Set<String> = ["client_credentials", "password", "refresh_token"]

        /// Every scope of headless delivery and of JSON-WS, read and write.
        public static let allScopes = [
            "Liferay.Headless.Delivery.everything.read", "Liferay.Headless.Delivery.everything.write", "everything.read",
            "everything.write",
        ]

        /// Creates a client acting as `userEmail`.
        public init(
            id: String, secret: String, userEmail: String, refreshToken: String? = nil, scopes: [String] = Self.allScopes,
            grantTypes: Set<String> = Self.allGrantTypes
        ) {
            self.grantTypes = grantTypes
            self.id = id
            self.secret = secret
            self.userEmail = userEmail
            self.refreshToken = refreshToken
            self.scopes = scopes
        }
    }

    public var clients: [Client]
    /// `expires_in` of issued tokens, in whole seconds (at least 1); a token is refused once
    /// it has lived that long.
    public var tokenLifetime: Duration
    /// Refuse a token (401, as an expired one) after this many data requests carried it,
    /// whatever its lifetime: "the token expires after page 2" without waiting for a clock.
    public var tokenUses: Int?
    /// Refuse every refresh token the provider issued (`invalid_grant`), as after an
    /// administrator revokes the authorization: a password-grant client must sign in again.
    public var refusesIssuedRefreshTokens = false

    /// Creates a provider plan.
    public init(clients: [Client] = [Self.sandboxClient], tokenLifetime: Duration = .seconds(600), tokenUses: Int? = nil) {
        self.clients = clients
        self.tokenLifetime = tokenLifetime
        self.tokenUses = tokenUses
    }

    /// `sandbox-client` / `sandbox-secret`, acting as test@liferay.com, with refresh token
    /// `sandbox-refresh-token`: the client the sample pipelines use.
    public static let sandboxClient = Client(
        id: "sandbox-client", secret: "sandbox-secret", userEmail: "test@liferay.com", refreshToken: "sandbox-refresh-token")

    /// The bundled provider: the sandbox client, ten-minute tokens.
    public static let standard = OAuth2Plan()
}
