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
    @Test("requests: 10 per 1s: the sandbox observes 10 requests per second within 10%, and every row once")
    func measuredRate() async throws {
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        try await withConfiguredSandbox({ $0.rateLimit = SandboxRateLimit(requestsPerSecond: 100, burst: 100) }) { harness in
            let file = try pipeline(pageSize: 2, prefetch: 8, extra: "  rate-limit: { requests: 10, per: 1s, burst: 1 }")
            let result = try await harness.run(file)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
            let times = harness.server.admittedRequestTimes
            try #require(times.count >= 37)
            // The pace is the median gap between arrivals: a stall of the loaded machine
            // delays one request and lets the next arrive close behind it, which moves two
            // gaps, where the first-to-last span or a fitted slope moves with every outlier
            // (11.97/s and 8.03/s were seen that way under a full test run).
            let gaps = zip(times.dropFirst(), times).map { later, earlier -> Double in
                let span = later - earlier
                return Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
            }.sorted()
            let rate = 1 / gaps[gaps.count / 2]
            // The sandbox's own budget is far above the pipeline's: the pace measured is the client's.
            #expect(harness.server.rateLimitedRequests == 0)
            #expect(abs(rate - 10) <= 1, "observed \(rate) requests per second")
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
