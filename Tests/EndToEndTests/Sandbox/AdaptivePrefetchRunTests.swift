import Foundation
import Sandbox
import ScreensBus
import Testing

/// `prefetch: auto` against a portal of limited capacity: every row once and in order, never
/// more requests in flight than the ceiling, and the limit it settled on in `finished`.
@Suite("run: prefetch auto")
struct AdaptivePrefetchRunTests {
    static let pipeline = "Benchmarks/pipelines/generated.yaml"

    private struct Outcome {
        var ids: [Int64]
        var prefetch: Int?
        var peak: Int
        var overloaded: Int
    }

    /// Runs the generated list of `rows` rows in pages of 20 with `prefetch` against a
    /// portal that serves `capacity` requests at 30 ms at once and refuses past `overloadAt`.
    private func run(prefetch: [String], rows: Int, capacity: Int, overloadAt: Int?) async throws -> Outcome {
        var faults = FaultPlan(latency: .milliseconds(30))
        faults.capacity = capacity
        faults.overloadAt = overloadAt
        return try await withSandbox(faults: faults, generatedRows: rows) { harness in
            var arguments = ["--events", "--set", "source.pagination.first-page-size=20", "--set", "source.pagination.page-size=20"]
            for setting in prefetch { arguments += ["--set", "source.pagination.\(setting)"] }
            let result = try await harness.run(Self.pipeline, arguments)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let lines = try result.jsonLines()
            let ids = lines.filter { $0["event"]?.stringValue == "selected" }.compactMap { $0["item"]?["entryId"]?.int64Value }
            let finished = lines.last { $0["event"]?.stringValue == "finished" }
            return Outcome(
                ids: ids, prefetch: finished?["prefetch"]?.int64Value.map(Int.init), peak: harness.server.peakRequestsInFlight,
                overloaded: harness.server.overloadedRequests)
        }
    }

    private static func expected(_ rows: Int) -> [Int64] { (0..<rows).map { 9_007_199_254_740_993 + Int64($0) } }

    @Test("never more pages in flight than max-prefetch; every row once, in order")
    func keepsUnderTheCeiling() async throws {
        let outcome = try await run(prefetch: ["prefetch=auto", "max-prefetch=3"], rows: 2000, capacity: 16, overloadAt: nil)
        #expect(outcome.ids == Self.expected(2000))
        #expect(outcome.peak <= 3, "peak in flight: \(outcome.peak)")
        #expect((1...3).contains(outcome.prefetch ?? 0), "finished.prefetch: \(String(describing: outcome.prefetch))")
    }

    @Test("it rises from 1 towards the portal's capacity and backs off from its 503s")
    func findsTheCapacity() async throws {
        let outcome = try await run(prefetch: ["prefetch=auto", "max-prefetch=32"], rows: 4000, capacity: 4, overloadAt: 8)
        // A 503 is retried: no row is lost or repeated whatever the limit did.
        #expect(outcome.ids == Self.expected(4000))
        // It left 1 (a fixed prefetch of 1 would have kept one in flight) and stayed far
        // below its ceiling: past 8 in flight the portal refuses, and it backs off.
        #expect(outcome.peak >= 2 && outcome.peak <= 9, "peak in flight: \(outcome.peak)")
        #expect((1...9).contains(outcome.prefetch ?? 0), "finished.prefetch: \(String(describing: outcome.prefetch))")
    }

    @Test("a fixed prefetch reports none in finished")
    func fixedReportsNone() async throws {
        let outcome = try await run(prefetch: ["prefetch=2"], rows: 200, capacity: 16, overloadAt: nil)
        #expect(outcome.ids == Self.expected(200) && outcome.prefetch == nil && outcome.peak <= 2)
    }
}
