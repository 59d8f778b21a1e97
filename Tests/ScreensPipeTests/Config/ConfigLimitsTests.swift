import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// Numbers in a pipeline file are range-checked where they enter: each of these once
/// trapped `validate`, `plan` or `run` (a double or a duration overflowing), and is now a
/// configuration error naming the key, its position and the allowed range.
@Suite struct ConfigLimitsTests {
    static func pipeline(_ line: String) -> String {
        """
        source:
          type: rest
          server: http://127.0.0.1:1
          url: /x
          paginate: offset
          \(line)
        """
    }

    @Test(arguments: [
        ("timeout: 1e300", "test.yaml:6:12: 'timeout' must be at most 24h, found 1e300"),
        ("timeout: 100000000000000000", "test.yaml:6:12: 'timeout' must be at most 24h, found 100000000000000000"),
        ("timeout: 99999999999999999999h", "test.yaml:6:12: 'timeout' must be at most 24h, found 99999999999999999999h"),
        ("timeout: 1\(String(repeating: "0", count: 400))s", "must be at most 24h"),
        ("connect-timeout: 25h", "test.yaml:6:20: 'connect-timeout' must be at most 24h, found 25h"),
        ("timeout: 0.0001ms", "test.yaml:6:12: 'timeout' must be at least 1ms, found 0.0001ms"),
        ("retry: { backoff: 99999999999999999999h }", "'backoff' must be at most 24h"),
        ("retry: { max-backoff: 1e300 }", "'max-backoff' must be at most 24h"),
        ("retry: { attempts: 9223372036854775807 }", "'attempts' must be between 1 and 100, found 9223372036854775807"),
        ("pagination: { page-size: 9223372036854775807 }", "'page-size' must be between 1 and 1000000, found 9223372036854775807"),
        ("pagination: { page-size: 4611686018427387904 }", "'page-size' must be between 1 and 1000000"),
        ("pagination: { first-page-size: 99999999999999999999 }", "'first-page-size' must be between 1 and 1000000, found 99999999999999999999"),
        ("pagination: { max-pages: 9223372036854775807 }", "'max-pages' must be between 1 and 10000000"),
    ])
    func outOfRange(line: String, message: String) {
        let errors = configErrors(Self.pipeline(line))
        #expect(errors.count == 1)
        #expect(errors.first?.contains(message) == true, "\(errors)")
    }

    @Test func theLimitsThemselvesAreAccepted() throws {
        let spec = try loadPipeline(
            Self.pipeline("timeout: 24h\n  pagination: { page-size: 1000000, first-page-size: 1000000, max-pages: 10000000 }"))
        #expect(spec.source.timeout == .seconds(86_400))
        // The furthest row offset the limits allow fits in Int with room to spare.
        let last = spec.source.pagination.firstRow(ofPage: spec.source.pagination.maxPages)
        #expect(last == 1_000_000 + (10_000_000 - 1) * 1_000_000)
    }

    @Test func overridesAreCheckedLikeTheFile() {
        let errors = configErrors(Self.pipeline("timeout: 15s"), overrides: ["source.timeout=1e300"])
        #expect(errors.first?.contains("'timeout' must be at most 24h, found 1e300") == true, "\(errors)")
    }

    @Test func cacheTTLHasItsOwnRange() {
        let errors = configErrors(minimalSource + "\ncache: { ttl: 99999999999999999999h }")
        #expect(errors.first?.contains("'ttl' must be at most 87600h") == true, "\(errors)")
    }

    @Test(arguments: ["1e300", "99999999999999999999h", "1\(String(repeating: "9", count: 400))ms"])
    func hugeDurationTextsNeverTrap(text: String) {
        #expect(ConfigUnits.duration(text) == nil)
        #expect((ConfigUnits.milliseconds(text) ?? 0) > ConfigUnits.maximumMilliseconds)
    }
}
