public import Logging
public import ScreensBus
public import ScreensPipeCore
public import ServiceLifecycle

/// Runs a pipeline as a `Service` in a `ServiceGroup`: once, or again on an interval (a
/// periodic pull to refresh), with graceful shutdown.
///
/// ```swift
/// let service = try PipelineService(
///     file: "pipelines/bookmarks.yaml",          // sink: .discard unless told otherwise
///     environment: .current(sandbox: BundledSandbox()),
///     schedule: .every(.seconds(300)),
///     delegate: BookmarkIndex())
/// let group = ServiceGroup(services: [service], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// Each run builds a fresh ``Pipeline`` from the same spec (a pipeline runs once), attaches
/// the delegate, and waits until the delegate has seen the run's last event. A graceful
/// shutdown cancels the run in flight (transfers stop, `finished` is published), the
/// delegate's delivery, or the wait for the next run, and ``run()`` returns normally, even
/// when the delegate has stopped reading (it waits in a method that honours cancellation).
public struct PipelineService: Service {
    /// When the service runs its pipeline.
    public enum Schedule: Sendable, Hashable {
        /// One run; the service returns when it ends.
        case once
        /// A run now, then another `interval` after each run ends, until shutdown.
        case every(Duration)
        /// The list followed as it changes, until shutdown: every change written to the
        /// service's change output, as `run --follow` does (see ``init(following:environment:options:output:logger:)``).
        case follow(FollowOptions)
    }

    /// The pipeline each run is built from.
    public let spec: PipelineSpec
    /// The environment every run gets (variables, sandbox, logger).
    public let environment: PipelineEnvironment
    /// When runs happen.
    public let schedule: Schedule
    private let delegate: (any ListDelegate)?
    /// Where a `.follow` schedule writes its changes.
    private let changeOutput: (any ChangeOutput)?
    private let logger: Logger

    /// A service running `spec`.
    ///
    /// - Parameters:
    ///   - delegate: Attached to every run before it starts; sees each of its events.
    ///   - logger: Where the service notes runs that failed and runs that could not start.
    public init(
        spec: PipelineSpec, environment: PipelineEnvironment = .current(), schedule: Schedule = .once,
        delegate: (any ListDelegate)? = nil, logger: Logger = Logger(label: "screens-pipe.service")
    ) {
        self.spec = spec
        self.environment = environment
        self.schedule = schedule
        self.delegate = delegate
        self.changeOutput = nil
        self.logger = logger
    }

    /// A service following `spec`'s list until shutdown: a first load, then a poll every
    /// `options.interval`, each change (`added`, `updated`, `deleted`) written to `output`
    /// once, in order, with the follow state in the cache's database (see
    /// ``ScreensPipeCore/ListFollower``). A graceful shutdown abandons the poll under way,
    /// lets a batch being written finish, and ``run()`` returns with the state of the last
    /// complete poll committed; a service started again writes only what changed since.
    ///
    /// ```swift
    /// let service = PipelineService(
    ///     following: pipeline.spec, environment: pipeline.environment,
    ///     options: FollowOptions(interval: .seconds(30)), output: BookmarkChanges(), logger: logger)
    /// ```
    public init(
        following spec: PipelineSpec, environment: PipelineEnvironment = .current(), options: FollowOptions,
        output: any ChangeOutput, logger: Logger = Logger(label: "screens-pipe.service")
    ) {
        self.spec = spec
        self.environment = environment
        self.schedule = .follow(options)
        self.delegate = nil
        self.changeOutput = output
        self.logger = logger
    }

    /// A service running the pipeline file at `path`, loaded and checked now, as
    /// ``ScreensPipe/Pipeline/init(file:overrides:sink:environment:bus:)`` does.
    ///
    /// - Throws: ``ScreensPipe/ScreensPipeError`` for a file with mistakes.
    public init(
        file path: String, overrides: [String] = [], sink: SinkDestination? = .discard,
        environment: PipelineEnvironment = .current(), schedule: Schedule = .once,
        delegate: (any ListDelegate)? = nil, logger: Logger = Logger(label: "screens-pipe.service")
    ) throws(ScreensPipeError) {
        let pipeline = try Pipeline(file: path, overrides: overrides, sink: sink, environment: environment)
        self.init(spec: pipeline.spec, environment: environment, schedule: schedule, delegate: delegate, logger: logger)
    }

    /// Runs the schedule until it is done or the service group shuts down.
    ///
    /// - Throws: With `.once`, the error of a run that could not start, or
    ///   ``PipelineRunFailed`` for a run that did not deliver every row. With `.every`,
    ///   failed runs are logged and the next run still happens. With `.follow`, failed polls
    ///   are logged and tried again; what no retry mends (a state or output that cannot be
    ///   kept, another follower of the list) is thrown. A graceful shutdown is not an error.
    public func run() async throws {
        if case .follow(let options) = schedule { return try await follow(options) }
        while true {
            let outcome = await cancelWhenGracefulShutdown { [self] in await runOnce() }
            if Task.isShuttingDownGracefully || Task.isCancelled { return }
            switch (schedule, outcome) {
            case (.once, .success(let summary)):
                if let failed = PipelineRunFailed(summary: summary) { throw failed }
                return
            case (.once, .failure(let error)):
                throw error
            case (.follow, _):
                return
            case (.every(let interval), let outcome):
                note(outcome)
                do {
                    try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
                } catch {
                    // Shutdown or cancellation while waiting for the next run.
                    return
                }
                if Task.isShuttingDownGracefully { return }
            }
        }
    }

    /// Follows the list until a graceful shutdown or cancellation stops the follower.
    private func follow(_ options: FollowOptions) async throws {
        guard let changeOutput else {
            throw ScreensPipeError.configuration("a PipelineService with schedule .follow writes changes: create it with init(following:options:output:)")
        }
        let follower = ListFollower(spec: spec, environment: environment, options: options)
        let summary: ListFollower.Summary
        do {
            summary = try await withTaskCancellationOrGracefulShutdownHandler {
                try await follower.run(output: changeOutput) { [logger, spec] report in
                    if case .failed(let error, let wait) = report {
                        logger.warning("poll of \(spec.name) failed, next in \(wait): \(error)", metadata: ["pipeline": "\(spec.name)"])
                    }
                }
            } onCancelOrGracefulShutdown: {
                follower.stop()
            }
        } catch let error as ScreensPipeError {
            // An output that honours cancellation may give up its batch on shutdown: it stays pending.
            if error.code == .cancelled, Task.isShuttingDownGracefully || Task.isCancelled { return }
            throw error
        }
        let counts = ChangeKind.allCases.map { "\(summary.changes[$0, default: 0]) \($0.rawValue)" }.joined(separator: ", ")
        logger.info("followed \(spec.name) for \(summary.polls) polls: \(counts)", metadata: ["pipeline": "\(spec.name)"])
    }

    /// One run of a fresh pipeline, with the delegate attached for all of it.
    ///
    /// Cancellation (a graceful shutdown) reaches the delegate's task too: a delegate that
    /// stopped reading, or waits in one of its methods, cannot keep the service from
    /// returning, as long as that method honours cancellation.
    private func runOnce() async -> Result<RunSummary, ScreensPipeError> {
        let pipeline = Pipeline(spec: spec, environment: environment)
        let delivery = delegate.map { pipeline.attach($0) }
        let result: Result<RunSummary, ScreensPipeError>
        do throws(ScreensPipeError) {
            result = .success(try await pipeline.runReturningFailures())
        } catch {
            result = .failure(error)
        }
        await withTaskCancellationHandler {
            await delivery?.value
        } onCancel: {
            delivery?.cancel()
        }
        return result
    }

    private func note(_ outcome: Result<RunSummary, ScreensPipeError>) {
        switch outcome {
        case .success(let summary):
            if let failed = PipelineRunFailed(summary: summary) {
                logger.error(
                    "run of \(spec.name) failed: \(failed)", metadata: ["pipeline": "\(spec.name)", "errors": "\(summary.failureCount)"])
                return
            }
            logger.debug(
                "run of \(spec.name) delivered \(summary.selected) rows",
                metadata: ["pipeline": "\(spec.name)", "pages": "\(summary.pages)"])
        case .failure(let error):
            logger.error("run of \(spec.name) could not start: \(error)", metadata: ["pipeline": "\(spec.name)"])
        }
    }
}

/// A run of a ``PipelineService`` that did not deliver every row.
public struct PipelineRunFailed: Error, Sendable, CustomStringConvertible {
    /// The run's outcome; `failures` holds each error (each was also an `error` event).
    public var summary: RunSummary

    /// The error `Pipeline.run()` throws for such a run, its ``summary`` attached: its first
    /// failure that is not a cancellation, else its first, or why it stopped.
    public let failure: ScreensPipeError

    /// The failure of `summary`'s run; nil for a run that ended without failure.
    init?(summary: RunSummary) {
        guard let failure = summary.failure else { return nil }
        self.summary = summary
        self.failure = failure
    }

    /// ``failure``, and how many more errors there were.
    public var description: String {
        let more = summary.failureCount - 1
        return more > 0 ? "\(failure) (and \(more) more error\(more == 1 ? "" : "s"))" : "\(failure)"
    }
}

/// ServiceLifecycle logs each service's description at debug level: it names the pipeline
/// and its schedule, never the spec's credentials.
extension PipelineService: CustomStringConvertible, CustomReflectable {
    /// `PipelineService(pipeline: bookmarks, schedule: once)`.
    public var description: String { "PipelineService(pipeline: \(spec.name), schedule: \(schedule))" }

    /// The pipeline's name and schedule only.
    public var customMirror: Mirror {
        Mirror(self, children: ["pipeline": spec.name, "schedule": schedule], displayStyle: .struct)
    }
}
