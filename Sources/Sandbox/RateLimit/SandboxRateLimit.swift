import Synchronization

/// An optional request budget on the sandbox's data endpoints, as API gateways keep: a
/// token bucket of `requestsPerSecond` with room for `burst`; a request over it gets 429
/// with `Retry-After`. Every admitted request's arrival time is kept so a test can measure
/// the rate a client really kept.
public struct SandboxRateLimit: Sendable {
    public var requestsPerSecond: Int
    public var burst: Int
    /// Send `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (seconds
    /// until a request is allowed again) with every data answer.
    public var sendsHeaders: Bool

    /// Creates a budget of `requestsPerSecond` with room for `burst` at once.
    public init(requestsPerSecond: Int, burst: Int = 1, sendsHeaders: Bool = false) {
        self.requestsPerSecond = max(1, requestsPerSecond)
        self.burst = max(1, burst)
        self.sendsHeaders = sendsHeaders
    }
}

/// The bucket and the arrival log of one server.
final class RateLimitGate: Sendable {
    private struct State {
        var tokens: Double
        var refilled: ContinuousClock.Instant
        var admitted: [ContinuousClock.Instant] = []
        var refused = 0
    }

    let limit: SandboxRateLimit
    private let started = ContinuousClock.now
    private let state: Mutex<State>

    init(limit: SandboxRateLimit) {
        self.limit = limit
        state = Mutex(State(tokens: Double(limit.burst), refilled: .now))
    }

    /// Arrival times of admitted requests, from the server's start.
    var admittedTimes: [Duration] { state.withLock { $0.admitted.map { $0 - started } } }

    /// Requests answered 429.
    var refusedCount: Int { state.withLock { $0.refused } }

    /// Answers with `route` when the budget allows, else 429.
    func admit(_ route: () -> SandboxResponse) -> SandboxResponse {
        let now = ContinuousClock.now
        let rate = Double(limit.requestsPerSecond)
        let (admitted, remaining, resetSeconds): (Bool, Int, Int) = state.withLock { state in
            let elapsed = Double((now - state.refilled).components.attoseconds) / 1e18 + Double((now - state.refilled).components.seconds)
            state.tokens = min(Double(limit.burst), state.tokens + elapsed * rate)
            state.refilled = now
            let admitted = state.tokens >= 1
            if admitted {
                state.tokens -= 1
                state.admitted.append(now)
            } else {
                state.refused += 1
            }
            // Whole seconds until a token is back: what a gateway can say in a header.
            let reset = state.tokens >= 1 ? 0 : Int(((1 - state.tokens) / rate).rounded(.up))
            return (admitted, Int(state.tokens), max(reset, admitted ? 0 : 1))
        }
        var headers: [(String, String)] = []
        if limit.sendsHeaders {
            headers = [
                ("X-RateLimit-Limit", "\(limit.requestsPerSecond)"), ("X-RateLimit-Remaining", "\(remaining)"),
                ("X-RateLimit-Reset", "\(resetSeconds)"),
            ]
        }
        guard admitted else {
            return .json(429, ["error": "Too Many Requests"], headers: [("Retry-After", "\(resetSeconds)")] + headers)
        }
        var response = route()
        response.headers += headers
        return response
    }
}
