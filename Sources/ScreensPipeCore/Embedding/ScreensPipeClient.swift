import ScreensBus

/// One HTTP connection pool and one set of open cache stores for every pipeline a service
/// runs, as `PostgresClient` is one pool for many queries: make it once, run pipelines,
/// sessions and writes with its ``environment`` for as long as the service lives, and
/// ``shutdown()`` it last.
///
/// A ``Pipeline`` made with a plain ``PipelineEnvironment`` starts an HTTP client (libcurl's
/// connection cache and an I/O thread) and opens its cache store for one run, and closes
/// both when the run ends: right for a command, wasteful for a service that refreshes
/// lists every few seconds, which would open a TCP and TLS connection to the portal and a
/// database connection for each run. Runs made with the client's environment borrow its
/// client and stores instead: connections to a portal are reused from one run to the next
/// and between runs at once, and each cache (a SQLite file or a PostgreSQL database, by
/// where it is) is opened once.
///
/// @Snippet(path: "screens-pipe/Snippets/LongLivedClient", slice: "client")
///
/// What stays per run: the sandbox a `server: sandbox` pipeline starts, the list state
/// and write journal (small, opened where a run needs them), and a fan-out's cache store
/// (closing it is what gives up the refresh locks of a fan-out that failed).
///
/// A run still under way when the client shuts down fails (`cancelled`); a run started
/// afterwards fails at its first request or cache read.
public final class ScreensPipeClient: Sendable {
    /// The pool's limits.
    public struct Configuration: Sendable, Hashable {
        /// Connections open to one host at once, for all runs together; more requests wait
        /// for a free one. A pipeline's `prefetch` still bounds its own pages in flight.
        public var maxConnectionsPerHost: Int
        /// Idle connections kept open for the next request.
        public var maxCachedConnections: Int

        /// 16 connections per host (the ceiling of `prefetch: auto`), 64 kept idle.
        public init(maxConnectionsPerHost: Int = 16, maxCachedConnections: Int = 64) {
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxCachedConnections = maxCachedConnections
        }
    }

    /// The environment every run of this client is made with: the one given, plus the
    /// shared client and stores.
    public let environment: PipelineEnvironment
    private let resources: SharedResources

    /// Starts the HTTP client (its I/O thread); stores open as runs first need them.
    ///
    /// - Parameters:
    ///   - environment: What the runs get (variables, cache directory, logger, metrics).
    ///   - configuration: The connection pool's limits, at least 1 each.
    public init(environment: PipelineEnvironment = .current(), configuration: Configuration = Configuration()) {
        resources = SharedResources(
            configuration: HTTPClient.Configuration(
                maxConnectionsPerHost: max(1, configuration.maxConnectionsPerHost),
                maxCachedConnections: max(1, configuration.maxCachedConnections)))
        var environment = environment
        environment.shared = resources
        self.environment = environment
    }

    /// A pipeline from a pipeline file, run on this client (see
    /// ``Pipeline/init(file:overrides:sink:environment:bus:)``).
    ///
    /// - Throws: ``ScreensPipeError``: every problem of the file.
    public func pipeline(
        file path: String, overrides: [String] = [], sink: SinkDestination? = nil, bus: EventBus = EventBus()
    ) throws(ScreensPipeError) -> Pipeline {
        try Pipeline(file: path, overrides: overrides, sink: sink, environment: environment, bus: bus)
    }

    /// A pipeline from the text of a pipeline file, run on this client (see
    /// ``Pipeline/init(yaml:name:overrides:sink:environment:bus:)``).
    ///
    /// - Throws: ``ScreensPipeError``, located in the text.
    public func pipeline(
        yaml text: String, name: String = "<string>", overrides: [String] = [], sink: SinkDestination? = nil, bus: EventBus = EventBus()
    ) throws(ScreensPipeError) -> Pipeline {
        try Pipeline(yaml: text, name: name, overrides: overrides, sink: sink, environment: environment, bus: bus)
    }

    /// A pipeline from a checked spec, run on this client.
    public func pipeline(spec: PipelineSpec, bus: EventBus = EventBus()) -> Pipeline {
        Pipeline(spec: spec, environment: environment, bus: bus)
    }

    /// Closes the cache stores and the connections, and stops the I/O thread (suspending,
    /// never blocking a thread). Safe to call twice.
    public func shutdown() async {
        await resources.shutdown()
    }
}
