internal import Foundation
internal import Logging
import Synchronization

/// Obtains and renews the OAuth 2 access token of one set of credentials, in memory only.
///
/// Concurrent pages share one token and one request to the token endpoint: while a token
/// is being obtained, every caller waits for that same request. A token is renewed before
/// it expires (a tenth of its lifetime, at most a minute, early), and once more when the
/// server answers 401 to it (``invalidate(_:)``). Every list of the process with the same
/// credentials (the child lists of a fan-out, a service's repeated runs) uses one provider
/// (``OAuth2TokenProviders``), so they share the token instead of asking for one each.
actor OAuth2TokenProvider {
    /// The token in hand and when it should be replaced.
    private struct Current {
        var token: Secret
        var renewAt: ContinuousClock.Instant
    }

    /// What the provider holds: nothing, a request under way, or a token. The request's
    /// result is shared by everyone who asked while it ran.
    private enum State {
        case empty
        case obtaining(Task<Result<Current, ScreensPipeError>, Never>)
        case holding(Current)
    }

    private let spec: OAuth2Spec
    private let tokenURL: String
    private let logger: Logger
    private var state: State = .empty
    /// The refresh token for the next refresh: the configured one, then any rotated one.
    private var refreshToken: Secret?

    /// - Parameters:
    ///   - tokenURL: the absolute token endpoint URL, already checked against the origin rule.
    init(spec: OAuth2Spec, tokenURL: String, logger: Logger) {
        self.spec = spec
        self.tokenURL = tokenURL
        self.logger = logger
        if case .refreshToken(let token) = spec.grant { refreshToken = token }
    }

    /// A valid access token: the one in hand, or a new one from the token endpoint, asked
    /// through `sender` (the caller's client: the provider outlives any one run's client)
    /// with the caller's transport settings (`source`: timeouts, size limit; its TLS
    /// settings are part of the provider's identity, so they are this provider's too).
    func token(sender: RetryingSender, source: SourceSpec) async throws(ScreensPipeError) -> Secret {
        switch state {
        case .holding(let current) where ContinuousClock.now < current.renewAt:
            return current.token
        case .obtaining(let task):
            return try await task.value.get().token
        case .holding, .empty:
            let task = Task { await self.requestToken(sender: sender, source: source) }
            state = .obtaining(task)
            let result = await task.value
            switch result {
            case .success(let current): state = .holding(current)
            case .failure: state = .empty
            }
            return try result.get().token
        }
    }

    /// The server refused `token` (a 401): forget it, unless a newer one has replaced it
    /// already (another page saw the same 401 first).
    func invalidate(_ token: Secret) {
        if case .holding(let current) = state, current.token == token { state = .empty }
    }

    private func requestToken(sender: RetryingSender, source: SourceSpec) async -> Result<Current, ScreensPipeError> {
        let request = tokenRequest(source: source)
        let answer = await exchange(request, sender: sender)
        // The password grant's refresh token may have expired or been revoked while the
        // password still holds: sign in again once, as Screens' login does, rather than fail.
        if case .password = spec.grant, case .failure(let refusal) = answer, refusal.invalidGrant, refreshToken != nil {
            logger.info("the token endpoint refused the refresh token (invalid_grant); signing in with the password again")
            refreshToken = nil
            return await exchange(tokenRequest(source: source), sender: sender).mapError(\.error)
        }
        return answer.mapError(\.error)
    }

    /// Why a token request failed, and whether the server's answer was `invalid_grant`.
    private struct Refusal: Error {
        var error: ScreensPipeError
        var invalidGrant = false
    }

    /// One token request and its answer; a rotated refresh token is kept for the next one.
    private func exchange(_ request: HTTPRequest, sender: RetryingSender) async -> Result<Current, Refusal> {
        let response: HTTPResponse
        do throws(HTTPError) {
            response = try await sender.send(request)
        } catch {
            return .failure(Refusal(error: ScreensPipeError(error.pipelineCode, "obtaining an OAuth2 token: \(error.message)", request: request.requestDescription)))
        }
        guard response.status == 200 else {
            let message = OAuth2TokenResponse.refusal(
                status: response.status, body: response.body, secrets: request.secretValues, invalidGrantMeans: invalidGrantMeaning(of: request))
            return .failure(
                Refusal(
                    error: .authentication("obtaining an OAuth2 token: \(message)", request: request.requestDescription, status: response.status),
                    invalidGrant: OAuth2TokenResponse.errorCode(response.body) == "invalid_grant"))
        }
        do throws(ScreensPipeError) {
            let answer = try OAuth2TokenResponse.parse(response.body)
            if let rotated = answer.refreshToken { refreshToken = rotated }
            let early = min(Duration.seconds(60), answer.lifetime / 10)
            logger.debug("obtained an OAuth2 token from \(request.requestDescription), valid for \(answer.lifetime)")
            return .success(Current(token: answer.accessToken, renewAt: ContinuousClock.now + answer.lifetime - early))
        } catch {
            var located = error
            located.message = "obtaining an OAuth2 token: \(error.message)"
            located.request = request.requestDescription
            return .failure(Refusal(error: located))
        }
    }

    /// What `invalid_grant` (RFC 6749 §5.2) says about `request`'s grant: the password
    /// grant's credentials are the user's, the refresh grant's a token.
    private func invalidGrantMeaning(of request: HTTPRequest) -> String {
        let refreshed = refreshToken.map { request.secretValues.contains($0.revealed) } ?? false
        switch spec.grant {
        case .password where !refreshed: return "the username or password is wrong, or the user may not sign in"
        case .clientCredentials: return "the client's grant is invalid or revoked"
        case .password, .refreshToken: return "the refresh token is invalid, expired or revoked"
        }
    }

    /// The form-encoded POST of RFC 6749 §4.4.2, §4.3.2 or §6 (the password grant's renewal
    /// while it holds a refresh token), with the client's credentials in the
    /// form or in a basic `Authorization` header.
    func tokenRequest(source: SourceSpec) -> HTTPRequest {
        var form: [QueryParameter] = []
        var secrets: [String] = []
        switch spec.grant {
        case .clientCredentials:
            form.append(QueryParameter(name: "grant_type", value: "client_credentials"))
        case .refreshToken:
            form.append(QueryParameter(name: "grant_type", value: "refresh_token"))
            if let refreshToken {
                form.append(QueryParameter(name: "refresh_token", value: refreshToken.revealed))
                secrets.append(refreshToken.revealed)
            }
        case .password(let username, let password):
            if let refreshToken {
                form.append(QueryParameter(name: "grant_type", value: "refresh_token"))
                form.append(QueryParameter(name: "refresh_token", value: refreshToken.revealed))
                secrets.append(refreshToken.revealed)
            } else {
                form.append(QueryParameter(name: "grant_type", value: "password"))
                form.append(QueryParameter(name: "username", value: username))
                form.append(QueryParameter(name: "password", value: password.revealed))
            }
            // Listed either way: a server may echo it in an error about a refresh.
            secrets.append(password.revealed)
        }
        if let scope = spec.scope { form.append(QueryParameter(name: "scope", value: scope)) }
        var request = HTTPRequest(method: "POST", url: tokenURL)
        request.applyTransportSettings(of: spec.tokenEndpointSettings(of: source))
        request.maxResponseSize = OAuth2TokenResponse.maximumBodySize
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        switch (spec.clientAuthentication, spec.clientSecret) {
        case (.basic, let secret?):
            // RFC 6749 §2.3.1: both parts form-encoded before the base64.
            let pair = "\(URLText.encode(spec.clientID)):\(URLText.encode(secret.revealed))"
            request.headers.add(name: "Authorization", value: "Basic \(Data(pair.utf8).base64EncodedString())")
        case (.form, _), (.basic, nil):
            // A public client (no secret) names itself with client_id in the body (RFC 6749
            // §3.2.1), as the Mobile SDK's TokenRequester does, whatever client-auth says.
            form.append(QueryParameter(name: "client_id", value: spec.clientID))
            if let secret = spec.clientSecret {
                form.append(QueryParameter(name: "client_secret", value: secret.revealed))
            }
        }
        if let secret = spec.clientSecret { secrets.append(secret.revealed) }
        request.secretValues = secrets
        request.body = Array(URLText.formEncoded(form).utf8)
        return request
    }
}

/// The process's token providers, one per set of OAuth 2 credentials (token endpoint,
/// grant, client, secret, refresh token, user and password, scope) and route
/// (``SourceSpec/signInRoute(proxy:)``: the token requests carry the client secret).
final class OAuth2TokenProviders: Sendable {
    static let shared = OAuth2TokenProviders()

    private let holders = CredentialHolders<OAuth2TokenProvider>()

    func provider(spec: OAuth2Spec, tokenURL: String, source: SourceSpec, logger: Logger) -> OAuth2TokenProvider {
        var refresh = ""
        var owner = ""
        switch spec.grant {
        case .clientCredentials: break
        case .refreshToken(let token): refresh = token.revealed
        // Each user (and each of their passwords) gets a token of its own.
        case .password(let username, let password): owner = "\(username)\n\(password.revealed)"
        }
        let identity = [
            tokenURL, spec.grantName, spec.clientID, spec.clientSecret?.revealed ?? "", refresh, owner, spec.scope ?? "",
            spec.clientAuthentication.rawValue,
        ] + source.signInRoute(proxy: spec.tokenEndpointSettings(of: source).proxy)
        return holders.holder(identity: identity) { OAuth2TokenProvider(spec: spec, tokenURL: tokenURL, logger: logger) }
    }
}
