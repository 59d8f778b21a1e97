import Foundation
import Sandbox
import ScreensBus
import Testing

/// A misbehaving portal: every fault ends either in exactly the fault-free rows, in order,
/// or in exit 1 with a clear error. Never a lost or duplicated row with exit 0.
@Suite("run: faults end to end")
struct FaultRunTests {
    static let bookmarks = "pipelines/bookmarks.yaml"
    /// Small pages make many requests, so every fault fires several times.
    static let smallPages = ["--set", "source.pagination.page-size=7", "--set", "source.pagination.first-page-size=10", "--set", "source.retry.backoff=10ms"]

    private func expectExactRows(_ faults: FaultPlan, extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let reference = try await ReferenceOutputs.shared.lines(for: Self.bookmarks, Self.smallPages)
        try await withSandbox(faults: faults) { harness in
            let result = try await harness.run(Self.bookmarks, ["--policy", "remote-only"] + Self.smallPages + extra)
            #expect(result.status == 0, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stdoutLines == reference, sourceLocation: sourceLocation)
            #expect(harness.server.requestCount > 9, sourceLocation: sourceLocation)
        }
    }

    // Retry-After: 0 means no jitter, so with several pages in flight their retries could
    // fall into step with "every 3rd request" and hit it every time: one page at a time here.
    @Test("503 with Retry-After every 3rd request: retried, exact rows")
    func serviceUnavailable() async throws {
        try await expectExactRows(
            FaultPlan(failEvery: 3, failStatus: 503, retryAfter: "0"), extra: ["--set", "source.pagination.prefetch=1"])
    }

    @Test("429 every 4th request with 4 pages in flight: jittered retries, exact rows")
    func tooManyRequests() async throws {
        try await expectExactRows(FaultPlan(failEvery: 4, failStatus: 429), extra: ["--set", "source.retry.attempts=6"])
    }

    @Test("connection reset every 3rd request: retried, exact rows")
    func reset() async throws {
        try await expectExactRows(FaultPlan(resetEvery: 3))
    }

    @Test("truncated body every 3rd request: retried, exact rows")
    func truncated() async throws {
        try await expectExactRows(FaultPlan(truncateEvery: 3))
    }

    @Test("malformed JSON every 4th request: retried, exact rows")
    func malformed() async throws {
        try await expectExactRows(FaultPlan(malformedEvery: 4))
    }

    @Test("a stalled body every 5th request: timed out, retried, exact rows")
    func stalled() async throws {
        try await expectExactRows(FaultPlan(stallEvery: 5, stallDuration: .seconds(30)), extra: ["--set", "source.timeout=1s"])
    }

    @Test("a 503 on every request: exit 1 naming the page, after the configured attempts")
    func persistentFailure() async throws {
        try await withSandbox(faults: FaultPlan(failEvery: 1, failStatus: 503)) { harness in
            let result = try await harness.run(Self.bookmarks, ["--policy", "remote-only", "--set", "source.retry.attempts=3", "--set", "source.retry.backoff=10ms"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("page 0"))
            #expect(result.stderr.contains("503"))
            #expect(harness.server.requestCount == 3)
        }
    }

    @Test("a 500 portal exception is never retried")
    func serverErrorNotRetried() async throws {
        try await withSandbox(faults: FaultPlan(failEvery: 1, failStatus: 500)) { harness in
            let result = try await harness.run(Self.bookmarks, ["--policy", "remote-only"])
            #expect(result.status == 1)
            #expect(harness.server.requestCount == 1)
        }
    }

    @Test("a server that is down: exit 1 with a connectivity error naming the request")
    func down() async throws {
        try await withSandbox(faults: FaultPlan(down: true)) { harness in
            let result = try await harness.run(
                Self.bookmarks, ["--events", "--policy", "remote-only", "--set", "source.retry.attempts=2", "--set", "source.retry.backoff=10ms"])
            #expect(result.status == 1)
            let error = try result.jsonLines().first { $0["event"] == "error" }
            #expect(error?["kind"] == "connectivity")
            #expect(error?["page"] == .int(0))
            #expect(error?["request"]?.stringValue?.hasPrefix("POST http://127.0.0.1:") == true)
        }
    }

    @Test("Ctrl-C during a stalled transfer stops the run: the interrupt is handled, not waited out")
    func interrupt() async throws {
        try await withSandbox(faults: FaultPlan(stallEvery: 1, stallDuration: .seconds(900))) { harness in
            let run = try RunningCommand(
                ["run", Self.bookmarks, "--policy", "remote-only", "--set", "source.timeout=900s"],
                environment: ["LIFERAY_SERVER": harness.server.baseURL])
            // Interrupt once the transfer is under way (the sandbox has the request and stalls).
            try await waitUntil { harness.server.requestCount >= 1 }
            try await Task.sleep(for: .milliseconds(200))
            let interrupted = ContinuousClock.now
            run.send(SIGINT)
            let (status, stderr) = await run.wait()
            #expect(status == 130, "stderr: \(stderr)")
            #expect(stderr.contains("interrupted by SIGINT after 0 rows"))
            // The interrupt must not wait for the 900 s stall or the 900 s timeout; the bound is
            // far from both so that a loaded machine cannot flake it.
            #expect(ContinuousClock.now - interrupted < .seconds(300))
        }
    }
}
