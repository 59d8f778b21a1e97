import Foundation
import Testing

@testable import ScreensBus
@testable import ScreensJSON

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

    @Test("a fraction finer than a millisecond is cut, or refused when asked; zeros past it cut nothing")
    func finerThanMilliseconds() {
        let base = ISODate.parse("2026-11-21T09:15:00Z")!
        #expect(ISODate.parse("2026-11-21T09:15:00.123456Z") == base + 123)
        #expect(ISODate.parse("2026-11-21T09:15:00.123456Z", refusingFinerThanMilliseconds: true) == nil)
        #expect(ISODate.parse("2026-11-21T09:15:00,0001Z", refusingFinerThanMilliseconds: true) == nil)
        #expect(ISODate.parse("2026-11-21T09:15:00.123Z", refusingFinerThanMilliseconds: true) == base + 123)
        #expect(ISODate.parse("2026-11-21T09:15:00.1230000Z", refusingFinerThanMilliseconds: true) == base + 123)
        #expect(ISODate.parse("2026-11-21T09:15:00.5+01:00", refusingFinerThanMilliseconds: true) == base + 500 - 3_600_000)
    }

    @Test("every year 1583 to 9999 formats as Foundation's ISO 8601 formatter does; milliseconds only when not zero")
    func formatMatchesFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var generator = SystemRandomNumberGenerator()
        // Whole seconds from 1583-01-01 (Foundation's calendar is Julian before the 1582
        // reform; screens-pipe's is proleptic Gregorian) to 9999-12-31T23:59:59.
        var seconds: [Int64] = [-12_212_553_600, 253_402_300_799, 0, -1, 86_399, 951_782_400]
        for _ in 0..<20_000 { seconds.append(Int64.random(in: -12_212_553_600...253_402_300_799, using: &generator)) }
        for second in seconds {
            let expected = formatter.string(from: Date(timeIntervalSince1970: Double(second)))
            #expect(ISODate.format(epochMilliseconds: second * 1000) == expected, "\(second)")
            let milliseconds = Int64.random(in: 1...999, using: &generator)
            let fraction = String(1000 + milliseconds).dropFirst()
            #expect(ISODate.format(epochMilliseconds: second * 1000 + milliseconds) == expected.dropLast() + "." + fraction + "Z")
        }
        // Proleptic Gregorian before 1583, and past year 9999 the year has more digits.
        #expect(ISODate.format(epochMilliseconds: -62_135_596_800_000) == "0001-01-01T00:00:00Z")
        #expect(ISODate.format(epochMilliseconds: 253_402_300_800_000) == "10000-01-01T00:00:00Z")
    }

    @Test("a writer that keeps the last day writes what the one-off writer writes, in any order of dates")
    func writerKeepingTheDay() {
        var generator = SystemRandomNumberGenerator()
        var writer = ISODate.Writer()
        var kept = [UInt8](repeating: 0, count: ISODate.Writer.longest)
        var oneOff: [UInt8] = []
        let edges: [Int64] = [
            0, -1, 1, 86_399_999, 86_400_000, -86_400_000, -86_400_001, 951_782_400_000, 253_402_300_799_999,
            253_402_300_800_000, -62_167_219_200_000, -62_167_219_200_001, .max, .min,
        ]
        var base: Int64 = 1_704_067_200_000
        for step in 0..<20_000 {
            let milliseconds: Int64 =
                switch step % 5 {
                case 0: edges[Int.random(in: 0..<edges.count, using: &generator)]
                case 1: Int64.random(in: -100_000_000_000_000...300_000_000_000_000, using: &generator)
                default: { base += Int64.random(in: -1_000...7_200_000, using: &generator); return base }()
                }
            oneOff.removeAll(keepingCapacity: true)
            let count = kept.withUnsafeMutableBufferPointer { writer.write(epochMilliseconds: milliseconds, to: $0.baseAddress!) }
            ISODate.write(epochMilliseconds: milliseconds, into: &oneOff)
            // Out of the years 0 to 9999 the writer leaves the date to the one-off writer.
            let written = count.map { Array(kept[..<$0]) } ?? Array(ISODate.format(epochMilliseconds: milliseconds).utf8)
            // 0000-01-01T00:00:00Z up to, not including, 10000-01-01T00:00:00Z.
            #expect((count != nil) == (-62_167_219_200_000..<253_402_300_800_000).contains(milliseconds), "\(milliseconds)")
            #expect(written == oneOff, "\(milliseconds)")
            #expect(String(decoding: written, as: UTF8.self) == ISODate.format(epochMilliseconds: milliseconds))
        }
    }
}
