/// `rate-limit: { requests: N, per: 1s, burst: M, max-wait: 60s }` on a networked source:
/// at most `requests` per `per` to the source's server, with up to `burst` at once after a
/// quiet spell. One budget per server origin for the whole process (see ``RateLimiter``).
public struct RateLimitSpec: Sendable, Hashable {
    /// Requests allowed per ``per``.
    public var requests: Int
    /// The period of ``requests``.
    public var per: Duration
    /// Requests that may go at once after a quiet spell (default 1: evenly spaced).
    public var burst: Int
    /// The longest a server's rate-limit headers (`Retry-After` on a 429, `RateLimit-Reset`
    /// with nothing remaining) may pause the origin; longer asks are cut to this.
    public var maxWait: Duration

    /// Creates a limit of `requests` per `per`.
    public init(requests: Int, per: Duration = .seconds(1), burst: Int = 1, maxWait: Duration = .seconds(60)) {
        self.requests = requests
        self.per = per
        self.burst = burst
        self.maxWait = maxWait
    }

    /// The spacing of requests at the steady rate.
    var interval: Duration { per / requests }

    /// The stricter of two limits for one origin: the longer spacing, the smaller burst,
    /// the shorter pause.
    func stricter(_ other: RateLimitSpec) -> RateLimitSpec {
        var result = interval >= other.interval ? self : other
        result.burst = min(burst, other.burst)
        result.maxWait = min(maxWait, other.maxWait)
        return result
    }
}

/// The server's pause requests, bounded by `max-wait` when no `rate-limit:` says otherwise.
extension RateLimitSpec {
    static let defaultMaxWait = Duration.seconds(60)
}
