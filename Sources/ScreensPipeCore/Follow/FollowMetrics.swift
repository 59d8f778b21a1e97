internal import CoreMetrics
internal import Foundation

/// The metrics of a follow, beside each poll's own run metrics (``RunMetrics``), through the
/// environment's metrics factory: polls by result, changes by kind, and when the last
/// complete poll started, from which the lag behind the portal is `time() - that`.
struct FollowMetrics: Sendable {
    let pipeline: String
    let factory: any MetricsFactory

    /// The metric names, as a backend sees them.
    enum Name {
        static let polls = "screens_pipe_follow_polls_total"
        static let changes = "screens_pipe_follow_changes_total"
        static let sweeps = "screens_pipe_follow_sweeps_total"
        static let lastCompletePoll = "screens_pipe_follow_last_complete_poll_timestamp_seconds"
    }

    init(pipeline: String, factory: (any MetricsFactory)?) {
        self.pipeline = pipeline
        self.factory = factory ?? MetricsSystem.factory
    }

    /// A poll that started at `start` read the whole list and found `changes`.
    func completed(startedAt start: Date, changes: [ListChange]) {
        Counter(label: Name.polls, dimensions: [("pipeline", pipeline), ("result", "completed")], factory: factory).increment()
        for kind in ChangeKind.allCases {
            let count = changes.count { $0.kind == kind }
            // Every kind is reported from the first poll on, so a rate over it never starts empty.
            Counter(label: Name.changes, dimensions: [("pipeline", pipeline), ("kind", kind.rawValue)], factory: factory).increment(by: count)
        }
        Gauge(label: Name.lastCompletePoll, dimensions: [("pipeline", pipeline)], factory: factory).record(start.timeIntervalSince1970)
    }

    /// A key sweep read the whole list's keys and found `deletions`.
    func swept(deletions: [ListChange]) {
        Counter(label: Name.sweeps, dimensions: [("pipeline", pipeline)], factory: factory).increment()
        Counter(label: Name.changes, dimensions: [("pipeline", pipeline), ("kind", ChangeKind.deleted.rawValue)], factory: factory)
            .increment(by: deletions.count)
    }

    /// A poll failed; it is tried again after a wait.
    func failed() {
        Counter(label: Name.polls, dimensions: [("pipeline", pipeline), ("result", "failed")], factory: factory).increment()
    }
}
