import ScreensBus

/// The outcome of a run.
public struct RunSummary: Sendable, Hashable {
    /// Pages delivered (converted and filtered).
    public var pages = 0
    /// Rows in the delivered pages.
    public var rows = 0
    /// Rows that passed the filter.
    public var selected = 0
    /// The run's errors, in order (each was also an `error` event): every error of a page,
    /// the sink or the run, and the first ``rowFailureSampleSize`` errors of single rows.
    /// A list of a million bad rows keeps a sample, not a million errors.
    public private(set) var failures: [ScreensPipeError] = []
    /// How many errors the run had, all of them counted.
    public private(set) var failureCount = 0
    /// How many errors of each kind (`convert`, `filter`, `http`...), all of them counted.
    public private(set) var failureCounts: [String: Int] = [:]
    /// Rows left out by `on-invalid: skip` because they did not convert.
    public var skipped = 0

    /// How many row errors ``failures`` keeps.
    public static let rowFailureSampleSize = 100

    /// Counts `failure` and keeps it unless the sample of row errors is full.
    public mutating func record(_ failure: ScreensPipeError) {
        failureCount += 1
        failureCounts[failure.code.description, default: 0] += 1
        if failure.row != nil {
            rowFailuresKept += 1
            if rowFailuresKept > Self.rowFailureSampleSize { return }
        }
        failures.append(failure)
    }

    private var rowFailuresKept = 0
    /// The reader closed the output (`| head`): the run stopped early, on purpose.
    public var outputClosed = false
    /// Where a file sink's data ended up (the final path, or `.partial` after a failure).
    public var outputPath: String?
    /// What a `postgres` sink wrote to its table (committed, whether the run succeeded or not).
    public var tableDelivery: TableDelivery?
    /// Why the run stopped, how the list ended, and the interrupting signal (as in `finished`).
    public var ending = RunEnding()

    /// Whether every row was delivered.
    public var succeeded: Bool { failureCount == 0 && ending.reason != .interrupted }

    /// Whether the run did what it was asked: every row delivered (up to the filter's
    /// `limit`), or the reader of the output left on purpose (`| head`) and nothing else
    /// went wrong. ``Pipeline/run()`` returns such a summary and throws for any other.
    public var endedWithoutFailure: Bool {
        if ending.reason == .interrupted && failureCount == 0 { return false }
        if outputClosed && failureCount == failureCounts[ScreensPipeError.Code.cancelled.description, default: 0] { return true }
        return failureCount == 0
    }
}

/// How a run ended, as its `finished` event says.
public struct RunEnding: Sendable, Hashable {
    /// Why the run stopped; nil until it did.
    public var reason: RunStopReason?
    /// The signal that interrupted it (`SIGINT`, `SIGTERM`, `SIGHUP`), when one did.
    public var signal: String?
    /// How the end of the list was recognised, when it was reached.
    public var end: ListEnd?
    /// Why that end may not be the real end of the list (a short page without a row count).
    public var endWarning: String?

    /// An ending that says nothing yet.
    public init() {}
}

/// What a `postgres` sink did to its table in one run.
public struct TableDelivery: Sendable, Hashable {
    /// The table, as the sink names it (`bookmarks`, `schema.table`).
    public var table: String
    /// The database, without its password (`postgres://user@host:port/database`).
    public var database: String
    /// Rows upserted (committed), a key counted once per batch.
    public var upserted = 0
    /// Keys of rows the `deleted:` marker picked, deleted from the table.
    public var deleted = 0
    /// `mode: mirror`: whether the rows the list no longer has were deleted (only after a
    /// complete, clean list).
    public var mirrored = false

    /// A delivery that has written nothing yet.
    public init(table: String, database: String) {
        self.table = table
        self.database = database
    }
}
