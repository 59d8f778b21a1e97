import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The summary keeps a bounded sample of row errors and exact counts, so a run over a
/// million bad rows does not hold a million errors.
@Suite struct RunSummaryTests {
    @Test func rowErrorsAreSampledAndCounted() throws {
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
        #expect(!summary.endedWithoutFailure)
        // run() throws the first failure, not a sampled row's, with the summary attached.
        let thrown = try #require(summary.failure)
        #expect(thrown.code == .conversion && thrown.row == 0)
        #expect(thrown.summary?.failureCount == 100_002)
    }

    @Test func aClosedOutputWithOnlyCancellationsIsNoFailure() {
        var summary = RunSummary()
        summary.outputClosed = true
        summary.record(ScreensPipeError(.cancelled, "the run was cancelled"))
        #expect(summary.endedWithoutFailure)
        #expect(summary.failure == nil)
        summary.record(ScreensPipeError(.conversion, "bad", row: 3))
        #expect(!summary.endedWithoutFailure)
        // The failure that is not the reader leaving is the one thrown.
        #expect(summary.failure?.code == .conversion)
    }

    @Test func anInterruptedRunIsACancellationNamingItsSignal() throws {
        var summary = RunSummary()
        summary.selected = 7
        summary.ending.reason = .interrupted
        summary.ending.signal = "SIGTERM"
        let thrown = try #require(summary.failure)
        #expect(thrown.isCancellation)
        #expect(thrown.message == "the run was interrupted by SIGTERM after 7 rows")
        #expect(thrown.summary == summary)
    }

    @Test("the error run() throws equals its own copy in the summary: the finished run is no part of it")
    func theThrownErrorEqualsItsCopyInTheSummary() throws {
        var summary = RunSummary()
        summary.selected = 3
        summary.record(ScreensPipeError(.http, "HTTP 503", page: 1, status: 503))
        let thrown = try #require(summary.failure)
        let recorded = try #require(summary.failures.first)
        #expect(thrown.summary != nil && recorded.summary == nil)
        #expect(thrown == recorded)
        #expect(thrown.hashValue == recorded.hashValue)
        #expect(Set([thrown, recorded]).count == 1)
        // Two errors of different runs, equal in what they say, are equal too.
        var later = summary
        later.selected = 9
        #expect(later.failure == thrown)
        // What the error says still counts.
        var elsewhere = recorded
        elsewhere.page = 2
        #expect(elsewhere != thrown)
    }

    @Test func aCompletedRunThrowsNothing() {
        var summary = RunSummary()
        summary.ending.reason = .completed
        #expect(summary.endedWithoutFailure)
        #expect(summary.failure == nil)
    }
}
