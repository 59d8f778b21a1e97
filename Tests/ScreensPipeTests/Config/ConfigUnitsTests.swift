import Testing
@testable import ScreensPipeCore
import ScreensPipe

@Suite struct ConfigUnitsTests {
    @Test(arguments: [
        ("15s", Duration.seconds(15)), ("200ms", .milliseconds(200)), ("1h", .seconds(3600)), ("2m", .seconds(120)),
        ("1h30m", .seconds(5400)), ("1m30s", .seconds(90)), ("1.5s", .milliseconds(1500)), ("10", .seconds(10)),
        ("0.25", .milliseconds(250)), ("0s", .zero),
    ])
    func durationsParse(text: String, expected: Duration) {
        #expect(ConfigUnits.duration(text) == expected)
    }

    @Test(arguments: ["", "s", "15 s", "15sec", "-1s", "-5", "1d", "h1", "1.2.3s", "+3"])
    func badDurationsAreRejected(text: String) {
        #expect(ConfigUnits.duration(text) == nil)
    }

    @Test(arguments: [
        ("64MiB", 64 << 20), ("512KiB", 512 << 10), ("1GiB", 1 << 30), ("1MB", 1_000_000), ("2KB", 2000), ("3GB", 3_000_000_000),
        ("100", 100), ("100B", 100), ("1.5KiB", 1536),
    ])
    func sizesParse(text: String, expected: Int) {
        #expect(ConfigUnits.size(text) == expected)
    }

    @Test(arguments: ["", "MiB", "64mib", "64 MiB", "-1", "1TB", "64MiBs"])
    func badSizesAreRejected(text: String) {
        #expect(ConfigUnits.size(text) == nil)
    }

    @Test func unitsWriteBackInTheLargestExactUnit() {
        #expect(ConfigUnitText.duration(.seconds(5400)) == "90m")
        #expect(ConfigUnitText.duration(.seconds(7200)) == "2h")
        #expect(ConfigUnitText.duration(.milliseconds(200)) == "200ms")
        #expect(ConfigUnitText.duration(.zero) == "0ms")
        #expect(ConfigUnitText.size(64 << 20) == "64MiB")
        #expect(ConfigUnitText.size(1_000_000) == "1000000")
    }

    @Test func editDistanceAndSuggestions() {
        #expect(KeySuggestion.editDistance("pagenation", "pagination") == 1)
        #expect(KeySuggestion.editDistance("", "abc") == 3)
        #expect(KeySuggestion.editDistance("kitten", "sitting") == 3)
        #expect(KeySuggestion.editDistance("form", "from") == 1)
        #expect(KeySuggestion.editDistance("Source", "source") == 0)
        #expect(KeySuggestion.closest(to: "sevrer", among: ["server", "source"]) == "server")
        #expect(KeySuggestion.closest(to: "zebra", among: ["name", "source", "sink"]) == nil)
    }

    @Test func plainScalarsResolveByTheCoreSchema() {
        #expect(ResolvedScalar(plain: "9223372036854775807") == .int(.max))
        #expect(ResolvedScalar(plain: "-9223372036854775808") == .int(.min))
        #expect(ResolvedScalar(plain: "9223372036854775808") == .bigInteger("9223372036854775808"))
        #expect(ResolvedScalar(plain: "+7") == .int(7))
        #expect(ResolvedScalar(plain: "0o17") == .int(15))
        #expect(ResolvedScalar(plain: "1e3") == .float(1000))
        #expect(ResolvedScalar(plain: ".5") == .float(0.5))
        #expect(ResolvedScalar(plain: "1_000") == .string("1_000"))
        #expect(ResolvedScalar(plain: ".inf") == .string(".inf"))
        #expect(ResolvedScalar(plain: "NULL") == .null)
        #expect(ResolvedScalar(plain: "yes") == .string("yes"))
    }
}
