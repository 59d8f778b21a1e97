import ScreensBus
import Synchronization
import Tracing

/// Wraps a run's outermost fetcher (the cache policy, or the source when there is none) to
/// time each page request for the latency histogram and its span, and to count
/// cache hits and misses. It changes nothing about what the fetcher returns or throws.
struct InstrumentedFetcher: PageFetcher {
    let base: any PageFetcher
    let metrics: RunMetrics
    /// Whether a cache policy answers first, so a page from the source is a miss.
    let cached: Bool

    var chaining: PageChaining { base.chaining }
    var requestsPageSize: Bool { base.requestsPageSize }
    var identity: String { base.identity }
    var summary: String { base.summary }

    func fetch(_ request: PageRequest, provisional: @Sendable (FetchedPage) async -> Void) async throws(ScreensPipeError) -> FetchedPage {
        let clock = ContinuousClock()
        let started = clock.now
        // cache-and-remote answers from the cache first: that is the hit, whatever follows.
        let answeredFromCache = Atomic(false)
        let metrics = self.metrics
        // The page's span: its HTTP attempts (and a cache read) are its children.
        let span = PipelineSpans.start(PipelineSpans.page)
        if span.isRecording { span.attributes[PipelineSpans.Attribute.pageIndex] = request.index }
        do throws(ScreensPipeError) {
            let page = try await PipelineSpans.within(span) { () throws(ScreensPipeError) in
                let page = try await base.fetch(request) { early in
                    if early.origin == .cache, !answeredFromCache.exchange(true, ordering: .relaxed) { metrics.cache(hit: true) }
                    await provisional(early)
                }
                if span.isRecording {
                    span.attributes[PipelineSpans.Attribute.rows] = page.rowsInPage
                    span.attributes[PipelineSpans.Attribute.origin] = page.origin.rawValue
                }
                return page
            }
            metrics.fetched(in: clock.now - started)
            if cached, !answeredFromCache.load(ordering: .relaxed) { metrics.cache(hit: page.origin == .cache) }
            return page
        } catch {
            metrics.fetched(in: clock.now - started)
            throw error
        }
    }

    func plan(_ request: PageRequest) -> [PlannedRequest] { base.plan(request) }

    func shutdown() async { await base.shutdown() }
}
