extension Pipeline {
    /// Loads the whole list (or up to the filter's `limit`), publishing every event, writing
    /// the spec's sink, and finishing the bus at the end.
    ///
    /// Returns the summary of a run that delivered every row (or whose output's reader left
    /// on purpose, `| head`: ``RunSummary/endedWithoutFailure``). Anything else throws a
    /// ``ScreensPipeError``, so a plain `try await pipeline.run()` never takes a failed run
    /// for a good one:
    ///
    /// - a run that cannot start (a bad expression, an output that cannot be created, a
    ///   sandbox that does not start, ``ScreensPipeError/alreadyRan(pipeline:)``) throws its
    ///   error, with no ``ScreensPipeError/summary``;
    /// - a run that failed (an HTTP or authentication error such as a 401, a malformed page,
    ///   a row that did not convert, a sink that could not write) throws its first failure,
    ///   with its page, request (secrets redacted) and status, and the run's
    ///   ``ScreensPipeError/summary``: the rows delivered before it, every failure counted;
    /// - a run stopped by cancelling its task, or by ``interrupt(signal:)``, throws code
    ///   ``ScreensPipeError/Code/cancelled``, with the summary of what was delivered (its
    ///   ``RunSummary/ending`` names the signal). ``ScreensPipeError/isCancellation`` tells
    ///   it from a failure.
    ///
    /// Rows published before a failure stay delivered: every subscriber has seen them.
    ///
    /// ```swift
    /// do {
    ///     let summary = try await pipeline.run()
    ///     print("\(summary.selected) rows")
    /// } catch where error.isCancellation {
    ///     print("stopped after \(error.summary?.selected ?? 0) rows")
    /// } catch {
    ///     print("failed: \(error)")  // page 0: HTTP 401 ... (POST http://.../invoke)
    /// }
    /// ```
    public func run() async throws(ScreensPipeError) -> RunSummary {
        let summary = try await runReturningFailures()
        if let failure = summary.failure { throw failure }
        return summary
    }
}

extension RunSummary {
    /// The error ``Pipeline/run()`` throws for this summary, with the summary attached: its
    /// first failure that is not a cancellation, else its first; nil when the run ended
    /// without failure.
    package var failure: ScreensPipeError? {
        if endedWithoutFailure { return nil }
        // `record` keeps the first failure of any kind, so with none kept there was none,
        // and a run that did not end without failure and had none was interrupted.
        var error =
            failures.first(where: { $0.code != .cancelled }) ?? failures.first
            ?? .cancelled("the run was interrupted\(ending.signal.map { " by \($0)" } ?? "") after \(selected) rows")
        error.finishedRun = FinishedRun(summary: self)
        return error
    }
}

extension ScreensPipeError {
    /// The summary of the run this error ended, when ``Pipeline/run()`` threw it for a run
    /// that had started: the pages and rows delivered before it, every failure counted, and
    /// where a file output was kept (`<path>.partial`). Nil for an error thrown before the
    /// run started, and for the errors inside a summary.
    public var summary: RunSummary? { finishedRun?.summary }

    /// Whether this error says the run was cancelled (its task was cancelled, or
    /// ``Pipeline/interrupt(signal:)`` stopped it) rather than that something failed.
    public var isCancellation: Bool { code == .cancelled }
}

/// A run's summary held by reference, so an error that carries one stays small (errors
/// travel through every stage's typed throws and every row's verdict).
final class FinishedRun: Sendable {
    let summary: RunSummary

    init(summary: RunSummary) { self.summary = summary }
}

/// The run an error ended, as the error stores it: no part of the error's identity. Any two
/// are equal and hash alike, so the error ``Pipeline/run()`` throws equals its own copy in
/// `summary.failures` (which carries no summary): an error's `==` and hash say what went
/// wrong and where, not which run it ended.
struct AttachedRun: Sendable, Hashable {
    var run: FinishedRun?

    static func == (lhs: AttachedRun, rhs: AttachedRun) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
