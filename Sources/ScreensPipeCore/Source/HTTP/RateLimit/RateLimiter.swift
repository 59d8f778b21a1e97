internal import Foundation
import Synchronization

/// One server origin's request budget, shared by every list, page and pipeline of the
/// process that talks to that origin (``RateLimiterRegistry``).
///
/// The steady rate is a generic cell rate algorithm: each request reserves the next free
/// slot (`interval` apart, `burst - 1` slots of tolerance), so concurrent pages queue in
/// arrival order and the rate holds exactly, without a thundering herd. A server's own
/// signals (a 429's `Retry-After`, `RateLimit-Remaining: 0` with `RateLimit-Reset`) pause
/// the whole origin. Waiting is `Task.sleep`: no thread is held.
package final class RateLimiter: Sendable {
    private struct State {
        var spec: RateLimitSpec?
        /// The theoretical arrival time of the next request at the steady rate.
        var nextSlot: ContinuousClock.Instant
        /// No request before this instant: the server asked for a pause.
        var pausedUntil: ContinuousClock.Instant
    }

    package let origin: String
    private let state: Mutex<State>

    init(origin: String, spec: RateLimitSpec?) {
        self.origin = origin
        state = Mutex(State(spec: spec, nextSlot: .now, pausedUntil: .now))
    }

    /// The limit in force (the strictest configured for this origin), nil when only the
    /// server's signals apply.
    package var spec: RateLimitSpec? { state.withLock { $0.spec } }

    /// The longest pause the server's signals may impose on this origin (`max-wait`): its
    /// rate-limit pauses and the retry waits its `Retry-After` asks for alike.
    package var maxWait: Duration { spec?.maxWait ?? RateLimitSpec.defaultMaxWait }

    /// Tightens the limit with another pipeline's configuration for the same origin.
    func tighten(with spec: RateLimitSpec) {
        state.withLock { $0.spec = $0.spec.map { $0.stricter(spec) } ?? spec }
    }

    /// Waits for this request's slot; returns how long it waited.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting (its slot is
    ///   then lost, which only makes the rate lower).
    @discardableResult
    package func acquire() async throws -> Duration {
        let now = ContinuousClock.now
        let start: ContinuousClock.Instant = state.withLock { state in
            var earliest = max(now, state.pausedUntil)
            if let spec = state.spec {
                let interval = spec.interval
                let tolerance = interval * (spec.burst - 1)
                let slot = max(state.nextSlot, earliest)
                // A request may go up to `tolerance` before its theoretical slot (the burst).
                earliest = max(earliest, slot - tolerance)
                state.nextSlot = slot + interval
            }
            return earliest
        }
        guard start > now else { return .zero }
        try await Task.sleep(until: start, clock: .continuous)
        return start - now
    }

    /// Reads a response's rate-limit signals; returns the pause it started, if any.
    @discardableResult
    func observe(status: Int, headers: HTTPHeaders, now: Date = Date()) -> Duration? {
        guard let requested = RateLimitHeaders.pause(status: status, headers: headers, now: now) else { return nil }
        let pause = min(requested, maxWait)
        guard pause > .zero else { return nil }
        let until = ContinuousClock.now + pause
        state.withLock { $0.pausedUntil = max($0.pausedUntil, until) }
        return pause
    }
}

/// The process's rate limiters, one per server origin (`scheme://host:port`), so every
/// pipeline of an embedding service shares one budget per server.
package final class RateLimiterRegistry: Sendable {
    /// The process-wide registry every HTTP source uses.
    package static let shared = RateLimiterRegistry()

    private let limiters = Mutex<[String: RateLimiter]>([:])

    package init() {}

    /// The limiter of `origin`, made on first use; `spec` tightens it (the strictest
    /// configuration of all pipelines for the origin wins).
    package func limiter(origin: String, spec: RateLimitSpec?) -> RateLimiter {
        let limiter = limiters.withLock { limiters in
            if let existing = limiters[origin] { return existing }
            let made = RateLimiter(origin: origin, spec: nil)
            limiters[origin] = made
            return made
        }
        if let spec { limiter.tighten(with: spec) }
        return limiter
    }
}
