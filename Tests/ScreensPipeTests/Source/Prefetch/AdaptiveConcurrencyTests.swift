import Testing

@testable import ScreensPipeCore

/// `prefetch: auto`'s rule, driven with made-up response times: one round at a time.
@Suite struct AdaptiveConcurrencyTests {
    /// One round at the current limit, every request going out with the window full and
    /// taking `seconds`; returns what the round's end decided.
    @discardableResult
    private static func fullRound(_ machine: inout AdaptiveConcurrency, seconds: Double, backpressure: Bool = false) -> AdaptiveConcurrency.Adjustment? {
        let size = machine.limit
        for inFlight in 1...size { machine.launched(inFlight: inFlight) }
        if backpressure { machine.sawBackpressure() }
        var adjustment: AdaptiveConcurrency.Adjustment?
        for _ in 0..<size { adjustment = machine.completed(after: .seconds(seconds)) }
        return adjustment
    }

    @Test func startsAtOneAndGrowsByOnePerFullRoundUpToTheCeiling() {
        var machine = AdaptiveConcurrency(ceiling: 5)
        #expect(machine.limit == 1)
        var limits: [Int] = []
        for _ in 0..<8 {
            Self.fullRound(&machine, seconds: 0.05)
            limits.append(machine.limit)
        }
        #expect(limits == [2, 3, 4, 5, 5, 5, 5, 5])
        #expect(machine.highest == 5 && machine.backoffs == 0)
    }

    @Test func aRoundThatDidNotFillTheWindowHolds() {
        var machine = AdaptiveConcurrency(ceiling: 8)
        Self.fullRound(&machine, seconds: 0.05)
        Self.fullRound(&machine, seconds: 0.05)
        #expect(machine.limit == 3)
        // The client, not the server, was the bottleneck: one request at a time.
        for _ in 0..<3 {
            machine.launched(inFlight: 1)
            _ = machine.completed(after: .milliseconds(50))
        }
        #expect(machine.limit == 3)
    }

    @Test func backPressureBacksOffByATenthRoundedDown() {
        var machine = AdaptiveConcurrency(ceiling: 64)
        while machine.limit < 20 { Self.fullRound(&machine, seconds: 0.05) }
        #expect(Self.fullRound(&machine, seconds: 0.05, backpressure: true) == .backedOff(to: 18))
        #expect(Self.fullRound(&machine, seconds: 0.05, backpressure: true) == .backedOff(to: 16))
        var small = AdaptiveConcurrency(ceiling: 4)
        Self.fullRound(&small, seconds: 0.05)
        #expect(small.limit == 2)
        #expect(Self.fullRound(&small, seconds: 0.05, backpressure: true) == .backedOff(to: 1))
        #expect(Self.fullRound(&small, seconds: 0.05, backpressure: true) == .backedOff(to: 1))
    }

    @Test func aFailedRequestIsBackPressure() {
        var machine = AdaptiveConcurrency(ceiling: 8)
        Self.fullRound(&machine, seconds: 0.05)
        Self.fullRound(&machine, seconds: 0.05)
        #expect(machine.limit == 3)
        for inFlight in 1...3 { machine.launched(inFlight: inFlight) }
        _ = machine.completed(after: .milliseconds(50))
        _ = machine.completed(after: .milliseconds(50), failed: true)
        #expect(machine.completed(after: .milliseconds(50)) == .backedOff(to: 2))
    }

    @Test func risingResponseTimesBackOffAndNoiseDoesNot() {
        var machine = AdaptiveConcurrency(ceiling: 16)
        for _ in 0..<4 { Self.fullRound(&machine, seconds: 0.050) }
        #expect(machine.limit == 5)
        // 4 % slower: 0.2 of 5 requests waited, noise.
        #expect(Self.fullRound(&machine, seconds: 0.052) == .grew(to: 6))
        // 20 % slower with 6 in flight: one waited; at capacity, it holds.
        #expect(Self.fullRound(&machine, seconds: 0.062) == .held)
        // Requests now queue on the server: 6 × (1 − 50/80) = 2.25 waited.
        #expect(Self.fullRound(&machine, seconds: 0.080) == .backedOff(to: 5))
    }

    /// A server that serves `capacity` at once and shares itself beyond: k in flight take
    /// `latency × k / capacity`. The limit settles just above the capacity.
    @Test(arguments: [2, 4, 8])
    func settlesJustAboveAServersCapacity(capacity: Int) {
        var machine = AdaptiveConcurrency(ceiling: 64)
        var limits: [Int] = []
        for _ in 0..<200 {
            Self.fullRound(&machine, seconds: 0.05 * max(1, Double(machine.limit) / Double(capacity)))
            limits.append(machine.limit)
        }
        let settled = limits.suffix(100)
        #expect(settled.allSatisfy { (capacity...(capacity + 3)).contains($0) }, "limits: \(Array(settled))")
    }

    @Test func slowRoundsUnderBackPressureDoNotBecomeTheNorm() {
        var machine = AdaptiveConcurrency(ceiling: 16)
        for _ in 0..<4 { Self.fullRound(&machine, seconds: 0.050) }
        // Retries make a round very slow; it backs off, and learns nothing from it.
        Self.fullRound(&machine, seconds: 2.0, backpressure: true)
        let limit = machine.limit
        // The same slowness without back-pressure is still a rise over the 50 ms it knows.
        #expect(Self.fullRound(&machine, seconds: 2.0) == .backedOff(to: max(1, Int(Double(limit) * 0.9))))
    }

    @Test func neverAboveTheCeiling() {
        for ceiling in [1, 2, 7] {
            var machine = AdaptiveConcurrency(ceiling: ceiling)
            for _ in 0..<50 { Self.fullRound(&machine, seconds: 0.01) }
            #expect(machine.limit == ceiling && machine.highest == ceiling)
        }
    }
}
