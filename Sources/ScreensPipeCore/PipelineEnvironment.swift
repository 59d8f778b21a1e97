public import CoreMetrics
public import Logging
import ScreensBus

/// What a pipeline needs from the process around it.
public struct PipelineEnvironment: Sendable {
    /// Environment variables (`${VAR}` in pipeline files, `SCREENS_PIPE_CACHE_DIR`, `NO_COLOR`).
    public var variables: [String: String]
    /// Starts the bundled sandbox portal for `server: sandbox`; nil (the default) refuses
    /// such a pipeline, and production code links no sandbox.
    public var sandbox: (any SandboxLauncher)?
    /// Where a pipeline whose `cache:` names no `path:` keeps its SQLite cache, list state,
    /// write journal and locks. The default, `.fromVariables`, never writes under the home
    /// directory: such a pipeline is refused unless ``variables`` name a directory.
    public var cacheDirectory: CacheDirectory
    /// The wall clock the cache's `ttl` is measured on: whether a cached page is still
    /// fresh, and how old a page delivered from the cache is. Pages are stamped with the
    /// system's time when fetched, so a clock set ahead ages the cache. The system's by
    /// default; a test sets its own to age a cache.
    public var clock: WallClock
    /// `run --refresh`: skip cache reads, fetch and store every page.
    public var refresh: Bool
    /// Colours in table output.
    public var colorOutput: Bool
    /// The width, in terminal columns, table output fits into (a terminal's width); nil
    /// never narrows a column below its own width (output to a pipe or a file).
    public var tableWidth: Int?
    /// Called before each retry of a page request (progress lines, logs).
    public var onRetry: (@Sendable (RetryNotice) -> Void)?
    /// Where the source logs each HTTP request at `debug` and each retry at `info`
    /// (requests appear with secrets redacted). Discards everything by default.
    public var logger: Logger
    /// Where the run's metrics go (see the Observability article); nil uses the process's
    /// `MetricsSystem` (a no-op until the embedder bootstraps one).
    public var metricsFactory: (any MetricsFactory)?
    /// Records the run's spans for a Chrome trace (`run --trace`); nil records nothing.
    public var trace: TraceRecorder?
    /// `run --full-refresh`: an incremental pipeline ignores its stored cursor, delivers
    /// every row and commits a new cursor.
    public var fullRefresh = false
    /// Where incremental pipelines keep their cursor; nil uses the cache's database
    /// (``SQLiteListStateStore``).
    public var stateStore: (any ListStateStore)?
    /// `run --resume`: continue the interrupted run whose output (`sink.output` or `-o`)
    /// was kept as `.partial`, from its last checkpoint (see the Incremental Loads article,
    /// "Resuming a run").
    public var resume = false
    /// The cache snapshot id the single list's pages are stored under, and whether pages
    /// already stored under it are read instead of fetched (a resumed run); nil: a new id.
    var cacheSnapshot: (id: String, reuse: Bool)?
    /// Told the size of each HTTP response body (metrics).
    var onResponseBody: (@Sendable (Int) -> Void)?
    /// The HTTP client and cache stores of the ``ScreensPipeClient`` that made this
    /// environment, which its runs borrow; nil: each run opens and closes its own.
    package var shared: SharedResources?

    /// An environment with no variables, no sandbox, no default cache directory, the
    /// system clock and a logger that discards everything, unless given.
    public init(
        variables: [String: String] = [:], sandbox: (any SandboxLauncher)? = nil, refresh: Bool = false,
        colorOutput: Bool = false, onRetry: (@Sendable (RetryNotice) -> Void)? = nil, logger: Logger? = nil,
        metricsFactory: (any MetricsFactory)? = nil, trace: TraceRecorder? = nil, tableWidth: Int? = nil,
        cacheDirectory: CacheDirectory = .fromVariables, clock: WallClock = .system
    ) {
        self.cacheDirectory = cacheDirectory
        self.clock = clock
        self.tableWidth = tableWidth
        self.metricsFactory = metricsFactory
        self.trace = trace
        self.variables = variables
        self.sandbox = sandbox
        self.refresh = refresh
        self.colorOutput = colorOutput
        self.onRetry = onRetry
        self.logger = logger ?? Logger(label: "screens-pipe", factory: { _ in SwiftLogNoOpLogHandler() })
    }
}
