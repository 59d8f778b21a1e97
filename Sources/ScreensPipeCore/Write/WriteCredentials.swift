internal import Logging
import ScreensBus

/// The sink's credentials on every write request, under the rules reads follow
/// (``HTTPPageFetcher``): the origin rule (``CredentialPolicy``) decides whether they go
/// at all; headers and basic or bearer auth go as ``HTTPSourceSettings/apply(to:withCredentials:)``
/// adds them; an OAuth 2 access token comes from the process's provider for those
/// credentials (``OAuth2TokenProviders``), shared with reads of the same client, and is
/// redacted wherever a request is shown.
struct WriteCredentials: Sendable {
    let settings: HTTPSourceSettings
    /// The token's keeper, when `auth: { oauth2: ... }` and the origin rule allows its endpoint.
    private let tokenProvider: OAuth2TokenProvider?
    /// Sends token requests, retried as the sink's `retry` says.
    private let tokenSender: RetryingSender

    init(settings: HTTPSourceSettings, client: HTTPClient) {
        self.settings = settings
        tokenSender = RetryingSender(client: client, policy: settings.retry)
        if case .oauth2(let spec) = settings.source.auth, let tokenURL = settings.oauth2TokenURL {
            tokenProvider = OAuth2TokenProviders.shared.provider(spec: spec, tokenURL: tokenURL, source: settings.source, logger: settings.logger)
        } else {
            tokenProvider = nil
        }
    }

    /// The request as a dry run shows it: every credential but an OAuth 2 token, which is
    /// obtained only to send (a placeholder `Authorization`, redacted like any, stands for it).
    func planned(_ request: inout HTTPRequest) throws(ScreensPipeError) {
        if try decision(for: request) == .sendWithCredentials, case .oauth2 = settings.source.auth {
            request.headers.replaceOrAdd(name: "Authorization", value: "Bearer (obtained from the token endpoint when sent)")
        }
    }

    /// Adds the OAuth 2 token to `request` (obtaining one first) when the sink uses one and
    /// the origin rule lets credentials go; answers that token. Headers and other
    /// credentials are already on the request (``HTTPSourceSettings/authorize(_:)``).
    private func authorize(_ request: inout HTTPRequest) async throws(ScreensPipeError) -> Secret? {
        guard try decision(for: request) == .sendWithCredentials, case .oauth2(let spec) = settings.source.auth else { return nil }
        guard let tokenProvider else {
            // The origin rule refused the token endpoint: say why rather than send no token.
            _ = try spec.resolvedTokenURL(against: settings.configuredURL, source: settings.source)
            throw ScreensPipeError(.configuration, "auth.oauth2.token-url cannot be used")
        }
        let token = try await tokenProvider.token(sender: tokenSender, source: settings.source)
        // The transport is where the token is unwrapped; every shown form redacts it.
        request.headers.replaceOrAdd(name: "Authorization", value: "Bearer \(token.revealed)")
        request.secretValues.append(token.revealed)
        return token
    }

    /// Sends `prepared` with the credentials through `send` (one attempt, or a retrying
    /// sender's), and answers the request as sent (for messages) with what came back.
    ///
    /// A 401 to an OAuth 2 token (expired or revoked before its announced lifetime) is
    /// answered once with a new token: the portal checks the token before it runs anything,
    /// so even a create may go once more. A second 401 is the portal's final word.
    func send(
        _ prepared: HTTPRequest, through send: (HTTPRequest) async throws(HTTPError) -> HTTPResponse
    ) async throws(ScreensPipeError) -> (request: HTTPRequest, result: Result<HTTPResponse, HTTPError>) {
        var renewed = false
        while true {
            var request = prepared
            let token = try await authorize(&request)
            let result: Result<HTTPResponse, HTTPError>
            do throws(HTTPError) {
                result = .success(try await send(request))
            } catch {
                result = .failure(error)
            }
            if case .success(let response) = result, response.status == 401, let token, !renewed {
                settings.logger.info("the portal refused the OAuth2 token (HTTP 401); obtaining a new one")
                await tokenProvider?.invalidate(token)
                renewed = true
                continue
            }
            return (request, result)
        }
    }

    /// Whether credentials go with `request` (the configured origin, over https or loopback).
    private func decision(for request: HTTPRequest) throws(ScreensPipeError) -> CredentialPolicy.Decision {
        try CredentialPolicy.check(
            url: request.url, configured: settings.configuredURL, hasCredentials: settings.hasCredentials, source: settings.source)
    }
}
