import Synchronization

/// `prefetch: auto`: how many pages to keep in flight, tuned from what the server shows, as
/// Vector's adaptive request concurrency tunes a sink's: additive increase, multiplicative
/// decrease.
///
/// The limit starts at 1. Responses are judged a round at a time, a round being as many
/// responses as the limit was when it began (about one round trip). A round's mean response
/// time against the fastest round so far (the server's own latency, ``baseline``) tells how
/// many of the round's requests waited on the server rather than being served:
/// `queued = limit × (1 − baseline / mean)` (TCP Vegas's estimate). At the end of a round:
///
/// - **back off** (the limit times 0.9, rounded down, at least 1) when a request of the round
///   was retried or failed (429, 503, a timeout, a reset: the server is past its capacity),
///   or when more than ``queueCeiling`` requests queued: the response time rose;
/// - **grow** by one, up to the ceiling, when the round used the whole limit and fewer than
///   ``queueFloor`` requests queued;
/// - otherwise keep the limit (the load did not need more, or the server is at capacity).
///
/// A server of capacity N whose latency grows as k / N with k > N requests in flight settles
/// at N + 1 or N + 2. Rounds with back-pressure never become the baseline, so a burst of
/// retries does not teach it that slow is normal. The baseline is never raised: a window of
/// recent rounds would forget the fast rounds while the limit sits above capacity and creep
/// upwards with it; a server that became slower for good (s times) holds it near
/// 2 / (1 − 1/s) instead, which is the cautious side. It is a value: a loader owns one through ``PrefetchController``, and the tests drive it
/// with made-up response times.
struct AdaptiveConcurrency: Sendable, Equatable {
    /// The most pages it will ever keep in flight (`max-prefetch`).
    let ceiling: Int
    /// Pages to keep in flight now.
    private(set) var limit = 1
    /// The highest limit it has reached, for the run's report.
    private(set) var highest = 1
    /// How many times it backed off.
    private(set) var backoffs = 0
    /// The fastest round mean without back-pressure so far.
    private(set) var baseline: Duration?
    private var round = Round(size: 1)

    static let decreaseRatio = 0.9
    /// Grow only while fewer requests than this queue on the server.
    static let queueFloor = 1.0
    /// Back off once more requests than this queue on the server.
    static let queueCeiling = 2.0

    private struct Round: Sendable, Equatable {
        var size: Int
        var responses = 0
        var total = Duration.zero
        var backpressure = false
        var reachedLimit = false
    }

    /// What the end of a round decided.
    enum Adjustment: Sendable, Equatable {
        case grew(to: Int)
        case backedOff(to: Int)
        case held
    }

    init(ceiling: Int) {
        self.ceiling = max(1, ceiling)
    }

    /// A request went out, with `inFlight` requests out now, this one included.
    mutating func launched(inFlight: Int) {
        if inFlight >= limit { round.reachedLimit = true }
    }

    /// The server showed back-pressure: a request was retried (or is about to be).
    mutating func sawBackpressure() {
        round.backpressure = true
    }

    /// A request ended `after` it went out: a page, or a failure (which is back-pressure too).
    /// Returns the adjustment when it ended a round.
    mutating func completed(after elapsed: Duration, failed: Bool = false) -> Adjustment? {
        round.responses += 1
        round.total += max(.zero, elapsed)
        if failed { round.backpressure = true }
        guard round.responses >= round.size else { return nil }
        let mean = round.total / round.responses
        if !round.backpressure { baseline = min(baseline ?? mean, mean) }
        let queued = baseline.map { mean > .zero ? Double(round.size) * (1 - $0 / mean) : 0 } ?? 0
        let adjustment: Adjustment
        if round.backpressure || queued > Self.queueCeiling {
            limit = max(1, Int((Double(limit) * Self.decreaseRatio).rounded(.down)))
            backoffs += 1
            adjustment = .backedOff(to: limit)
        } else if round.reachedLimit && queued < Self.queueFloor && limit < ceiling {
            limit += 1
            highest = max(highest, limit)
            adjustment = .grew(to: limit)
        } else {
            adjustment = .held
        }
        round = Round(size: limit)
        return adjustment
    }
}

/// `prefetch: auto`'s ``AdaptiveConcurrency``, fed by the loader (each page's time) and by
/// the source's retries, which are reported from the source's own tasks: hence the lock.
final class PrefetchController: Sendable {
    private let state: Mutex<AdaptiveConcurrency>
    /// Told each new limit (a metric).
    private let onChange: (@Sendable (Int) -> Void)?

    /// A controller that never keeps more than `ceiling` pages in flight.
    init(ceiling: Int, onChange: (@Sendable (Int) -> Void)? = nil) {
        state = Mutex(AdaptiveConcurrency(ceiling: ceiling))
        self.onChange = onChange
        onChange?(1)
    }

    /// Pages to keep in flight now.
    var limit: Int { state.withLock { $0.limit } }

    func launched(inFlight: Int) {
        state.withLock { $0.launched(inFlight: inFlight) }
    }

    func sawBackpressure() {
        state.withLock { $0.sawBackpressure() }
    }

    @discardableResult
    func completed(after elapsed: Duration, failed: Bool) -> AdaptiveConcurrency.Adjustment? {
        let adjustment = state.withLock { $0.completed(after: elapsed, failed: failed) }
        switch adjustment {
        case .grew(let limit)?, .backedOff(let limit)?: onChange?(limit)
        case .held?, nil: break
        }
        return adjustment
    }
}
