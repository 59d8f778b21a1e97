import ScreensBus
internal import Foundation
internal import Logging

/// The source stage for every HTTP wire format: builds each page's request through its
/// ``WireFormat``, adds credentials and limits, sends it with retries, and maps every
/// failure to a typed error that names the page and the (redacted) request.
struct HTTPPageFetcher<Format: WireFormat>: PageFetcher {
    let wire: Format
    let settings: HTTPSourceSettings
    let client: HTTPClient
    /// Whether the fetcher started ``client``, so shuts it down (a given one is shared).
    private let ownsClient: Bool
    private let sender: RetryingSender
    /// The keeper of credentials signed in for (an OAuth 2 token, a portal session).
    let signedIn: (any SignedInCredentials)?
    /// Sends token and sign-in requests: retried as `source.retry` says, outside the rate
    /// limit of the source's origin (the token endpoint may be elsewhere).
    private let tokenSender: RetryingSender

    /// Without a `client`, the fetcher starts its own, with as many connections per host as
    /// the pipeline keeps pages in flight (`prefetch`), plus one.
    init(wire: Format, settings: HTTPSourceSettings, client: HTTPClient? = nil) {
        ownsClient = client == nil
        let client = client ?? HTTPClient(configuration: .following(prefetch: settings.source.pagination.prefetch))
        self.wire = wire
        self.settings = settings
        self.client = client
        let limiter = RateLimiterRegistry.shared.limiter(origin: URLParts(settings.configuredURL).origin, spec: settings.source.rateLimit)
        sender = RetryingSender(client: client, policy: settings.retry, limiter: limiter)
        tokenSender = RetryingSender(client: client, policy: settings.retry)
        signedIn = settings.signedInCredentials()
    }

    var chaining: PageChaining { wire.chaining }

    var requestsPageSize: Bool { wire.requestsPageSize }

    /// The settings' cache identity (see ``SourceTypeSettings/cacheIdentity``).
    var identity: String { wire.spec.identity }

    var summary: String { wire.summary }

    func fetch(_ page: PageRequest, provisional: @Sendable (FetchedPage) async -> Void) async throws(ScreensPipeError) -> FetchedPage {
        let (prepared, decision) = try wire.preparedRequestAndDecision(for: page, settings: settings)
        guard decision == .sendWithCredentials, settings.signsIn else {
            var sent = 0
            return try await send(prepared, page: page, sent: &sent)
        }
        // The origin rule refused the token endpoint: say why rather than send no token.
        guard let signedIn else { throw settings.signInUnavailable(page: page.index) }
        var renewedAfterRefusal = false
        // The same request sent again with new credentials is a resend (its attempt spans say so).
        var sent = 0
        while true {
            var request = prepared
            let held: SignedIn
            do throws(ScreensPipeError) {
                held = try await signedIn.credentials(sender: tokenSender, source: settings.source)
            } catch {
                var located = error
                located.page = page.index
                throw located
            }
            held.apply(to: &request)
            do throws(ScreensPipeError) {
                return try await send(request, page: page, sent: &sent)
            } catch where error.status.map(signedIn.refuses) == true && !renewedAfterRefusal {
                // A token can expire or be revoked, a session end, before their time: one
                // new sign-in, one more try; a second refusal is the server's final word.
                settings.logger.info("page \(page.index): the server \(signedIn.refusalNotice(status: error.status ?? 0))")
                await signedIn.refused(held)
                renewedAfterRefusal = true
            }
        }
    }

    /// Sends one prepared request with retries and turns the answer into the page.
    private func send(_ request: HTTPRequest, page: PageRequest, sent: inout Int) async throws(ScreensPipeError) -> FetchedPage {
        let description = request.requestDescription
        // What a server says is quoted in errors, retry notices and logs; it may echo the
        // credentials it was sent (a token in a 401 body), so each is redacted here.
        let secrets = request.secretValues
        let onRetry = settings.onRetry
        let logger = settings.logger
        let onResponseBody = settings.onResponseBody
        let outcome: Result<DecodedPage, ScreensPipeError>
        do throws(HTTPError) {
            outcome = try await sender.send(
                request, sent: &sent,
                onRetry: { attempt in
                    var notice = RetryNotice(page: page.index, attempt: attempt)
                    notice.reason = redactingValues(notice.reason, secrets)
                    logger.info("page \(page.index): retrying in \(notice.delayText) after attempt \(notice.attempt) of \(notice.attempts): \(notice.reason)")
                    onRetry?(notice)
                },
                interpret: { response in
                    // `description` is the redacted method and URL: no credentials reach the log.
                    logger.debug("page \(page.index): \(description) -> \(response.status), \(response.body.count) bytes")
                    onResponseBody?(response.body.count)
                    return interpret(response, page: page, request: description)
                })
        } catch {
            logger.debug("page \(page.index): \(description) -> \(redactingValues(error.message, secrets))")
            throw ScreensPipeError(error.pipelineCode, error.message, page: page.index, request: description).redacting(secrets)
        }
        let decoded: DecodedPage
        do throws(ScreensPipeError) { decoded = try outcome.get() } catch { throw error.redacting(secrets) }
        var fetched: FetchedPage
        if settings.keepsRowsAsTexts, let texts = decoded.rowTexts {
            fetched = FetchedPage(
                request: page, rowTexts: texts, rowCount: decoded.rowCount, continuation: decoded.continuation, origin: .remote)
        } else {
            fetched = FetchedPage(
                request: page, rows: decoded.rows, rowCount: decoded.rowCount, continuation: decoded.continuation,
                origin: .remote)
            fetched.rowTexts = decoded.rowTexts
        }
        fetched.missingContinuation = decoded.missingContinuation
        fetched.pageCount = decoded.pageCount
        fetched.endsList = decoded.endsList
        fetched.responseAction = decoded.action
        fetched.paginator = decoded.paginator
        return fetched
    }

    func plan(_ page: PageRequest) -> [PlannedRequest] {
        wire.plannedRequests(for: page, settings: settings)
    }

    func shutdown() async {
        if ownsClient { await client.shutdown() }
    }

    // MARK: - Responses

    /// What one response means for the page: rows, an error, or a reason to try again.
    /// Internal rather than private for the response fuzz target and tests.
    func interpret(
        _ response: HTTPResponse, page: PageRequest, request: String
    ) -> RetryingSender.Verdict<Result<DecodedPage, ScreensPipeError>> {
        if let verdict = ruleVerdict(response, page: page, request: request) { return verdict }
        if (300..<400).contains(response.status) {
            return .final(.failure(redirectError(response, page: page, request: request)))
        }
        guard response.isSuccess else {
            let failure = wire.error(for: response, page: page, request: request)
            guard sender.policy.isRetryable(status: response.status) else { return .final(.failure(failure)) }
            return .retryable(.failure(failure), reason: .status(response.status), retryAfter: response.headers["Retry-After"])
        }
        let body: JSONValue
        var texts: JSONElementTexts?
        do throws(JSONParseError) {
            if let path = wire.rowsPath(for: page) {
                // More rows than asked is refused while reading (PageSequenceGuard's rule),
                // not after a hostile page's millions of rows are built.
                (body, texts) = try JSONValue.parse(
                    response.body, keepingElementTextsAt: path, skippingElements: settings.keepsRowsAsTexts, findingMembers: settings.rowMembers,
                    maximumElements: wire.requestsPageSize ? page.endRow - page.startRow : .max)
            } else {
                body = try JSONValue(parsing: response.body)
            }
        } catch where error.elementLimit != nil {
            var failure = PageSequenceGuard.tooManyRows(sent: "more than \(error.elementLimit ?? 0)", for: page)
            failure.request = request
            failure.status = response.status
            return .final(.failure(failure))
        } catch {
            // A 200 with a broken body is what a proxy or a dying server sends: try again.
            let failure = ScreensPipeError(
                .malformedResponse, "the response is not valid JSON (\(error)); \(bodyDescription(response))", page: page.index,
                request: request, status: response.status)
            return .retryable(.failure(failure), reason: .invalidResponse(failure.message))
        }
        if let exception = LiferayErrorBody.portalException(in: body) {
            return .final(
                .failure(
                    ScreensPipeError(
                        .portal, sanitizedServerText(exception.message), page: page.index, request: request, status: response.status,
                        exceptionType: exception.type.map { sanitizedServerText($0, limit: 200) })))
        }
        do throws(ScreensPipeError) {
            var decoded = try wire.decode(body, response: response, page: page)
            // The rows are the array the texts were kept for: each row passes through as received.
            if let texts, texts.count == decoded.rows.count {
                decoded.rowTexts = texts
            } else if settings.keepsRowsAsTexts {
                // The rows are not the array the texts were kept for (not one there, or a
                // repeated key): skipped rows' places hold nulls, so read the body again in
                // full rather than deliver those.
                let full: JSONValue
                do throws(JSONParseError) { full = try JSONValue(parsing: response.body) } catch { preconditionFailure("a body that parsed does not parse again: \(error)") }
                decoded = try wire.decode(full, response: response, page: page)
            }
            return .final(.success(decoded))
        } catch {
            var located = error
            located.page = page.index
            located.request = located.request ?? request
            return .final(.failure(located))
        }
    }

    /// What came instead of JSON, for a user who pointed the pipeline at a web page: the
    /// content type and the first bytes of the body, sanitized like any server text.
    private func bodyDescription(_ response: HTTPResponse) -> String {
        let type = response.headers["Content-Type"].map { sanitizedServerText($0, limit: 100) } ?? "no Content-Type"
        guard !response.body.isEmpty else { return "\(type), an empty body" }
        let start = sanitizedServerText(String(decoding: response.body.prefix(200), as: UTF8.self), limit: 60)
        return "\(type), the body starts with \"\(start)\""
    }

    /// Portals answer bad credentials on some endpoints with a redirect to the login page.
    private func redirectError(_ response: HTTPResponse, page: PageRequest, request: String) -> ScreensPipeError {
        let location = response.headers["Location"] ?? ""
        if location.lowercased().contains("login") {
            return ScreensPipeError(
                .authentication, "bad credentials: the server redirected to its login page", page: page.index,
                request: request, status: response.status)
        }
        return ScreensPipeError(
            .http, "HTTP \(response.status) redirect to \(sanitizedServerText(redactedURL(location))) (redirects are not followed)",
            page: page.index, request: request, status: response.status)
    }
}

/// The settings every HTTP wire format shares, taken from `source:`.
struct HTTPSourceSettings: Sendable {
    var source: SourceSpec
    var retry: RetryPolicy
    var onRetry: (@Sendable (RetryNotice) -> Void)?
    var logger: Logger
    /// Whether the rows of a page are kept as their texts, checked but not parsed: set when
    /// no stage of the run reads row values (``RowReadPlan``).
    var keepsRowsAsTexts = false
    /// The members of each row to find as the rows are checked (``RowForm/members``).
    var rowMembers: JSONMemberSelection?
    /// Told each response body's size (metrics).
    var onResponseBody: (@Sendable (Int) -> Void)?
    /// The URL the pipeline names; its origin is the only one that receives credentials.
    var configuredURL: String
    /// The OAuth 2 token endpoint as an absolute URL, when `auth: { oauth2: ... }` and the
    /// origin rule allows it (``OAuth2Spec/resolvedTokenURL(against:source:)``).
    var oauth2TokenURL: String?

    init(source: SourceSpec, configuredURL: String, onRetry: (@Sendable (RetryNotice) -> Void)?, logger: Logger) {
        self.source = source
        self.configuredURL = configuredURL
        if case .oauth2(let spec) = source.auth {
            oauth2TokenURL = try? spec.resolvedTokenURL(against: configuredURL, source: source)
        }
        retry = RetryPolicy(source.retry)
        self.onRetry = onRetry
        self.logger = logger
    }

    /// Whether the pipeline sends credentials: auth, a secret-named header, or userinfo in its URL.
    var hasCredentials: Bool {
        source.auth != nil || source.headers.contains { $0.value.isSecret || isSecretHeaderName($0.name) }
            || URLParts(configuredURL).userinfo != nil
    }

    /// Adds transport settings and headers; credentials (auth and secret-named headers) only
    /// when `withCredentials`, that is for the configured origin.
    func apply(to request: inout HTTPRequest, withCredentials: Bool = true) {
        request.applyTransportSettings(of: source)
        if !request.headers.contains("Accept") { request.headers.add(name: "Accept", value: "application/json") }
        for header in source.headers where withCredentials || !(header.value.isSecret || isSecretHeaderName(header.name)) {
            // The transport is where a secret header is unwrapped.
            request.headers.replaceOrAdd(name: header.name, value: header.value.revealed)
            if header.value.isSecret { request.secretValues.append(header.value.revealed) }
        }
        guard withCredentials else { return }
        switch source.auth {
        case .basic(let username, let password):
            // The transport is the one place a Secret is unwrapped.
            let token = Data("\(username):\(password.revealed)".utf8).base64EncodedString()
            request.headers.replaceOrAdd(name: "Authorization", value: "Basic \(token)")
            // A server that echoes the header echoes this form.
            request.secretValues.append(token)
        case .bearer(let token):
            request.headers.replaceOrAdd(name: "Authorization", value: "Bearer \(token.revealed)")
            // A server may echo the token it was sent: every shown form redacts it.
            request.secretValues.append(token.revealed)
        case .oauth2, .cookie, nil:
            // An OAuth 2 token or a portal session is obtained at send time (HTTPPageFetcher.fetch).
            break
        }
    }
}

/// A retry the source is about to make, for progress lines and logs.
public struct RetryNotice: Sendable {
    /// The page whose request failed.
    public var page: Int
    /// The attempt that failed (1 = the first try).
    public var attempt: Int
    /// Tries allowed in all.
    public var attempts: Int
    /// How long the source waits before the next try.
    public var delay: Duration
    /// ``delay`` for people, in seconds to the hundredth: `0.25 s`, `12.00 s`.
    public var delayText: String {
        let hundredths = (delay.components.seconds * 100) + (delay.components.attoseconds + 5_000_000_000_000_000) / 10_000_000_000_000_000
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
    }
    /// Why: "HTTP 503", "connection reset", "the response is not valid JSON".
    public var reason: String
    /// The request, redacted.
    public var request: String

    init(page: Int, attempt: RetryAttempt) {
        self.page = page
        self.attempt = attempt.failedAttempt
        attempts = attempt.attempts
        delay = attempt.delay
        request = attempt.request
        switch attempt.reason {
        case .status(let status): reason = "HTTP \(status)"
        case .error(let error): reason = error.message
        case .invalidResponse(let message): reason = message
        }
    }
}
