import Synchronization

/// A followed list's changes as an async sequence: what `run --follow` writes, for Swift.
///
/// ```swift
/// for try await change in pipeline.changes(every: .seconds(30)) {
///     print(change.kind, change.sequence, change.key)
/// }
/// ```
///
/// Each iteration follows the list with a ``ListFollower`` of its own: the first load, then
/// a poll every interval (with jitter, and a doubling wait after failed polls, which are
/// logged to the environment's logger and tried again), the same follow state in the cache's
/// database as the command line's, so a restarted follow neither repeats nor skips a change.
///
/// - A change counts as handled when the loop asks for the next one: a poll's batch is
///   cleared from the follow state once the loop body ran for all of it. A loop left
///   mid-batch (`break`, a `throw`, a crash) gets the rest of that batch again at the next
///   follow, with the same ``ListChange/sequence`` numbers; pass `after:` the last number
///   the consumer holds to skip those it has.
/// - Cancelling the task that iterates ends the sequence cleanly: the poll under way is
///   abandoned, and `next()` returns nil once the state of the last complete poll is
///   committed and the list's lock released.
/// - The sequence throws what no wait mends (a configuration or state error, another
///   follower holding the list after `cache.lock-wait`), as ``ListFollower/run(output:onPoll:)``.
public struct ListChanges: AsyncSequence, Sendable {
    public typealias Element = ListChange
    public typealias Failure = ScreensPipeError

    /// The followed pipeline.
    public let spec: PipelineSpec
    /// What each poll's run takes from the process around it.
    public let environment: PipelineEnvironment
    /// The interval, jitter, backoff and key.
    public let options: FollowOptions
    /// The last change number the consumer already holds; nil when it holds none it can name.
    public let lastSequence: Int64?

    /// The changes of `spec`'s list.
    public init(spec: PipelineSpec, environment: PipelineEnvironment, options: FollowOptions, after lastSequence: Int64? = nil) {
        self.spec = spec
        self.environment = environment
        self.options = options
        self.lastSequence = lastSequence
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(follow: Follow(ListFollower(spec: spec, environment: environment, options: options), after: lastSequence))
    }

    /// Starts the follow at the first ``next()`` and stops it when the consumer goes away.
    public struct Iterator: AsyncIteratorProtocol {
        let follow: Follow

        public mutating func next() async throws(ScreensPipeError) -> ListChange? {
            try await follow.next()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ScreensPipeError) -> ListChange? {
            try await follow.next()
        }
    }

    /// One iteration's follower and the handoff it writes to; a dropped iterator stops it.
    final class Follow: Sendable {
        private let follower: ListFollower
        private let handoff: ChangeHandoff
        private let task = Mutex<Task<Void, Never>?>(nil)

        init(_ follower: ListFollower, after lastSequence: Int64?) {
            self.follower = follower
            handoff = ChangeHandoff(after: lastSequence)
        }

        deinit {
            stop()
        }

        func next() async throws(ScreensPipeError) -> ListChange? {
            start()
            let result = await withTaskCancellationHandler {
                await handoff.next()
            } onCancel: {
                stop()
            }
            return try result.get()
        }

        private func start() {
            task.withLock { task in
                guard task == nil else { return }
                task = Task { [follower, handoff] in
                    do throws(ScreensPipeError) {
                        _ = try await follower.run(output: handoff)
                        handoff.finish(nil)
                    } catch {
                        handoff.finish(error)
                    }
                }
            }
        }

        private func stop() {
            handoff.cancel()
            follower.stop()
        }
    }
}

extension Pipeline {
    /// This pipeline's list followed as it changes: every row of a first load as `added`,
    /// then each row `added`, `updated` or `deleted` by a poll every `interval` (see
    /// ``ListChanges`` and <doc:FollowingAList>). The pipeline itself is not run: its spec
    /// and environment are followed, its sink is not written.
    ///
    /// - Parameters:
    ///   - interval: The time between polls (at least ``FollowOptions/minimumInterval``).
    ///   - key: The fields that identify a row; nil: the first of `entryId`,
    ///     `resourcePrimKey`, `recordId` and `id` the first row holds.
    ///   - lastSequence: The last change number the consumer already holds, so a batch a
    ///     crash interrupted is handed over from the change after it.
    public func changes(every interval: Duration, key: [String]? = nil, after lastSequence: Int64? = nil) -> ListChanges {
        changes(FollowOptions(interval: interval, keyFields: key), after: lastSequence)
    }

    /// This pipeline's list followed with `options` (see ``changes(every:key:after:)``).
    public func changes(_ options: FollowOptions, after lastSequence: Int64? = nil) -> ListChanges {
        ListChanges(spec: spec, environment: environment, options: options, after: lastSequence)
    }
}
