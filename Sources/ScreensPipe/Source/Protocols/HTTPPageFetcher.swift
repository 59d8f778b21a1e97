public import ScreensBus
internal import Foundation
internal import Logging

/// The source stage for every HTTP protocol: builds each page's request through its
/// ``ListProtocol``, adds credentials and limits, sends it with retries, and maps every
/// failure to a typed error that names the page and the (redacted) request.
struct HTTPPageFetcher<Protocol: ListProtocol>: PageFetcher {
    let wire: Protocol
    let settings: HTTPSourceSettings
    let client: HTTPClient

    var chaining: PageChaining { wire.chaining }

    var identity: String { wire.identity }

    var summary: String { wire.summary }

    func fetch(_ page: PageRequest, provisional: @Sendable (FetchedPage) async -> Void) async throws(ScreensPipeError) -> FetchedPage {
        let request = try prepared(page)
        let description = request.requestDescription
        var attempt = 1
        while true {
            let outcome = await attemptOnce(request, page: page, description: description)
            switch outcome {
            case .success(let decoded):
                return FetchedPage(
                    request: page, rows: decoded.rows, rowCount: decoded.rowCount,
                    continuation: decoded.continuation, origin: .remote)
            case .failure(let failure):
                guard failure.retryable, attempt < settings.retry.attempts else { throw failure.error }
                let delay = settings.retry.delay(afterAttempt: attempt, retryAfter: failure.retryAfter)
                settings.logger.info(
                    "page \(page.index): retrying in \(delay) after attempt \(attempt): \(failure.error.message)")
                settings.onRetry?(RetryNotice(page: page.index, attempt: attempt, delay: delay, reason: failure.error.message))
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    throw ScreensPipeError(.cancelled, "the run was cancelled", page: page.index, request: description)
                }
                attempt += 1
            }
        }
    }

    func plan(_ page: PageRequest) -> [PlannedRequest] {
        guard let request = try? prepared(page) else { return [] }
        let headers = redactedHeaders(request.headers).map { "\($0.name): \($0.value)" }
        return [
            PlannedRequest(
                page: page.index, method: request.method, url: redactedURL(request.url), headers: headers,
                body: request.body.map { String(decoding: $0, as: UTF8.self) })
        ]
    }

    func shutdown() async {
        client.shutdown()
    }

    // MARK: - One attempt

    private struct AttemptFailure: Error {
        var error: ScreensPipeError
        var retryable: Bool
        var retryAfter: String?
    }

    private func attemptOnce(_ request: HTTPRequest, page: PageRequest, description: String) async -> Result<DecodedPage, AttemptFailure> {
        let response: HTTPResponse
        let started = ContinuousClock.now
        do throws(HTTPError) {
            response = try await client.send(request)
            // `description` is the redacted method and URL: no credentials reach the log.
            settings.logger.debug(
                "page \(page.index): \(description) -> \(response.status), \(response.body.count) bytes, \(Self.milliseconds(since: started)) ms")
        } catch {
            settings.logger.debug("page \(page.index): \(description) -> \(error.message)")
            let code: ScreensPipeError.Code =
                error.kind == .cancelled ? .cancelled : (error.isConnectivity ? .connectivity : .http)
            let failure = ScreensPipeError(code, error.message, page: page.index, request: description)
            return .failure(AttemptFailure(error: failure, retryable: error.isConnectivity, retryAfter: nil))
        }
        if (300..<400).contains(response.status) {
            return .failure(AttemptFailure(error: redirectError(response, page: page, request: description), retryable: false))
        }
        guard response.isSuccess else {
            let retryable = [408, 429, 502, 503, 504].contains(response.status)
            let failure = wire.error(for: response, page: page, request: description)
            return .failure(AttemptFailure(error: failure, retryable: retryable, retryAfter: response.headers["Retry-After"]))
        }
        let body: JSONValue
        do throws(JSONParseError) {
            body = try JSONValue(parsing: response.body)
        } catch {
            // A 200 with a broken body is what a proxy or a dying server sends: try again.
            let failure = ScreensPipeError(
                .malformedResponse, "the response is not valid JSON (\(error))", page: page.index, request: description,
                status: response.status)
            return .failure(AttemptFailure(error: failure, retryable: true))
        }
        if let exception = LiferayErrorBody.portalException(in: body) {
            let failure = ScreensPipeError(
                .portal, exception.message, page: page.index, request: description, status: response.status,
                exceptionType: exception.type)
            return .failure(AttemptFailure(error: failure, retryable: false))
        }
        do throws(ScreensPipeError) {
            return .success(try wire.decode(body, response: response, page: page))
        } catch {
            var located = error
            located.page = page.index
            located.request = located.request ?? description
            return .failure(AttemptFailure(error: located, retryable: false))
        }
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = (ContinuousClock.now - start).components
        return elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000
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
            .http, "HTTP \(response.status) redirect to \(redactedURL(location)) (redirects are not followed)",
            page: page.index, request: request, status: response.status)
    }

    /// The protocol's request with the pipeline's credentials, headers and limits.
    private func prepared(_ page: PageRequest) throws(ScreensPipeError) -> HTTPRequest {
        var request = try wire.request(for: page)
        settings.apply(to: &request)
        return request
    }
}

/// The settings every HTTP protocol shares, taken from `source:`.
struct HTTPSourceSettings: Sendable {
    var auth: AuthSpec?
    var headers: [(name: String, value: String)]
    var timeout: Duration
    var connectTimeout: Duration
    var maxResponseSize: Int
    var caFile: String?
    var verifyTLS: Bool
    var retry: RetryPolicy
    var onRetry: (@Sendable (RetryNotice) -> Void)?
    var logger: Logger

    init(source: SourceSpec, onRetry: (@Sendable (RetryNotice) -> Void)?, logger: Logger) {
        auth = source.auth
        headers = source.headers
        timeout = source.timeout
        connectTimeout = source.connectTimeout
        maxResponseSize = source.maxResponseSize
        caFile = source.caFile
        verifyTLS = !source.insecureSkipTLSVerify
        retry = RetryPolicy(source.retry)
        self.onRetry = onRetry
        self.logger = logger
    }

    func apply(to request: inout HTTPRequest) {
        request.timeout = timeout
        request.connectTimeout = connectTimeout
        request.maxResponseSize = maxResponseSize
        request.caFile = caFile
        request.verifyTLS = verifyTLS
        if !request.headers.contains("Accept") { request.headers.add(name: "Accept", value: "application/json") }
        for header in headers { request.headers.replaceOrAdd(name: header.name, value: header.value) }
        switch auth {
        case .basic(let username, let password):
            let token = Data("\(username):\(password)".utf8).base64EncodedString()
            request.headers.replaceOrAdd(name: "Authorization", value: "Basic \(token)")
        case .bearer(let token):
            request.headers.replaceOrAdd(name: "Authorization", value: "Bearer \(token)")
        case nil:
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
    /// How long the source waits before the next attempt.
    public var delay: Duration
    /// Why the attempt failed (redacted, as in an `error` event).
    public var reason: String
}
