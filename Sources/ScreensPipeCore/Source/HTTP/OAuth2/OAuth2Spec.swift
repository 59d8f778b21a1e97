/// `auth: { oauth2: ... }`: an access token obtained from an OAuth 2 token endpoint
/// (RFC 6749 §4.4 client credentials, §4.3 resource owner password, §6 refresh token), as
/// Liferay 7.2+ issues them at
/// `/o/oauth2/token`. The token lives in memory only, for one run.
public struct OAuth2Spec: Sendable, Hashable {
    /// How the token is obtained.
    public enum Grant: Sendable, Hashable {
        /// `grant_type=client_credentials`: the client acts as itself (its configured user).
        case clientCredentials
        /// `grant_type=refresh_token` with this refresh token; a rotated refresh token from
        /// the answer is used for the next refresh, in memory only.
        case refreshToken(Secret)
        /// `grant_type=password` (RFC 6749 §4.3): the client acts as this portal user, as
        /// Screens' Login Screenlet does in its OAuth 2 username/password mode. A refresh
        /// token from the answer renews the token (rotated ones kept, in memory only); the
        /// password is sent again only when there is none or the server refuses it.
        case password(username: String, password: Secret)
    }

    /// How the client proves who it is to the token endpoint.
    public enum ClientAuthentication: String, Sendable, Hashable, CaseIterable {
        /// `client_id` and `client_secret` form parameters (Liferay's default).
        case form
        /// `Authorization: Basic base64(client_id:client_secret)` (RFC 6749 §2.3.1).
        case basic
    }

    /// The token endpoint: a path on the server (`/o/oauth2/token`) or an absolute URL.
    public var tokenURL: String
    public var grant: Grant
    /// The client id; shown by `plan`, and only as a digest in cache keys.
    public var clientID: String
    /// The client secret; optional for public clients of the refresh-token grant.
    public var clientSecret: Secret?
    /// Space-separated scopes to ask for; nil asks for the client's default scopes.
    public var scope: String?
    public var clientAuthentication: ClientAuthentication
    /// Allow a token endpoint on another origin than the source's (an identity provider of
    /// its own). The client secret then goes to that origin, still only over https or loopback.
    public var allowOtherTokenOrigin: Bool
    /// `proxy:` of the token endpoint; nil asks it through the section's own `proxy:`
    /// (an identity provider may sit behind another proxy than the portal, or none).
    public var proxy: ProxySpec?

    /// Creates an OAuth 2 setting; the client authenticates with form parameters.
    public init(
        tokenURL: String = "/o/oauth2/token", grant: Grant = .clientCredentials, clientID: String, clientSecret: Secret?,
        scope: String? = nil, clientAuthentication: ClientAuthentication = .form, allowOtherTokenOrigin: Bool = false
    ) {
        self.tokenURL = tokenURL
        self.grant = grant
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scope = scope
        self.clientAuthentication = clientAuthentication
        self.allowOtherTokenOrigin = allowOtherTokenOrigin
    }

    /// The section's transport settings as the token endpoint uses them: its own proxy,
    /// when it names one. Every token request and the token URL's plain-http check take
    /// their settings from here.
    func tokenEndpointSettings(of source: SourceSpec) -> SourceSpec {
        guard let proxy else { return source }
        var settings = source
        settings.proxy = proxy
        return settings
    }

    /// `client-credentials`, `refresh-token` or `password`, as written in a pipeline file.
    var grantName: String {
        switch grant {
        case .clientCredentials: "client-credentials"
        case .refreshToken: "refresh-token"
        case .password: "password"
        }
    }

    /// The portal user of the password grant, whom the rows are for; nil for other grants.
    var resourceOwner: String? {
        if case .password(let username, _) = grant { return username }
        return nil
    }
}
