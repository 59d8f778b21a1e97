internal import Foundation

/// The cache stage: wraps a source's fetcher and answers each page under an offline policy
///. Every page it gets from the source is stored; every page it answers from
/// the cache carries origin `.cache` and the time it was fetched.
///
/// Where a cached list ends: a page that is not stored, under `cache-only` (or as a
/// fallback), is past the end when page 0's stored row count says the list ends before it,
/// or, without a count, when an earlier stored page came back short. It is then answered
/// with an empty page, as the server would, so the pipeline stops there; any other missing
/// page is an error.
public struct CachedPageFetcher: PageFetcher {
    /// The source's own fetcher, asked whenever the policy fetches.
    public let base: any PageFetcher
    /// The database pages are read from and written to.
    public let store: CacheStore
    /// The offline policy every page is answered under.
    public let policy: CachePolicy
    /// How old a page may be for `cache-first`; nil means any age.
    public let ttl: Duration?
    /// The key the pages are stored under; the page index is added per page.
    public let key: CacheKey
    /// The pipeline name stored with each page (`cache clear --pipeline`).
    public let pipeline: String
    /// `run --refresh`: never answer from the cache; fetch and store every page.
    public let refresh: Bool

    /// Throws a `.configuration` error for `refresh` under `cache-only`, which may not fetch.
    public init(
        base: any PageFetcher, store: CacheStore, policy: CachePolicy, ttl: Duration? = nil, key: CacheKey,
        pipeline: String, refresh: Bool = false
    ) throws(ScreensPipeError) {
        if refresh, policy == .cacheOnly {
            throw ScreensPipeError(
                .configuration, "--refresh fetches from the server, which the cache-only policy never does")
        }
        self.base = base
        self.store = store
        self.policy = policy
        self.ttl = ttl
        self.key = key
        self.pipeline = pipeline
        self.refresh = refresh
    }

    /// The cache stage of `spec`: its key, and its `cache:` policy and ttl unless `policy`
    /// overrides the policy (`run --policy`).
    public init(
        base: any PageFetcher, store: CacheStore, spec: PipelineSpec, policy: CachePolicy? = nil, refresh: Bool = false
    ) throws(ScreensPipeError) {
        try self.init(
            base: base, store: store, policy: policy ?? spec.cache?.policy ?? .remoteFirst, ttl: spec.cache?.ttl,
            key: CacheKey(spec: spec), pipeline: spec.name, refresh: refresh)
    }

    /// The base fetcher's chaining.
    public var chaining: PageChaining { base.chaining }

    /// The base fetcher's answer: cached pages were asked for the same way.
    public var requestsPageSize: Bool { base.requestsPageSize }
    /// The base fetcher's identity: caching does not change the answers.
    public var identity: String { base.identity }
    /// The base fetcher's summary with the policy, e.g. `... (cache remote-first, refresh)`.
    public var summary: String { "\(base.summary) (cache \(policy.rawValue)\(refresh ? ", refresh" : ""))" }

    /// The base fetcher's requests; the plan does not read the cache.
    public func plan(_ request: PageRequest) -> [PlannedRequest] { base.plan(request) }
    /// Shuts the base fetcher down.
    public func shutdown() async { await base.shutdown() }

    /// Answers `request` under ``policy`` (always fetching and storing under ``refresh``).
    /// Under `cache-and-remote`, `provisional` first receives the cached copy, when there is one.
    public func fetch(
        _ request: PageRequest, provisional: @Sendable (FetchedPage) async -> Void
    ) async throws(ScreensPipeError) -> FetchedPage {
        if refresh { return try await fetchAndStore(request) }
        switch policy {
        case .remoteOnly:
            return try await fetchAndStore(request)

        case .cacheOnly:
            if let page = try cached(request, lookup: try await store.lookup(key: key.text, request: request)) {
                return page
            }
            throw ScreensPipeError(
                .cache, "page \(request.index) is not in the cache (key \(key.text))", page: request.index)

        case .remoteFirst:
            do {
                return try await fetchAndStore(request)
            } catch where error.isConnectivity {
                return try fallBack(request, after: error, lookup: try await store.lookup(key: key.text, request: request))
            }

        case .cacheFirst:
            let lookup = try await store.lookup(key: key.text, request: request)
            if let page = try cached(request, lookup: lookup), isFresh(page) { return page }
            do {
                return try await fetchAndStore(request)
            } catch where error.isConnectivity {
                return try fallBack(request, after: error, lookup: lookup)
            }

        case .cacheAndRemote:
            let lookup = try await store.lookup(key: key.text, request: request)
            if case .page(let page) = lookup { await provisional(page.fetchedPage(for: request)) }
            do {
                return try await fetchAndStore(request)
            } catch where error.isConnectivity {
                return try fallBack(request, after: error, lookup: lookup)
            }
        }
    }

    // MARK: - Steps

    private func fetchAndStore(_ request: PageRequest) async throws(ScreensPipeError) -> FetchedPage {
        let page = try await base.fetch(request)
        try await store.write(key: key.text, pipeline: pipeline, page: page)
        return page
    }

    /// The answer the cache holds for `request`: the stored page, an empty page past the
    /// end of the list, or nil.
    private func cached(_ request: PageRequest, lookup: CacheLookup) throws(ScreensPipeError) -> FetchedPage? {
        switch lookup {
        case .page(let page):
            return page.fetchedPage(for: request)
        case .endOfList(let fetchedAt):
            return FetchedPage(request: request, rows: [], origin: .cache, fetchedAt: fetchedAt)
        case .miss:
            return nil
        }
    }

    /// After a connectivity failure: the cached answer, whatever its age, or the failure
    /// itself, saying that the cache could not stand in.
    private func fallBack(
        _ request: PageRequest, after error: ScreensPipeError, lookup: CacheLookup
    ) throws(ScreensPipeError) -> FetchedPage {
        if let page = try cached(request, lookup: lookup) { return page }
        var error = error
        error.message += "; page \(request.index) is not in the cache either"
        if error.page == nil { error.page = request.index }
        throw error
    }

    private func isFresh(_ page: FetchedPage) -> Bool {
        guard let ttl else { return true }
        let seconds = Double(ttl.components.seconds) + Double(ttl.components.attoseconds) / 1e18
        return Date().timeIntervalSince(page.fetchedAt) <= seconds
    }
}
