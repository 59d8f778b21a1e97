import Foundation
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite("Retry policy and Retry-After")
struct RetryPolicyTests {
    @Test func theExponentialDelayDoublesUpToTheCap() {
        let policy = RetryPolicy(attempts: 10, backoff: .milliseconds(200), maxBackoff: .seconds(1), jitter: .none)
        let delays = (1...6).map { policy.exponentialDelay(beforeRetry: $0) }
        #expect(delays == [.milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1), .seconds(1)])
        // No overflow far out.
        #expect(policy.exponentialDelay(beforeRetry: 500) == .seconds(1))
    }

    @Test func theSpecBecomesThePolicy() {
        let policy = RetryPolicy(RetrySpec(attempts: 3, backoff: .milliseconds(50), maxBackoff: .seconds(2)))
        #expect(policy.attempts == 3)
        #expect(policy.backoff == .milliseconds(50))
        #expect(policy.maxBackoff == .seconds(2))
        #expect(RetryPolicy(attempts: 0, backoff: .zero, maxBackoff: .zero).attempts == 1)
    }

    @Test func fullJitterStaysWithinTheDelayAndIsReproducible() {
        let policy = RetryPolicy(attempts: 10, backoff: .milliseconds(100), maxBackoff: .seconds(10), jitter: .full)
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        let a = (1...8).map { policy.delay(beforeRetry: $0, using: &first) }
        let b = (1...8).map { policy.delay(beforeRetry: $0, using: &second) }
        #expect(a == b)
        for (index, delay) in a.enumerated() {
            #expect(delay >= .zero && delay <= policy.exponentialDelay(beforeRetry: index + 1))
        }
        #expect(Set(a).count > 1)
    }

    @Test func equalJitterNeverWaitsLessThanHalf() {
        let policy = RetryPolicy(attempts: 10, backoff: .milliseconds(100), maxBackoff: .seconds(10), jitter: .equal)
        var random = SplitMix64(seed: 7)
        for retry in 1...8 {
            for _ in 0..<50 {
                let delay = policy.delay(beforeRetry: retry, using: &random)
                let full = policy.exponentialDelay(beforeRetry: retry)
                #expect(delay >= full / 2 && delay <= full)
            }
        }
    }

    @Test func retryableStatusesAndErrors() {
        let policy = RetryPolicy(attempts: 3, backoff: .zero, maxBackoff: .zero)
        for status in [408, 429, 502, 503, 504] { #expect(policy.isRetryable(status: status)) }
        for status in [200, 301, 302, 400, 401, 403, 404, 409, 500, 501] { #expect(!policy.isRetryable(status: status)) }
        let retryable: Set<HTTPError.Kind> = [.connectionRefused, .connectionReset, .timeout, .truncated]
        for kind in HTTPError.Kind.allCases {
            #expect(policy.isRetryable(HTTPError(kind, "x", request: "GET /")) == retryable.contains(kind))
        }
    }

    @Test func retryAfterInSeconds() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(RetryAfter.delay("3", now: now) == .seconds(3))
        #expect(RetryAfter.delay(" 120 ", now: now) == .seconds(120))
        #expect(RetryAfter.delay("0", now: now) == .zero)
        #expect(RetryAfter.delay("-1", now: now) == nil)
        #expect(RetryAfter.delay("soon", now: now) == nil)
        #expect(RetryAfter.delay("", now: now) == nil)
    }

    @Test func retryAfterAsAnHTTPDateInEachForm() {
        // 1994-11-06 08:49:37 UTC
        let date = Date(timeIntervalSince1970: 784_111_777)
        let now = date.addingTimeInterval(-5)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == .seconds(5))
        #expect(RetryAfter.delay("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == .seconds(5))
        #expect(RetryAfter.delay("Sun Nov  6 08:49:37 1994", now: now) == .seconds(5))
        #expect(RetryAfter.httpDate("Tue, 29 Feb 2028 23:59:60 GMT") != nil)
        // A date already past asks for no wait.
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: date.addingTimeInterval(60)) == .zero)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 25:49:37 GMT", now: now) == nil)
        #expect(RetryAfter.delay("Sun, 06 Foo 1994 08:49:37 GMT", now: now) == nil)
    }

    @Test("dates far out of range saturate instead of trapping", arguments: [
        "Fri, 31 Dec 99999999999999 23:59:59 GMT", "Fri, 31 Dec 9223372036854775807 23:59:59 GMT",
        "Fri, 31 Dec 10000 23:59:59 GMT", "99999999999999999999999999",
    ])
    func farFutureRetryAfter(_ value: String) throws {
        let delay = try #require(RetryAfter.delay(value, now: Date(timeIntervalSince1970: 0)))
        #expect(delay > .seconds(86_400))
        let policy = RetryPolicy(attempts: 3, backoff: .milliseconds(10), maxBackoff: .seconds(1))
        #expect(policy.delay(honouringRetryAfter: delay) == .seconds(60))
    }

    @Test func datesBeforeYearOneAreNotDates() {
        #expect(RetryAfter.delay("Fri, 31 Dec 0000 23:59:59 GMT", now: Date()) == nil)
    }

    @Test func retryAfterIsCappedAtTheLargerOfMaxBackoffAndAMinute() {
        let short = RetryPolicy(attempts: 3, backoff: .milliseconds(10), maxBackoff: .seconds(1))
        #expect(short.delay(honouringRetryAfter: .seconds(3600)) == .seconds(60))
        #expect(short.delay(honouringRetryAfter: .seconds(5)) == .seconds(5))
        let long = RetryPolicy(attempts: 3, backoff: .milliseconds(10), maxBackoff: .seconds(300))
        #expect(long.delay(honouringRetryAfter: .seconds(3600)) == .seconds(300))
    }
}
