internal import Foundation

/// The pause a server asks for: `Retry-After` on a 429 or 503, or no requests remaining in
/// the window until it resets, in any of the forms servers send:
///
/// - `RateLimit: "default";r=0;t=30`: the IETF httpapi draft from -07 on, a structured-field
///   list of policies, each with its remaining quota `r` and seconds to reset `t`; any
///   exhausted policy pauses until its own reset, the longest one winning;
/// - `RateLimit: limit=100, remaining=0, reset=5`: the draft's -06 dictionary;
/// - `RateLimit-Remaining: 0` with `RateLimit-Reset` (drafts -00 to -05), or
///   `X-RateLimit-Remaining` with `X-RateLimit-Reset` (GitHub and many others; a reset
///   above 10⁹ is a Unix time).
enum RateLimitHeaders {
    /// Reset values above this are Unix times (GitHub's `X-RateLimit-Reset`); below, seconds
    /// from now (the IETF draft's `RateLimit-Reset`).
    private static let epochThreshold: Int64 = 1_000_000_000

    static func pause(status: Int, headers: HTTPHeaders, now: Date) -> Duration? {
        if status == 429 || status == 503, let retryAfter = headers["Retry-After"].flatMap({ RetryAfter.delay($0, now: now) }) {
            return retryAfter
        }
        if let field = headers["RateLimit"], let quota = structuredQuota(field) {
            if quota.exhausted, let reset = quota.reset { return .seconds(reset) }
            if !quota.exhausted { return status == 429 ? .seconds(1) : nil }
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

    /// What a `RateLimit` field says: whether a policy is exhausted, and the longest reset
    /// among the exhausted ones (nil when none says). Nil when the field is neither form,
    /// so the older fields are read instead. A field longer than 4 KiB or with more than 16
    /// members is not read: a server's quota never needs more, and the cost stays bounded.
    static func structuredQuota(_ field: String) -> (exhausted: Bool, reset: Int64?)? {
        guard field.utf8.count <= 4096 else { return nil }
        let members = splitOutsideQuotes(field, on: ",")
        guard !members.isEmpty, members.count <= 16 else { return nil }
        var understood = false
        var exhausted = false
        var reset: Int64?
        if members.allSatisfy({ !$0.hasPrefix("\"") && $0.contains("=") && !$0.contains(";") }) {
            // The -06 dictionary: one policy, spread over the members.
            var values: [String: Int64] = [:]
            for member in members {
                let pair = member.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, let number = seconds(pair[1]) { values[pair[0].lowercased()] = number }
            }
            guard let remaining = values["remaining"] else { return nil }
            return (remaining == 0, remaining == 0 ? values["reset"] : nil)
        }
        for member in members {
            // A list item: `"name";r=..;t=..` (the name may be a token too).
            let parts = splitOutsideQuotes(member, on: ";")
            var remaining: Int64?
            var seconds: Int64?
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2 else { continue }
                switch pair[0] {
                case "r": remaining = Self.seconds(pair[1])
                case "t": seconds = Self.seconds(pair[1])
                default: break
                }
            }
            guard let remaining else { continue }
            understood = true
            if remaining == 0 {
                exhausted = true
                if let seconds { reset = max(reset ?? 0, seconds) }
            }
        }
        return understood ? (exhausted, reset) : nil
    }

    /// The members of a structured field, split at `separator` outside quoted strings and trimmed.
    private static func splitOutsideQuotes(_ text: String, on separator: Character) -> [String] {
        var members: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if quoted {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { quoted = false }
                current.append(character)
            } else if character == "\"" {
                quoted = true
                current.append(character)
            } else if character == separator {
                members.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        members.append(current.trimmingCharacters(in: .whitespaces))
        return members.filter { !$0.isEmpty }
    }

    /// A non-negative whole number of seconds, nothing else (no fractions, no signs, at most 12 digits).
    private static func seconds(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 12, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber) else { return nil }
        return Int64(trimmed)
    }
}
