internal import CoreMetrics
import ScreensBus

/// The metrics one run emits through swift-metrics, each labelled with the pipeline's name.
///
/// The library only emits: the process that embeds it chooses the backend
/// (`MetricsSystem.bootstrap`, or ``PipelineEnvironment/metricsFactory`` for one pipeline),
/// and without one every metric is a no-op. The names follow Prometheus conventions; the
/// list, with what each counts, is in the Observability article.
struct RunMetrics: Sendable {
    let pipeline: String
    let factory: any MetricsFactory
    private let rowsReceived: Counter
    private let rowsSelected: Counter
    private let bytes: Counter
    private let retries: Counter
    private let cacheHits: Counter
    private let cacheMisses: Counter
    private let pageDuration: CoreMetrics.Timer

    /// The metric names, as a backend sees them.
    enum Name {
        static let pages = "screens_pipe_pages_total"
        static let rowsReceived = "screens_pipe_rows_received_total"
        static let rowsSelected = "screens_pipe_rows_selected_total"
        static let bytes = "screens_pipe_response_bytes_total"
        static let retries = "screens_pipe_retries_total"
        static let errors = "screens_pipe_errors_total"
        static let pageDuration = "screens_pipe_page_duration_seconds"
        static let cacheHits = "screens_pipe_cache_hits_total"
        static let cacheMisses = "screens_pipe_cache_misses_total"
        static let prefetchLimit = "screens_pipe_prefetch_limit"
    }

    init(pipeline: String, factory: (any MetricsFactory)?) {
        self.pipeline = pipeline
        let factory = factory ?? MetricsSystem.factory
        self.factory = factory
        let labels = [("pipeline", pipeline)]
        rowsReceived = Counter(label: Name.rowsReceived, dimensions: labels, factory: factory)
        rowsSelected = Counter(label: Name.rowsSelected, dimensions: labels, factory: factory)
        bytes = Counter(label: Name.bytes, dimensions: labels, factory: factory)
        retries = Counter(label: Name.retries, dimensions: labels, factory: factory)
        cacheHits = Counter(label: Name.cacheHits, dimensions: labels, factory: factory)
        cacheMisses = Counter(label: Name.cacheMisses, dimensions: labels, factory: factory)
        pageDuration = CoreMetrics.Timer(label: Name.pageDuration, dimensions: labels, preferredDisplayUnit: .seconds, factory: factory)
    }

    /// A page delivered to convert and filter: counted by origin, with its rows.
    func delivered(_ page: FetchedPage, selected: Int) {
        Counter(label: Name.pages, dimensions: [("pipeline", pipeline), ("origin", page.origin.rawValue)], factory: factory).increment()
        rowsReceived.increment(by: page.rowsInPage)
        rowsSelected.increment(by: selected)
    }

    /// An error event of the run (a page's, a row's or the run's), by kind.
    func failed(_ error: ScreensPipeError) {
        Counter(label: Name.errors, dimensions: [("pipeline", pipeline), ("kind", error.code.name)], factory: factory).increment()
    }

    /// One page fetched (from the source or the cache) in `duration`.
    func fetched(in duration: Duration) {
        pageDuration.recordNanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// A response body of `count` bytes arrived.
    func received(bytes count: Int) { bytes.increment(by: count) }

    /// A request is about to be sent again.
    func retried() { retries.increment() }

    /// A page request the cache answered (`hit`) or passed on to the source.
    func cache(hit: Bool) { (hit ? cacheHits : cacheMisses).increment() }

    /// `prefetch: auto` set the pages in flight to `limit`.
    func prefetchLimit(_ limit: Int) {
        Gauge(label: Name.prefetchLimit, dimensions: [("pipeline", pipeline)], factory: factory).record(limit)
    }
}
