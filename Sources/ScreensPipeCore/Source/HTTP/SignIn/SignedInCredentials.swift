/// Credentials a run obtains by signing in before it sends (an OAuth 2 access token, a
/// portal session's cookies and CSRF token): obtained once and shared by the run's
/// requests, and obtained again, once per request, when the server refuses them.
/// ``HTTPPageFetcher`` and ``WriteCredentials`` add them the same way through this.
protocol SignedInCredentials: Sendable {
    /// The credentials in hand, signing in first when none are held, asked through
    /// `sender` with the caller's transport settings.
    func credentials(sender: RetryingSender, source: SourceSpec) async throws(ScreensPipeError) -> SignedIn
    /// The server refused `held`: forget them, unless newer ones replaced them already.
    func refused(_ held: SignedIn) async
    /// Whether an answer with `status` means the server refused the credentials.
    func refuses(status: Int) -> Bool
    /// What the log says when they are refused: "refused the OAuth2 token (HTTP 401); obtaining a new one".
    func refusalNotice(status: Int) -> String
}

/// Signed-in credentials as they go on a request: headers, and the values every shown
/// form of the request redacts.
struct SignedIn: Sendable {
    var headers: [(name: String, value: String)]
    var secrets: [String]
    /// Names these credentials for ``SignedInCredentials/refused(_:)``.
    var mark: Secret

    /// The transport is where the credentials are unwrapped; every shown form redacts them.
    func apply(to request: inout HTTPRequest) {
        for header in headers { request.headers.replaceOrAdd(name: header.name, value: header.value) }
        request.secretValues += secrets
    }
}

extension OAuth2TokenProvider: SignedInCredentials {
    func credentials(sender: RetryingSender, source: SourceSpec) async throws(ScreensPipeError) -> SignedIn {
        let token = try await token(sender: sender, source: source)
        return SignedIn(headers: [("Authorization", "Bearer \(token.revealed)")], secrets: [token.revealed], mark: token)
    }

    func refused(_ held: SignedIn) async { invalidate(held.mark) }

    nonisolated func refuses(status: Int) -> Bool { status == 401 }

    nonisolated func refusalNotice(status: Int) -> String { "refused the OAuth2 token (HTTP \(status)); obtaining a new one" }
}

extension HTTPSourceSettings {
    /// The keeper of the credentials this source signs in for, shared by every list and
    /// write of the process with the same credentials; nil for auth that needs no sign-in,
    /// or an OAuth 2 token endpoint the origin rule refuses (``signInUnavailable(page:)`` says why).
    func signedInCredentials() -> (any SignedInCredentials)? {
        switch source.auth {
        case .oauth2(let spec):
            guard let tokenURL = oauth2TokenURL else { return nil }
            return OAuth2TokenProviders.shared.provider(spec: spec, tokenURL: tokenURL, source: source, logger: logger)
        case .cookie(let spec):
            return PortalSessionKeepers.shared.keeper(spec: spec, loginURL: spec.loginURL(against: configuredURL), source: source, logger: logger)
        case .basic, .bearer, nil:
            return nil
        }
    }

    /// Whether the auth is added at send time by signing in (``signedInCredentials()``).
    var signsIn: Bool {
        switch source.auth {
        case .oauth2, .cookie: true
        case .basic, .bearer, nil: false
        }
    }

    /// The error for auth that signs in without a keeper: the origin rule refused the OAuth
    /// 2 token endpoint, and this says why rather than send no credentials.
    func signInUnavailable(page: Int?) -> ScreensPipeError {
        if case .oauth2(let spec) = source.auth {
            do throws(ScreensPipeError) {
                _ = try spec.resolvedTokenURL(against: configuredURL, source: source)
            } catch {
                var located = error
                located.page = page
                return located
            }
        }
        return ScreensPipeError(.configuration, "auth.oauth2.token-url cannot be used", page: page)
    }
}
