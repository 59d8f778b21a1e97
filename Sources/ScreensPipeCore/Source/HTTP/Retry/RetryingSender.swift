package import struct Foundation.Date
import Synchronization

/// One retry about to happen, for logs and progress (`onRetry`).
package struct RetryAttempt: Sendable {
    /// Why the attempt failed.
    package enum Reason: Sendable {
        /// A retryable status (408, 429, 502, 503, 504).
        case status(Int)
        /// A retryable transport failure.
        case error(HTTPError)
        /// A response the caller could not use, such as a 200 whose body is not JSON.
        case invalidResponse(String)
    }

    /// The request, redacted (`"POST http://127.0.0.1:8080/api/jsonws/invoke"`).
    package var request: String
    /// The number of the attempt that failed (1 for the first).
    package var failedAttempt: Int
    /// The total attempts allowed.
    package var attempts: Int
    package var reason: Reason
    /// The wait before the next attempt.
    package var delay: Duration
    /// Whether the wait is the server's `Retry-After` rather than the backoff.
    package var fromRetryAfter: Bool
}

/// Sends requests through an `HTTPClient`, retrying as a `RetryPolicy` says.
///
/// When the attempts run out it returns the last retryable response (the caller turns its
/// status into an error, with the wire format's context) or throws the last error.
package struct RetryingSender: Sendable {
    package let client: HTTPClient
    package let policy: RetryPolicy
    /// The origin's shared budget: every attempt waits for its slot and reports the
    /// server's rate-limit signals; nil sends at once.
    package let limiter: RateLimiter?
    private let random: LockedRandom
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - seed: fixes the jitter sequence (tests); nil seeds from the system.
    ///   - now: the clock `Retry-After` dates are measured against.
    package init(
        client: HTTPClient, policy: RetryPolicy, limiter: RateLimiter? = nil, seed: UInt64? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.client = client
        self.policy = policy
        self.limiter = limiter
        random = LockedRandom(seed.map(SplitMix64.init(seed:)) ?? SplitMix64())
        self.now = now
    }

    /// Sends `request` up to `policy.attempts` times.
    ///
    /// - Parameter onRetry: called before each wait, with why and how long.
    /// - Throws: the last `HTTPError` when every attempt failed without a response, or
    ///   `.cancelled` at once when the task is cancelled (also during a wait).
    package func send(
        _ request: HTTPRequest, onRetry: @Sendable (RetryAttempt) -> Void = { _ in }
    ) async throws(HTTPError) -> HTTPResponse {
        try await send(request, onRetry: onRetry) { response in
            guard policy.isRetryable(status: response.status) else { return .final(response) }
            return .retryable(response, reason: .status(response.status), retryAfter: response.headers["Retry-After"])
        }
    }

    /// What a caller makes of one response: keep it, or try again while attempts remain
    /// (when they run out, the retryable value is returned as it is).
    package enum Verdict<Value: Sendable>: Sendable {
        case final(Value)
        case retryable(Value, reason: RetryAttempt.Reason, retryAfter: String? = nil)
    }

    /// Sends `request`, retrying transport failures, and whatever `interpret` calls
    /// retryable, within one budget of attempts.
    package func send<Value: Sendable>(
        _ request: HTTPRequest, onRetry: @Sendable (RetryAttempt) -> Void = { _ in },
        interpret: (HTTPResponse) -> Verdict<Value>
    ) async throws(HTTPError) -> Value {
        var sent = 0
        return try await send(request, sent: &sent, onRetry: onRetry, interpret: interpret)
    }

    /// The same, for a request that may have been sent before.
    ///
    /// - Parameter sent: the sends of the same request before this call (one refused for
    ///   its credentials and sent again with new ones); each attempt adds one. Attempt spans
    ///   number their resends from it, as OpenTelemetry counts a resend for any reason.
    package func send<Value: Sendable>(
        _ request: HTTPRequest, sent: inout Int, onRetry: @Sendable (RetryAttempt) -> Void = { _ in },
        interpret: (HTTPResponse) -> Verdict<Value>
    ) async throws(HTTPError) -> Value {
        var attempt = 1
        while true {
            let reason: RetryAttempt.Reason
            var retryAfter: Duration?
            do throws(HTTPError) {
                if let limiter {
                    do {
                        try await limiter.acquire()
                    } catch {
                        throw HTTPError(.cancelled, "cancelled while waiting for the rate limit", request: request.requestDescription)
                    }
                }
                // Each attempt is a client span of its own: retries show as its siblings.
                let span = HTTPAttemptSpan(request, resendCount: sent)
                sent += 1
                let response: HTTPResponse
                do throws(HTTPError) {
                    response = try await client.send(request)
                } catch {
                    span.end(failure: error)
                    throw error
                }
                limiter?.observe(status: response.status, headers: response.headers, now: now())
                let verdict = interpret(response)
                if case .retryable(_, .invalidResponse, _) = verdict {
                    span.endInvalid(status: response.status)
                } else {
                    span.end(status: response.status)
                }
                switch verdict {
                case .final(let value):
                    return value
                case .retryable(let value, let why, let header):
                    guard attempt < policy.attempts else { return value }
                    reason = why
                    retryAfter = header.flatMap { RetryAfter.delay($0, now: now()) }
                }
            } catch {
                guard policy.isRetryable(error), attempt < policy.attempts else { throw error }
                reason = .error(error)
            }
            // A server's Retry-After may ask for more than the backoff, never for less: `0` or
            // a date in the past must not turn the retries into a burst. It is cut to the
            // origin's `max-wait`, as its rate-limit pause is: the server does not decide
            // how long a run hangs.
            let backoff = random.withGenerator { policy.delay(beforeRetry: attempt, using: &$0) }
            let delay = retryAfter.map { requested in
                let honoured = policy.delay(honouringRetryAfter: requested)
                return max(limiter.map { min(honoured, $0.maxWait) } ?? honoured, backoff)
            } ?? backoff
            onRetry(
                RetryAttempt(
                    request: request.requestDescription, failedAttempt: attempt, attempts: policy.attempts,
                    reason: reason, delay: delay, fromRetryAfter: retryAfter != nil))
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw HTTPError(.cancelled, "cancelled while waiting to retry", request: request.requestDescription)
            }
            attempt += 1
        }
    }
}

private final class LockedRandom: Sendable {
    private let generator: Mutex<SplitMix64>

    init(_ generator: SplitMix64) { self.generator = Mutex(generator) }

    func withGenerator<T: Sendable>(_ body: (inout SplitMix64) -> T) -> T {
        generator.withLock { body(&$0) }
    }
}
