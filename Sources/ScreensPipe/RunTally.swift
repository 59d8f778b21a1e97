import Synchronization

/// The counters of a run, shared by the loading task and the sink task.
final class RunTally: Sendable {
    private let state = Mutex(RunSummary())

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
        }
    }

    func record(failure: ScreensPipeError) {
        state.withLock { $0.record(failure) }
    }

    func record(_ ending: RunEnding) {
        state.withLock { $0.ending = ending }
    }

    func sinkStopped(by failure: OutputFile.WriteFailure) {
        state.withLock { summary in
            switch failure {
            case .closed: summary.outputClosed = true
            case .failed(let message): summary.record(ScreensPipeError(.sink, message))
            }
        }
    }
}
