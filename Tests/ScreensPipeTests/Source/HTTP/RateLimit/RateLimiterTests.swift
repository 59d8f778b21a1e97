import Foundation
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite("Rate limiter")
struct RateLimiterTests {
    private func headers(_ pairs: [(String, String)]) -> HTTPHeaders {
        HTTPHeaders(pairs.map { (name: $0.0, value: $0.1) })
    }

    @Test("one limiter per origin for the whole process; the strictest configuration wins")
    func registryShares() {
        let registry = RateLimiterRegistry()
        let first = registry.limiter(origin: "https://a.example:443", spec: RateLimitSpec(requests: 10, burst: 5))
        let second = registry.limiter(origin: "https://a.example:443", spec: RateLimitSpec(requests: 2, per: .seconds(1), burst: 8, maxWait: .seconds(5)))
        #expect(first === second)
        let spec = first.spec
        #expect(spec?.requests == 2)
        #expect(spec?.burst == 5)
        #expect(spec?.maxWait == .seconds(5))
        let other = registry.limiter(origin: "https://b.example:443", spec: nil)
        #expect(other !== first)
        #expect(other.spec == nil)
    }

    @Test("the burst goes at once, then each request waits for its own slot")
    func slots() async throws {
        let limiter = RateLimiter(origin: "o", spec: RateLimitSpec(requests: 10, per: .seconds(1), burst: 2))
        #expect(try await limiter.acquire() == .zero)
        #expect(try await limiter.acquire() == .zero)
        // The third is a whole interval (100 ms) behind the first two slots, minus the time spent so far.
        #expect(try await limiter.acquire() > .milliseconds(20))
    }

    @Test("without a limit nothing waits")
    func unlimited() async throws {
        let limiter = RateLimiter(origin: "o", spec: nil)
        for _ in 0..<100 { #expect(try await limiter.acquire() == .zero) }
    }

    @Test("a waiting request is cancellable")
    func cancellable() async {
        let limiter = RateLimiter(origin: "o", spec: RateLimitSpec(requests: 1, per: .seconds(3600)))
        _ = try? await limiter.acquire()
        let waiter = Task { try await limiter.acquire() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }

    @Test("a 429's Retry-After pauses the origin, bounded by max-wait")
    func retryAfterPauses() async throws {
        let limiter = RateLimiter(origin: "o", spec: RateLimitSpec(requests: 1000, maxWait: .seconds(2)))
        #expect(limiter.observe(status: 429, headers: headers([("Retry-After", "1")])) == .seconds(1))
        #expect(limiter.observe(status: 429, headers: headers([("Retry-After", "86400")])) == .seconds(2))
        #expect(try await limiter.acquire() > .milliseconds(500))
    }

    @Test(
        "rate-limit headers: remaining 0 waits until the reset; anything else does not",
        arguments: [
            (200, [("RateLimit-Remaining", "0"), ("RateLimit-Reset", "3")], Duration.seconds(3) as Duration?),
            (200, [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "2")], .seconds(2)),
            (200, [("X-RateLimit-Remaining", "5"), ("X-RateLimit-Reset", "2")], nil),
            (200, [("X-RateLimit-Remaining", "0")], nil),
            (200, [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "-4")], nil),
            (200, [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "1.5")], nil),
            (200, [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "99999999999999999999")], nil),
            (200, [("X-RateLimit-Remaining", "zero"), ("X-RateLimit-Reset", "2")], nil),
            (429, [], .seconds(1)),
            (429, [("Retry-After", "soon")], .seconds(1)),
            (503, [("Retry-After", "4")], .seconds(4)),
        ])
    func headerPauses(_ status: Int, _ pairs: [(String, String)], _ expected: Duration?) {
        #expect(RateLimitHeaders.pause(status: status, headers: headers(pairs), now: Date()) == expected)
    }

    static let structuredFieldCases: [(Int, [(String, String)], Duration?)] = [
        // The IETF draft's structured field (-07 on): policies with `r` remaining and `t` seconds to reset.
        (200, [("RateLimit", #""default";r=0;t=30"#)], .seconds(30)),
        (200, [("RateLimit", #""burst";r=5;t=1, "daily";r=0;t=3600"#)], .seconds(3600)),
        (200, [("RateLimit", #""burst";r=0;t=2, "daily";r=0;t=60"#)], .seconds(60)),
        (200, [("RateLimit", #""default";r=50;t=30"#)], nil),
        (200, [("RateLimit", #""a,b;c";r=0;t=2"#)], .seconds(2)),
        (429, [("RateLimit", #""default";r=10;t=5"#)], .seconds(1)),
        // The -06 dictionary.
        (200, [("RateLimit", "limit=100, remaining=0, reset=5")], .seconds(5)),
        (200, [("RateLimit", "limit=100, remaining=7, reset=5")], nil),
        // Not understood: the separate fields decide.
        (200, [("RateLimit", "garbage"), ("RateLimit-Remaining", "0"), ("RateLimit-Reset", "3")], .seconds(3)),
        (200, [("RateLimit", #""default";r=-1;t=30"#)], nil),
            (200, [("RateLimit", String(repeating: #""p";r=0;t=1,"#, count: 400))], nil),
    ]

    @Test("the RateLimit field of the IETF draft, list (-07 on) and dictionary (-06) forms", arguments: structuredFieldCases)
    func structuredFieldPauses(_ status: Int, _ pairs: [(String, String)], _ expected: Duration?) {
        #expect(RateLimitHeaders.pause(status: status, headers: headers(pairs), now: Date()) == expected)
    }

    @Test("an epoch X-RateLimit-Reset (GitHub's form) counts from now")
    func epochReset() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let pause = RateLimitHeaders.pause(
            status: 403, headers: headers([("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "1800000010")]), now: now)
        #expect(pause == .seconds(10))
    }

    @Test("rate-limit keys decode, and bad values are errors")
    func decoding() throws {
        let yaml = """
            source:
              type: rest
              server: https://portal.example.com
              url: /items
              records: items
              paginate: { style: offset }
              rate-limit: { requests: 5, per: 2s, burst: 3, max-wait: 10s }
            """
        let spec = try loadPipeline(yaml)
        #expect(spec.source.rateLimit == RateLimitSpec(requests: 5, per: .seconds(2), burst: 3, maxWait: .seconds(10)))
        #expect(spec.redactedDescription().contains("rate-limit"))
        let errors = configErrors(yaml.replacingOccurrences(of: "requests: 5", with: "requests: 0"))
        #expect(errors.contains { $0.contains("requests") }, "\(errors)")
        let missing = configErrors(yaml.replacingOccurrences(of: "requests: 5, ", with: ""))
        #expect(missing.contains { $0.contains("requests") }, "\(missing)")
    }
}
