import ScreensBus
import Testing

/// ISO 8601 dates are ScreensBus's: events carry them, and the convert stage writes them.
@Suite struct ISODateTests {
    @Test func isoDatesRoundTripAcrossEras() {
        for milliseconds: Int64 in [0, 1, -1, 951_782_400_000, 4_107_542_399_999, -62_135_596_800_000, 1_795_252_500_123] {
            let text = ISODate.format(epochMilliseconds: milliseconds)
            #expect(ISODate.parse(text) == milliseconds, "\(text)")
        }
        #expect(ISODate.format(epochMilliseconds: 951_782_400_000) == "2000-02-29T00:00:00Z")
        #expect(ISODate.parse("2026-11-21T09:15:00+0530") == ISODate.parse("2026-11-21T03:45:00Z"))
        #expect(ISODate.parse("2026-11-21T24:00:00Z") == nil)
        #expect(ISODate.parse("2026-11-21T09:15:00Zjunk") == nil)
    }
}
