import ScreensJSON
import Synchronization

/// What happens to one data request.
enum FaultAction: Sendable, Equatable {
    case none
    /// Answer `FaultPlan.failStatus` with a JSON error body (and Retry-After when configured).
    case fail
    /// Close the connection with a TCP reset, no response.
    case reset
    /// Announce the full length, send half the body, close.
    case truncate
    /// A 200 whose body is not JSON.
    case malformed
    /// Send half the body, pause for `FaultPlan.stallDuration`, then the rest.
    case stall
    /// Carry the request out (a write is stored), then reset the connection before any
    /// answer: the client cannot tell whether it happened.
    case dropAfterProcessing
}

/// Numbers data requests in arrival order and decides each one's fault from the plan and the seed.
///
/// The decision for request n depends only on n, the plan and the seed (the rate draw hashes
/// them with SplitMix64), so replaying a run with the same seed injects the same faults.
final class FaultInjector: Sendable {
    let plan: FaultPlan
    private let seed: UInt64
    private let counter = Atomic<Int>(0)
    /// Data requests between their admission (``admit()``) and their answer.
    private let inFlight = Atomic<Int>(0)
    private let highestInFlight = Atomic<Int>(0)
    private let overloadedCount = Atomic<Int>(0)

    init(plan: FaultPlan, seed: UInt64) {
        self.plan = plan
        self.seed = seed
    }

    /// Numbers the next data request and decides its fault.
    func nextRequest() -> (number: Int, action: FaultAction) {
        let number = counter.add(1, ordering: .relaxed).newValue
        return (number, action(forRequest: number))
    }

    func action(forRequest number: Int) -> FaultAction {
        func hits(_ every: Int?) -> Bool {
            guard let every, every > 0 else { return false }
            return number % every == 0
        }
        if hits(plan.resetEvery) { return .reset }
        if hits(plan.dropAfterProcessingEvery) { return .dropAfterProcessing }
        if hits(plan.failEvery) || (plan.failRate > 0 && draw(number) < plan.failRate) { return .fail }
        if hits(plan.truncateEvery) { return .truncate }
        if hits(plan.malformedEvery) { return .malformed }
        if hits(plan.stallEvery) { return .stall }
        return .none
    }

    /// Admits a data request to a portal of limited capacity (``FaultPlan/capacity``): the
    /// factor its latency is stretched by, or nil when it is refused as overload. Every
    /// admitted request is ``release()``d once answered.
    func admit() -> Double? {
        guard let capacity = plan.capacity, capacity > 0 else { return 1 }
        let now = inFlight.add(1, ordering: .relaxed).newValue
        if let limit = plan.overloadAt, now > limit {
            inFlight.subtract(1, ordering: .relaxed)
            overloadedCount.add(1, ordering: .relaxed)
            return nil
        }
        highestInFlight.max(now, ordering: .relaxed)
        return max(1, Double(now) / Double(capacity))
    }

    /// An admitted request was answered.
    func release() {
        guard plan.capacity != nil else { return }
        inFlight.subtract(1, ordering: .relaxed)
    }

    /// The most data requests that were in flight at once (with ``FaultPlan/capacity``).
    var peakInFlight: Int { highestInFlight.load(ordering: .relaxed) }
    /// Data requests refused as overload.
    var overloaded: Int { overloadedCount.load(ordering: .relaxed) }

    /// The 503 of an overloaded portal.
    func overloadResponse() -> SandboxResponse {
        .json(503, ["exception": "Service Unavailable", "error": ["message": "Service Unavailable (sandbox: more data requests in flight than it admits)", "type": "com.liferay.portal.kernel.exception.SystemException"]])
    }

    /// A uniform number in [0, 1) for request `number`.
    private func draw(_ number: Int) -> Double {
        let bits = SplitMix64.mix(seed &+ UInt64(truncatingIfNeeded: number) &* SplitMix64.increment)
        return Double(bits >> 11) / Double(UInt64(1) << 53)
    }

    /// The injected failure's response.
    func failureResponse(requestNumber: Int) -> SandboxResponse {
        let reason = plan.failStatus == 429 ? "Too Many Requests" : "Service Unavailable"
        let body: JSONValue = [
            "exception": .string(reason),
            "error": [
                "message": .string("\(reason) (sandbox fault injected into data request \(requestNumber))"),
                "type": "com.liferay.portal.kernel.exception.SystemException",
            ],
        ]
        return .json(plan.failStatus, body, headers: plan.retryAfter.map { [("Retry-After", $0)] } ?? [])
    }

    /// A body that is not JSON: the real one minus its last byte, plus an unterminated string.
    static func malformed(_ response: SandboxResponse) -> SandboxResponse {
        var broken = response
        broken.status = 200
        broken.body = Array(response.body.dropLast()) + Array("\"unterminated".utf8)
        return broken
    }
}
