import Foundation
import Sandbox
import ScreensBus
import Testing

/// The client's connections per host follow the pipeline's `prefetch`: with `prefetch` pages
/// in flight at once, each needs a connection of its own (HTTP/1.1), so a fixed cap below
/// `prefetch` would quietly queue requests and lose the overlap the setting asks for.
@Suite("run: connections follow prefetch")
struct ConnectionCapRunTests {
    static let pipeline = "Benchmarks/pipelines/generated.yaml"

    /// Runs the generated list (30 pages of 100 rows, each answered after 300 ms, so pages
    /// in flight overlap) and returns the most connections the portal saw open at once.
    private func peakConnections(prefetch: Int) async throws -> Int {
        try await withSandbox(faults: FaultPlan(latency: .milliseconds(300)), generatedRows: 3000) { harness in
            let result = try await harness.run(
                Self.pipeline,
                [
                    "--set", "source.pagination.first-page-size=100", "--set", "source.pagination.page-size=100",
                    "--set", "source.pagination.prefetch=\(prefetch)",
                ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let ids = try result.jsonLines().compactMap { $0["entryId"]?.int64Value }
            // Every row once, in order: the generated row i has entryId 2^53 + 1 + i.
            #expect(ids == (0..<3000).map { 9_007_199_254_740_993 + Int64($0) })
            return harness.server.peakConnectionCount
        }
    }

    @Test("prefetch 12 opens 12 connections at once (more than the old fixed cap of 8), never more than 13")
    func prefetchTwelve() async throws {
        let peak = try await peakConnections(prefetch: 12)
        #expect((12...13).contains(peak), "peak connections: \(peak)")
    }

    @Test("prefetch 2 holds at most 3 connections")
    func prefetchTwo() async throws {
        let peak = try await peakConnections(prefetch: 2)
        #expect((2...3).contains(peak), "peak connections: \(peak)")
    }
}
