import Foundation
import ScreensBus
import Testing

/// Event times are RFC 3339 UTC with milliseconds, checked against Foundation's ISO 8601
/// formatter, and never trap on a hostile time (a cache file may hold any double).
@Suite struct EventTimeTests {
    @Test(arguments: [0, 1_700_000_000.123, 951_782_400, -86_400.5, 4_102_444_799.999, 1_234_567_890])
    func matchesFoundation(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        #expect(EventTime.text(date) == formatter.string(from: date))
    }

    @Test(arguments: [Double.infinity, -Double.infinity, Double.nan, 1e300, -1e300])
    func hostileTimesAreClamped(seconds: Double) {
        let text = EventTime.text(Date(timeIntervalSince1970: seconds))
        #expect(text.count == 24)
        #expect(text.hasSuffix("Z"))
    }
}
