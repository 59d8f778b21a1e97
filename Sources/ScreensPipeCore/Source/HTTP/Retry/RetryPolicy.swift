/// When and how long to wait before sending a failed request again.
///
/// Retried: connectivity failures that a second try can fix (refused, reset, timeout,
/// truncated body) and the statuses that mean "try later" (408, 429, 502, 503, 504).
/// Never retried: other 4xx (the request is wrong), 500 (Liferay's 500 is a deterministic
/// exception, a retry gets the same one), DNS failures, TLS failures, too-large bodies.
package struct RetryPolicy: Sendable, Hashable {
    /// How the exponential delay is randomised, so many clients do not retry in lockstep.
    package enum Jitter: Sendable, Hashable {
        /// Exactly the exponential delay (tests, and callers that want determinism).
        case none
        /// Uniform in `0...delay` ("full jitter").
        case full
        /// `delay/2` plus uniform in `0...delay/2` ("equal jitter"): never much shorter.
        case equal
    }

    /// Total tries of one request, the first included; 1 means no retries.
    package var attempts: Int
    /// The delay before the first retry; each further retry doubles it.
    package var backoff: Duration
    /// The longest exponential delay.
    package var maxBackoff: Duration
    package var jitter: Jitter

    /// The statuses worth another try.
    package static let retryableStatuses: Set<Int> = [408, 429, 502, 503, 504]

    package init(attempts: Int, backoff: Duration, maxBackoff: Duration, jitter: Jitter = .full) {
        self.attempts = max(1, attempts)
        self.backoff = max(.zero, backoff)
        self.maxBackoff = max(.zero, maxBackoff)
        self.jitter = jitter
    }

    /// The policy of a pipeline's `retry:` section.
    package init(_ spec: RetrySpec, jitter: Jitter = .full) {
        self.init(attempts: spec.attempts, backoff: spec.backoff, maxBackoff: spec.maxBackoff, jitter: jitter)
    }

    /// Whether a response with `status` is sent again.
    package func isRetryable(status: Int) -> Bool { Self.retryableStatuses.contains(status) }

    /// Whether a request that failed with `error` is sent again.
    package func isRetryable(_ error: HTTPError) -> Bool {
        switch error.kind {
        case .connectionRefused, .connectionReset, .timeout, .truncated: true
        case .dns, .tooLarge, .tls, .proxy, .cancelled, .other: false
        }
    }

    /// The longest wait a server's `Retry-After` can impose: `max(maxBackoff, 60 s)`.
    package var retryAfterCap: Duration { max(maxBackoff, .seconds(60)) }

    /// The exponential delay before retry number `retry` (1 for the first retry), before
    /// jitter: `backoff * 2^(retry-1)`, at most `maxBackoff`.
    package func exponentialDelay(beforeRetry retry: Int) -> Duration {
        var delay = backoff
        var doublings = max(0, retry - 1)
        while doublings > 0, delay < maxBackoff {
            delay *= 2
            doublings -= 1
        }
        return min(delay, maxBackoff)
    }

    /// The delay before retry number `retry`, jittered with `random`.
    package func delay(beforeRetry retry: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let delay = exponentialDelay(beforeRetry: retry)
        let nanoseconds = delay.nanoseconds
        guard nanoseconds > 0 else { return .zero }
        switch jitter {
        case .none:
            return delay
        case .full:
            return .nanoseconds(Int64.random(in: 0...nanoseconds, using: &random))
        case .equal:
            let half = nanoseconds / 2
            return .nanoseconds(half + Int64.random(in: 0...(nanoseconds - half), using: &random))
        }
    }

    /// The wait a server asked for with `Retry-After`, capped at `retryAfterCap`.
    package func delay(honouringRetryAfter requested: Duration) -> Duration {
        min(max(.zero, requested), retryAfterCap)
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        return product.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
