import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The summary keeps a bounded sample of row errors and exact counts, so a run over a
/// million bad rows does not hold a million errors.
@Suite struct RunSummaryTests {
    @Test func rowErrorsAreSampledAndCounted() {
        var summary = RunSummary()
        for row in 0..<100_000 {
            summary.record(ScreensPipeError(.conversion, "bad", page: row / 100, row: row))
        }
        summary.record(ScreensPipeError(.http, "HTTP 503", page: 1000))
        summary.record(ScreensPipeError(.sink, "disk full"))
        #expect(summary.failureCount == 100_002)
        #expect(summary.failureCounts == ["convert": 100_000, "http": 1, "sink": 1])
        #expect(summary.failures.count == RunSummary.rowFailureSampleSize + 2)
        // Page, run and sink errors are always kept, whatever came before them.
        #expect(summary.failures.suffix(2).map(\.code) == [.http, .sink])
        #expect(!summary.succeeded)
        #expect(summary.exitCode == 1)
    }

    @Test func aClosedOutputWithOnlyCancellationsExitsZero() {
        var summary = RunSummary()
        summary.outputClosed = true
        summary.record(ScreensPipeError(.cancelled, "the run was cancelled"))
        #expect(summary.exitCode == 0)
        summary.record(ScreensPipeError(.conversion, "bad", row: 3))
        #expect(summary.exitCode == 1)
    }
}
