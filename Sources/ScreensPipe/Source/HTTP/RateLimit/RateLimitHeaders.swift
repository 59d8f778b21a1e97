internal import Foundation

/// The pause a server asks for: `Retry-After` on a 429 or 503, or no requests remaining in
/// the window (`RateLimit-Remaining: 0` / `X-RateLimit-Remaining: 0`) until
/// `RateLimit-Reset` / `X-RateLimit-Reset`.
enum RateLimitHeaders {
    /// Reset values above this are Unix times (GitHub's `X-RateLimit-Reset`); below, seconds
    /// from now (the IETF draft's `RateLimit-Reset`).
    private static let epochThreshold: Int64 = 1_000_000_000

    static func pause(status: Int, headers: HTTPHeaders, now: Date) -> Duration? {
        if status == 429 || status == 503, let retryAfter = headers["Retry-After"].flatMap({ RetryAfter.delay($0, now: now) }) {
            return retryAfter
        }
        let remaining = headers["RateLimit-Remaining"] ?? headers["X-RateLimit-Remaining"]
        guard let remaining, let count = Int64(remaining.trimmingCharacters(in: .whitespaces)), count <= 0 else {
            // A 429 without Retry-After: a short pause for everyone rather than a burst of retries.
            return status == 429 ? .seconds(1) : nil
        }
        guard let reset = (headers["RateLimit-Reset"] ?? headers["X-RateLimit-Reset"]).flatMap(seconds) else {
            return status == 429 ? .seconds(1) : nil
        }
        if reset > epochThreshold {
            let delta = Double(reset) - now.timeIntervalSince1970
            return delta > 0 ? .milliseconds(Int64(delta * 1000)) : nil
        }
        return .seconds(reset)
    }

    /// A non-negative whole number of seconds, nothing else (no fractions, no signs, at most 12 digits).
    private static func seconds(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 12, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber) else { return nil }
        return Int64(trimmed)
    }
}
