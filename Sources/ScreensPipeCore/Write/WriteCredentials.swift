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
    /// The keeper of credentials signed in for (an OAuth 2 token whose endpoint the origin
    /// rule allows, a portal session).
    private let signedIn: (any SignedInCredentials)?
    /// Sends token requests, retried as the sink's `retry` says.
    private let tokenSender: RetryingSender

    init(settings: HTTPSourceSettings, client: HTTPClient) {
        self.settings = settings
        tokenSender = RetryingSender(client: client, policy: settings.retry)
        signedIn = settings.signedInCredentials()
    }

    /// The request as a dry run shows it: every credential but an OAuth 2 token, which is
    /// obtained only to send (a placeholder `Authorization`, redacted like any, stands for it).
    func planned(_ request: inout HTTPRequest) throws(ScreensPipeError) {
        guard try decision(for: request) == .sendWithCredentials else { return }
        switch settings.source.auth {
        case .oauth2:
            request.headers.replaceOrAdd(name: "Authorization", value: "Bearer (obtained from the token endpoint when sent)")
        case .cookie:
            request.headers.replaceOrAdd(name: "Cookie", value: "(the portal session, signed in when sent)")
            request.headers.replaceOrAdd(name: "X-CSRF-Token", value: "(the session's Liferay.authToken)")
        case .basic, .bearer, nil:
            break
        }
    }

    /// Adds the OAuth 2 token to `request` (obtaining one first) when the sink uses one and
    /// the origin rule lets credentials go; answers that token. Headers and other
    /// credentials are already on the request (``HTTPSourceSettings/authorize(_:)``).
    private func authorize(_ request: inout HTTPRequest) async throws(ScreensPipeError) -> SignedIn? {
        guard try decision(for: request) == .sendWithCredentials, settings.signsIn else { return nil }
        // The origin rule refused the token endpoint: say why rather than send no token.
        guard let signedIn else { throw settings.signInUnavailable(page: nil) }
        let held = try await signedIn.credentials(sender: tokenSender, source: settings.source)
        held.apply(to: &request)
        return held
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
            let held = try await authorize(&request)
            let result: Result<HTTPResponse, HTTPError>
            do throws(HTTPError) {
                result = .success(try await send(request))
            } catch {
                result = .failure(error)
            }
            if case .success(let response) = result, let held, let signedIn, signedIn.refuses(status: response.status), !renewed {
                settings.logger.info("the portal \(signedIn.refusalNotice(status: response.status))")
                await signedIn.refused(held)
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
