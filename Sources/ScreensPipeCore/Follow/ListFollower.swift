internal import Foundation
internal import Logging
import ScreensBus
import Synchronization

/// How often a follow polls, and how it spaces its polls.
public struct FollowOptions: Sendable, Hashable {
    /// The time between the end of one poll and the start of the next.
    public var interval: Duration
    /// Each wait is the interval times a random factor in `1 ± jitter`, so many followers
    /// started together do not poll the portal in step.
    public var jitter: Double
    /// The key fields of a row (`entryId`, or several: `groupId,articleId`); nil: the first
    /// of `entryId`, `resourcePrimKey`, `recordId`, `id` the first row holds.
    public var keyFields: [String]?
    /// The longest wait after failed polls: the wait doubles with each failure in a row, up
    /// to this (at least the interval).
    public var maximumBackoff: Duration

    /// The shortest interval: a follow is not a load test.
    public static let minimumInterval: Duration = .milliseconds(100)

    /// Options polling every `interval`.
    public init(interval: Duration = .seconds(30), jitter: Double = 0.1, keyFields: [String]? = nil, maximumBackoff: Duration? = nil) {
        self.interval = interval
        self.jitter = jitter
        self.keyFields = keyFields
        self.maximumBackoff = maximumBackoff ?? max(interval, min(interval * 32, .seconds(15 * 60)))
    }
}

/// Follows one list as it changes: a first complete load, then a poll every interval, each
/// compared with the snapshot of the last complete poll, and every change handed to a
/// ``ChangeOutput`` once, in the order found (docs/architecture.md, "Following a list").
///
/// State and output move in this order, so a restart after a crash at any point neither
/// repeats nor skips a change an output that knows its last change (a file) holds:
/// 1. the poll reads the whole list (or, with `incremental:`, every row past the cursor);
///    a poll that fails or is interrupted changes nothing;
/// 2. the new snapshot, cursor and change numbers are committed with the batch of changes
///    as *pending*, in one state document;
/// 3. the batch is written and synced;
/// 4. the pending batch is cleared. A restart finds a pending batch and writes the changes
///    numbered after the output's last one.
public final class ListFollower: Sendable {
    /// The followed pipeline.
    public let spec: PipelineSpec
    /// What each poll's run takes from the process around it.
    public let environment: PipelineEnvironment
    /// The interval, jitter, backoff and key.
    public let options: FollowOptions
    private let control = Mutex(Control())

    private struct Control {
        var stopped = false
        var polling: Pipeline?
    }

    /// What one call of ``run(output:onPoll:)`` did, when it returns after a stop.
    public struct Summary: Sendable {
        /// Complete polls (the first load included).
        public var polls = 0
        /// Polls that failed and were tried again later.
        public var failedPolls = 0
        /// Changes written, by kind.
        public var changes: [ChangeKind: Int] = [:]
    }

    /// What a poll ended with, for a caller that reports it.
    public enum PollReport: Sendable {
        /// A complete poll found these changes (maybe none) in `rows` rows read.
        case completed(changes: Int, rows: Int)
        /// A poll failed; the next one comes after `retryIn`.
        case failed(ScreensPipeError, retryIn: Duration)
        /// A complete key sweep (`follow: { sweep-every }`) read `keys` keys and found these
        /// deletions (maybe none).
        case swept(deletions: Int, keys: Int)
    }

    /// A follower of `spec`'s list.
    public init(spec: PipelineSpec, environment: PipelineEnvironment, options: FollowOptions) {
        self.spec = spec
        self.environment = environment
        self.options = options
    }

    /// The key the follow state is stored under: the pipeline's name and `follow:` before
    /// its list's state key, so a `run` of the same pipeline keeps its own cursor.
    public static func stateKey(of spec: PipelineSpec) throws(ScreensPipeError) -> StateKey {
        let key = try spec.stateKey()
        return StateKey(pipeline: key.pipeline, list: "follow:" + key.list)
    }

    /// Ends ``run(output:onPoll:)``: a poll under way is interrupted (and counts for
    /// nothing), a batch being written is finished and committed first. Safe from any
    /// thread, any number of times.
    public func stop(signal: String? = nil) {
        let polling = control.withLock { control in
            control.stopped = true
            return control.polling
        }
        polling?.interrupt(signal: signal)
    }

    private var isStopped: Bool { control.withLock { $0.stopped } }

    /// Follows the list until ``stop(signal:)``, writing every change to `output`. Throws
    /// what cannot be waited out: a state that cannot be read or committed, an output that
    /// cannot be written, a configuration error, another follower holding the list (after
    /// `cache.lock-wait`). A failed poll is reported to `onPoll` and tried again later.
    public func run(output: any ChangeOutput, onPoll: @Sendable (PollReport) -> Void = { _ in }) async throws(ScreensPipeError) -> Summary {
        guard options.interval >= FollowOptions.minimumInterval else {
            throw ScreensPipeError.configuration("the follow interval must be at least \(FollowOptions.minimumInterval)")
        }
        let key = try Self.stateKey(of: spec)
        let lock = try await RunLock.acquire(
            .listState(key), at: .of(spec.cache, environment: environment.storageVariables), wait: spec.cache?.lockWait ?? RunLock.defaultWait,
            logger: environment.logger)
        let store: any ListStateStore
        do throws(ScreensPipeError) {
            store = try await CacheBackends.openStateStore(spec: spec.cache, environment: environment.storageVariables)
        } catch {
            await lock.release()
            throw error
        }
        do throws(ScreensPipeError) {
            let summary = try await follow(key: key, store: store, output: output, onPoll: onPoll)
            await store.close()
            await lock.release()
            return summary
        } catch {
            await store.close()
            await lock.release()
            throw error
        }
    }

    private func follow(
        key: StateKey, store: any ListStateStore, output: any ChangeOutput, onPoll: @Sendable (PollReport) -> Void
    ) async throws(ScreensPipeError) -> Summary {
        var state = FollowState()
        if let record = try await store.record(for: key) { state = try FollowState(document: record.document, key: key) }
        if let configured = options.keyFields, let stored = state.keyFields, configured != stored {
            throw ScreensPipeError.configuration(
                "the follow state of \(spec.name) is keyed by \(stored.joined(separator: ",")), not \(configured.joined(separator: ",")); reset it with 'screens-pipe state reset FILE' to follow by another key")
        }
        var summary = Summary()
        // Settle the batch a crash left pending: write what the output lacks of it.
        let last = try await output.lastSequence()
        if !state.pending.isEmpty {
            let changes = state.pending.compactMap(ListChange.init(line:)).filter { $0.sequence > (last ?? 0) }
            if !changes.isEmpty { try await output.write(changes) }
            for change in changes { summary.changes[change.kind, default: 0] += 1 }
            state.pending = []
            try await commit(state, key: key, store: store)
        }
        // An output ahead of the state (a state reset, another copy of the file) keeps its numbers growing.
        if let last, last > state.sequence { state.sequence = last }

        let poll = ListPoll(following: spec, environment: environment)
        let metrics = FollowMetrics(pipeline: spec.name, factory: environment.metricsFactory)
        var failures = 0
        var random = SystemRandomNumberGenerator()
        while !isStopped {
            var wait = options.interval
            let pollStart = Date()
            do throws(ScreensPipeError) {
                let result = try await poll.run(previous: state.snapshot, keyFields: state.keyFields ?? options.keyFields, cursor: state.cursor) {
                    [self] pipeline in register(pipeline)
                }
                control.withLock { $0.polling = nil }
                failures = 0
                let fields = result.keyFields ?? state.keyFields ?? []
                let outcome = ChangeDetection.compare(
                    result.rows, with: state.snapshot, complete: spec.incremental == nil, keyFields: fields, after: state.sequence)
                var next = state
                next.keyFields = result.keyFields ?? state.keyFields
                next.snapshot = outcome.snapshot
                next.cursor = result.cursor
                next.sequence += Int64(outcome.changes.count)
                next.polls += 1
                state.polls += 1
                if next != state {
                    // The first poll of a new state, a cursor that moved or rows that changed.
                    next.pending = outcome.changes.map(\.line)
                    try await commit(next, key: key, store: store)
                    if !outcome.changes.isEmpty { try await output.write(outcome.changes) }
                    if !next.pending.isEmpty {
                        next.pending = []
                        try await commit(next, key: key, store: store)
                    }
                    state = next
                }
                summary.polls += 1
                for change in outcome.changes { summary.changes[change.kind, default: 0] += 1 }
                metrics.completed(startedAt: pollStart, changes: outcome.changes)
                onPoll(.completed(changes: outcome.changes.count, rows: result.rows.count))
                if let schedule = spec.follow?.sweepEvery, spec.incremental != nil, KeySweep.isDue(schedule, state: state, now: Date()) {
                    let (deletions, keys) = try await sweep(&state, key: key, store: store, output: output)
                    summary.changes[.deleted, default: 0] += deletions.count
                    metrics.swept(deletions: deletions)
                    onPoll(.swept(deletions: deletions.count, keys: keys))
                }
            } catch {
                control.withLock { $0.polling = nil }
                if isStopped { break }
                // What no retry mends ends the follow: a wrong pipeline, state and output that
                // cannot be kept, a reader that went away (`cancelled`).
                let lasting: [ScreensPipeError.Code] = [.configuration, .state, .sink, .locked, .cancelled]
                if lasting.contains(error.code) { throw error }
                failures += 1
                summary.failedPolls += 1
                metrics.failed()
                wait = backoff(after: failures)
                environment.logger.info("poll failed, next in \(ConfigUnitText.duration(wait)): \(error.description)")
                onPoll(.failed(error, retryIn: wait))
            }
            await pause(jittered(wait, using: &random))
        }
        return summary
    }

    /// Lets ``stop(signal:)`` interrupt the run of a poll or sweep.
    private func register(_ pipeline: Pipeline) {
        let stopped = control.withLock { control in
            control.polling = pipeline
            return control.stopped
        }
        if stopped { pipeline.interrupt() }
    }

    /// Runs a key sweep after a complete poll and writes its deletions as a poll writes its
    /// changes (committed as pending with the new snapshot, written, cleared). A sweep that
    /// fails throws before anything is committed, so it deletes nothing.
    private func sweep(
        _ state: inout FollowState, key: StateKey, store: any ListStateStore, output: any ChangeOutput
    ) async throws(ScreensPipeError) -> (deletions: [ListChange], keys: Int) {
        guard let fields = state.keyFields else { return ([], 0) }
        var poll = ListPoll(following: try KeySweep.pipeline(sweeping: spec, keyFields: fields), environment: environment)
        poll.readsKeysOnly = true
        let result: ListPoll.Result
        do throws(ScreensPipeError) {
            result = try await poll.run(previous: ListSnapshot(), keyFields: fields, cursor: nil) { [self] pipeline in register(pipeline) }
        } catch {
            control.withLock { $0.polling = nil }
            var failure = error
            failure.message = "the key sweep (which deletes nothing unless complete) failed: " + error.message
            throw failure
        }
        control.withLock { $0.polling = nil }
        let outcome = ChangeDetection.sweep(Set(result.rows.map(\.key)), with: state.snapshot, keyFields: fields, after: state.sequence)
        var next = state
        next.snapshot = outcome.snapshot
        next.sequence += Int64(outcome.changes.count)
        next.sweptAtPoll = state.polls
        next.sweptAt = Int64(Date().timeIntervalSince1970 * 1000)
        next.pending = outcome.changes.map(\.line)
        try await commit(next, key: key, store: store)
        if !outcome.changes.isEmpty { try await output.write(outcome.changes) }
        if !next.pending.isEmpty {
            next.pending = []
            try await commit(next, key: key, store: store)
        }
        state = next
        return (outcome.changes, result.rows.count)
    }

    private func commit(_ state: FollowState, key: StateKey, store: any ListStateStore) async throws(ScreensPipeError) {
        try await store.commit(ListStateRecord(document: state.document, committedAt: Date()), for: key)
    }

    /// The wait after `failures` failed polls in a row: the interval doubled each time, capped.
    func backoff(after failures: Int) -> Duration {
        var wait = options.interval
        for _ in 0..<min(failures, 30) where wait < options.maximumBackoff { wait *= 2 }
        return min(wait, max(options.maximumBackoff, options.interval))
    }

    private func jittered(_ wait: Duration, using random: inout SystemRandomNumberGenerator) -> Duration {
        guard options.jitter > 0 else { return wait }
        let factor = Double.random(in: (1 - options.jitter)...(1 + options.jitter), using: &random)
        return wait * factor
    }

    /// Waits `duration`, or less when stopped; checks for a stop every 50 ms.
    private func pause(_ duration: Duration) async {
        let deadline = ContinuousClock.now + duration
        while !isStopped {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return }
            try? await Task.sleep(for: min(left, .milliseconds(50)))
        }
    }
}
