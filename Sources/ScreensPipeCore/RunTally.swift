import Synchronization

/// The counters of a run, shared by the loading task and the sink task.
final class RunTally: Sendable {
    private let state = Mutex(RunSummary())
    /// Counts every failure recorded here by kind, as the summary does.
    private let metrics: RunMetrics

    init(metrics: RunMetrics) {
        self.metrics = metrics
    }

    var summary: RunSummary { state.withLock { $0 } }

    /// Rows selected so far (read once per page, so it does not copy the whole summary).
    var selected: Int { state.withLock { $0.selected } }

    func record(page rows: Int, selectedTotal: Int, failures: [ScreensPipeError], skipped: Int) {
        state.withLock { summary in
            summary.pages += 1
            summary.rows += rows
            summary.selected = selectedTotal
            summary.skipped += skipped
            for failure in failures { summary.record(failure) }
            for failure in failures { metrics.failed(failure) }
        }
    }

    /// Starts from the totals of the pages a resumed run's kept output already holds.
    func resume(pages: Int, rows: Int, selected: Int) {
        state.withLock { summary in
            summary.pages = pages
            summary.rows = rows
            summary.selected = selected
        }
    }

    func record(failure: ScreensPipeError) {
        metrics.failed(failure)
        state.withLock { $0.record(failure) }
    }

    func record(_ ending: RunEnding) {
        state.withLock { $0.ending = ending }
    }

    func sinkStopped(by failure: SinkFailure) {
        state.withLock { summary in
            switch failure {
            case .closed: summary.outputClosed = true
            case .failed(let message):
                summary.record(ScreensPipeError.sink(message))
                metrics.failed(ScreensPipeError.sink(message))
            }
        }
    }
}
