import Foundation
import Sandbox
import Testing

/// `rate-limit:` and the reaction to 429 through the real binary; the sandbox measures the
/// rate it sees.
@Suite("run: rate limits end to end")
struct RateLimitRunTests {
    private func pipeline(pageSize: Int, prefetch: Int = 4, extra: String) throws -> String {
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("rate.yaml")
        try """
            name: rate
            source:
              type: rest
              server: ${LIFERAY_SERVER}
              url: /rest/bookmarks/offset
              records: data.records
              total: meta.total
              paginate: offset
              pagination: { first-page-size: \(pageSize), page-size: \(pageSize), prefetch: \(prefetch) }
            \(extra)
            convert:
              model: bookmark
            """.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    // 10 per second with 8 pages in flight: a request may take 800 ms before the client
    // falls behind its budget, so a machine busy with other tests still keeps the pace.
    @Test("requests: 10 per 1s: the sandbox observes at most 11 and a pace of at least 7 per second, and every row once")
    func measuredRate() async throws {
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        try await withConfiguredSandbox({ $0.rateLimit = SandboxRateLimit(requestsPerSecond: 100, burst: 100) }) { harness in
            let file = try pipeline(pageSize: 2, prefetch: 8, extra: "  rate-limit: { requests: 10, per: 1s, burst: 1 }")
            let result = try await harness.run(file)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
            let times = harness.server.admittedRequestTimes
            try #require(times.count >= 37)
            func seconds(_ span: Duration) -> Double {
                Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
            }
            // Never over the budget: the rate over the middle 80% of the arrivals. A stall of
            // the loaded machine can hold arrivals back and release them together, which makes
            // single gaps short (a median gap of 89 ms, 11.2/s, was seen in a CI run) but cannot
            // put more requests into a span than the client sent; the first and last tenth are
            // left out, where a held-back arrival would shorten the span itself.
            let low = times.count / 10, high = times.count - 1 - times.count / 10
            let spanRate = Double(high - low) / seconds(times[high] - times[low])
            // And the pace kept: the median gap between arrivals, which a stall moves by two
            // gaps only (11.97/s and 8.03/s were seen with first-to-last spans under load).
            let gaps = zip(times.dropFirst(), times).map { later, earlier in seconds(later - earlier) }.sorted()
            let medianRate = 1 / gaps[gaps.count / 2]
            // The sandbox's own budget is far above the pipeline's: the pace measured is the client's.
            #expect(harness.server.rateLimitedRequests == 0)
            // 11.04/s was seen in a full parallel run that stalled the machine for 15 s; a
            // client that did not pace would show many times the budget.
            #expect(spanRate <= 11.5, "observed \(spanRate) requests per second over the middle of the run")
            // 8.41/s was seen in a CI rehearsal of the full run on the loaded machine; a
            // limiter that under-paced would show far less (its own bug, not a stall).
            #expect(medianRate >= 7, "observed a median pace of \(medianRate) requests per second")
        }
    }

    @Test("a server's 429 with Retry-After pauses the origin; the run retries and delivers every row once")
    func tooManyRequests() async throws {
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        try await withConfiguredSandbox({ $0.rateLimit = SandboxRateLimit(requestsPerSecond: 4, burst: 2) }) { harness in
            let file = try pipeline(pageSize: 10, extra: "  retry: { attempts: 8, backoff: 100ms }")
            let result = try await harness.run(file, ["-v"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
            #expect(harness.server.rateLimitedRequests > 0)
            #expect(result.stderr.contains("HTTP 429"), "stderr: \(result.stderr)")
        }
    }

    @Test("X-RateLimit-Remaining: 0 with X-RateLimit-Reset makes the run wait instead of hammering")
    func rateLimitHeaders() async throws {
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        try await withConfiguredSandbox({ $0.rateLimit = SandboxRateLimit(requestsPerSecond: 4, burst: 4, sendsHeaders: true) }) { harness in
            let file = try pipeline(pageSize: 10, extra: "  retry: { attempts: 8, backoff: 100ms }")
            let result = try await harness.run(file)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
            // Pausing on the headers keeps the refusals to the requests already in flight.
            #expect(harness.server.rateLimitedRequests <= 4, "\(harness.server.rateLimitedRequests) refused")
        }
    }
}
