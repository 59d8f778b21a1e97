package import struct Foundation.Date
import ScreensBus

/// The `Retry-After` header (RFC 9110 §10.2.3): a number of seconds, or an HTTP date.
package enum RetryAfter {
    /// The wait `value` asks for, measured from `now`; nil when `value` is neither form.
    /// A date in the past asks for no wait.
    package static func delay(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingWhitespace
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Absurdly long digit strings saturate instead of failing.
            return .seconds(Int64(text) ?? .max)
        }
        guard let date = httpDate(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        // Saturate: a wait beyond a year is capped by the retry policy anyway.
        return seconds > 0 ? .milliseconds(Int64((min(seconds, 400 * 86_400) * 1000).rounded(.up))) : .zero
    }

    /// Parses the three HTTP date forms: IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`,
    /// RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994`.
    package static func httpDate(_ text: String) -> Date? {
        let tokens = text.split { $0 == " " || $0 == "," || $0 == "-" }
        var month: Int?
        var clock: [Int]?
        var numbers: [Substring] = []
        for token in tokens {
            if token.contains(":") {
                let parts = token.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 3 else { return nil }
                clock = parts
            } else if let index = monthNames.firstIndex(of: token.lowercased()) {
                month = index + 1
            } else if token.allSatisfy(\.isNumber) {
                numbers.append(token)
            }
            // Weekday names and "GMT" carry nothing we need.
        }
        // Every form gives the day before the year.
        guard let month, let clock, numbers.count == 2, let day = Int(numbers[0]), var year = Int(numbers[1]),
            (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        if numbers[1].count == 2 { year += year < 70 ? 2000 : 1900 }
        // HTTP dates have four-digit years; anything later is "as late as can be" (the
        // caller caps the wait), and the day arithmetic below stays far from overflow.
        if year > 9999 { return Date.distantFuture }
        guard year >= 1 else { return nil }
        let days = Int(ISODate.days(year: Int64(year), month: Int64(month), day: Int64(day)))
        let seconds = days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
        return Date(timeIntervalSince1970: Double(seconds))
    }

    private static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
}
