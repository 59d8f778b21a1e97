internal import Foundation
package import Logging
import Synchronization

/// The cache stage: wraps a source's fetcher and answers each page under an offline policy.
/// Every page it gets from the source is stored with this run's snapshot id; every page it
/// answers from the cache carries origin `.cache` and the time it was fetched.
///
/// One fetcher serves one run, and a run never mixes two loads of a list:
/// - a fallback to the cache (a connectivity failure under `remote-first`, `cache-first` or
///   `cache-and-remote`) happens only while no page of the run came from the server; it is
///   announced once (a warning with the cached data's age), and from then on every page
///   comes from the cache, from the same snapshot as the first cached page, without asking
///   the server again. A page of another snapshot, or a missing one, is an error;
/// - a connectivity failure after a page came from the server is an error, not a fallback;
/// - `cache-only` reads one snapshot too: the one page 0 belongs to;
/// - `cache-first` answers page by page (a fresh cached page is used, a stale or missing one
///   fetched), and says once when the list it delivered mixes cached and fresh pages.
///
/// A page that cannot be stored (disk full, read-only file) is still delivered; the run
/// warns once and goes on.
///
/// Where a cached list ends: a page that is not stored, under `cache-only` (or as a
/// fallback), is past the end when page 0's stored row count says the list ends before it,
/// or, without a count, when an earlier stored page came back short. It is then answered
/// with an empty page, as the server would, so the pipeline stops there; any other missing
/// page is an error.
package struct CachedPageFetcher: PageFetcher {
    /// The source's own fetcher, asked whenever the policy fetches.
    package let base: any PageFetcher
    /// The database pages are read from and written to.
    package let store: any CacheBackend
    /// The offline policy every page is answered under.
    package let policy: CachePolicy
    /// How old a page may be for `cache-first`; nil means any age.
    package let ttl: Duration?
    /// The clock `ttl` is measured on (``PipelineEnvironment/clock``).
    package var clock: WallClock = .system
    /// The key the pages are stored under; the page index is added per page.
    package let key: CacheKey
    /// The pipeline name stored with each page (`cache clear --pipeline`).
    package let pipeline: String
    /// `run --refresh`: never answer from the cache; fetch and store every page.
    package let refresh: Bool
    /// Where the fallback, mixed-list and write-failure warnings go.
    package let logger: Logger
    /// This run's snapshot id, stored with every page it fetches.
    package let snapshot: String
    /// A resumed run: pages already stored under ``snapshot`` (by the interrupted load) are
    /// read from the cache instead of fetched, whatever the policy.
    package let reusesSnapshot: Bool
    /// Whether cached pages keep their rows as texts, checked but parsed only when read:
    /// set when no stage of the run reads row values (``RowReadPlan``).
    package var keepsRowsAsTexts = false
    private let run = RunState()
    /// Who loads the list from the server when processes share the cache: decided once per
    /// run, before the first request goes out, and awaited by every fetch (prefetches too).
    private let turn = TurnState()

    /// The run's ``CacheRefreshTurn``, asked of the store once.
    private final class TurnState: Sendable {
        let decision = Mutex<Task<Result<CacheRefreshTurn, ScreensPipeError>, Never>?>(nil)
    }

    /// What this run has answered from, shared by the concurrent page fetches.
    private final class RunState: Sendable {
        enum Source: Sendable, Equatable {
            case undecided
            case server
            /// Answering from the cache: the snapshot of the first cached page.
            case cache(snapshot: String?)
        }

        struct State {
            var source = Source.undecided
            var servedFromCache = false
            var servedFromServer = false
            var warnedMixed = false
            var warnedWrite = false
            var announcedServing = false
        }

        let state = Mutex(State())
    }

    /// Throws a `.configuration` error for `refresh` under `cache-only`, which may not fetch.
    package init(
        base: any PageFetcher, store: any CacheBackend, policy: CachePolicy, ttl: Duration? = nil, key: CacheKey,
        pipeline: String, refresh: Bool = false, logger: Logger = Logger(label: "screens-pipe.cache"),
        snapshot: (id: String, reuse: Bool)? = nil
    ) throws(ScreensPipeError) {
        if refresh, policy == .cacheOnly {
            throw ScreensPipeError.configuration("--refresh fetches from the server, which the cache-only policy never does")
        }
        self.base = base
        self.store = store
        self.policy = policy
        self.ttl = ttl
        self.key = key
        self.pipeline = pipeline
        self.refresh = refresh
        self.logger = logger
        self.snapshot = snapshot?.id ?? UUID().uuidString
        reusesSnapshot = snapshot?.reuse ?? false
    }

    /// The cache stage of `spec`: its key (built from `base`'s identity), and its `cache:` policy and ttl unless `policy`
    /// overrides the policy (`run --policy`).
    package init(
        base: any PageFetcher, store: any CacheBackend, spec: PipelineSpec, policy: CachePolicy? = nil, refresh: Bool = false,
        logger: Logger = Logger(label: "screens-pipe.cache"), snapshot: (id: String, reuse: Bool)? = nil
    ) throws(ScreensPipeError) {
        try self.init(
            base: base, store: store, policy: policy ?? spec.cache?.policy ?? .remoteFirst, ttl: spec.cache?.ttl,
            key: CacheKey(spec: spec, identity: base.identity), pipeline: spec.name, refresh: refresh, logger: logger, snapshot: snapshot)
    }

    /// What the store holds for `request`'s page.
    private func stored(_ request: PageRequest) async throws(ScreensPipeError) -> CacheLookup {
        try await store.lookup(key: key.text, request: request, rowsAsTexts: keepsRowsAsTexts)
    }

    /// The base fetcher's chaining.
    package var chaining: PageChaining { base.chaining }

    /// The base fetcher's answer: cached pages were asked for the same way.
    package var requestsPageSize: Bool { base.requestsPageSize }
    /// The base fetcher's identity: caching does not change the answers.
    package var identity: String { base.identity }
    /// The base fetcher's summary with the policy, e.g. `... (cache remote-first, refresh)`.
    package var summary: String { "\(base.summary) (cache \(policy.rawValue)\(refresh ? ", refresh" : ""))" }

    /// The base fetcher's requests; the plan does not read the cache.
    package func plan(_ request: PageRequest) -> [PlannedRequest] { base.plan(request) }
    /// Shuts the base fetcher down, gives up a refresh turn that did not complete (its lock
    /// and staged pages), and closes the store.
    package func shutdown() async {
        await base.shutdown()
        if let decided = turn.decision.withLock({ $0 }), case .success(.refresh(let lease)) = await decided.value {
            await lease.release()
        }
        await store.close()
    }

    /// Answers `request` under ``policy`` (always fetching and storing under ``refresh``).
    /// Under `cache-and-remote`, `provisional` first receives the cached copy, when there is one.
    package func fetch(
        _ request: PageRequest, provisional: @Sendable (FetchedPage) async -> Void
    ) async throws(ScreensPipeError) -> FetchedPage {
        if refresh { return try await fetchAndStore(request) }
        if reusesSnapshot, case .page(let stored) = try await stored(request), stored.snapshot == snapshot {
            // Fetched by the interrupted load this run resumes: the same load, not asked again.
            noteServed(fromCache: true)
            return stored.fetchedPage(for: request)
        }
        if case .cache = run.state.withLock({ $0.source }), policy != .remoteOnly {
            // A fallback happened: the rest of the list comes from the same snapshot.
            return try await fromSnapshot(request)
        }
        switch policy {
        case .remoteOnly:
            return try await fetchAndStore(request)

        case .cacheOnly:
            return try await fromSnapshot(request)

        case .remoteFirst:
            do {
                return try await fetchAndStore(request)
            } catch where error.isConnectivity {
                return try fallBack(request, after: error, lookup: try await stored(request))
            }

        case .cacheFirst:
            let lookup = try await stored(request)
            if let page = try cached(request, lookup: lookup), isFresh(page) {
                noteServed(fromCache: true)
                return page
            }
            do {
                return try await fetchAndStore(request)
            } catch where error.isConnectivity {
                return try fallBack(request, after: error, lookup: lookup)
            }

        case .cacheAndRemote:
            let lookup = try await stored(request)
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
        let lease: (any CacheRefreshLease)?
        switch try await refreshTurn() {
        case .solo:
            lease = nil
        case .refresh(let held):
            lease = held
        case .serveCache:
            return try await fromSnapshot(request)
        }
        let page = try await base.fetch(request)
        noteServed(fromCache: false)
        // A page an on-response rule skipped or ended is no page of the list: a later run
        // must meet the rule again, not an empty page from the cache.
        guard page.responseAction == nil else { return page }
        do throws(ScreensPipeError) {
            if let lease {
                let endsChain = base.chaining == .chained && (page.continuation ?? "").isEmpty
                try await lease.write(pipeline: pipeline, page: page, snapshot: snapshot, endsChain: endsChain)
            } else {
                try await store.write(key: key.text, pipeline: pipeline, page: page, snapshot: snapshot)
            }
        } catch {
            // The page is good; only the copy for later runs is lost. Deliver it, say so once.
            let first = run.state.withLock { state -> Bool in
                defer { state.warnedWrite = true }
                return !state.warnedWrite
            }
            if first {
                logger.warning("cannot store pages in the cache (\(error.message)); the run goes on without caching them")
            }
        }
        return page
    }

    /// This run's turn, asked of the store by the first fetch and awaited by the others.
    /// Another process refreshing the list turns the run into a cached one (announced once).
    private func refreshTurn() async throws(ScreensPipeError) -> CacheRefreshTurn {
        let mayServeCache = !refresh && policy != .remoteOnly
        let decision = turn.decision.withLock { decision in
            if let decision { return decision }
            let asked = Task { [self] () -> Result<CacheRefreshTurn, ScreensPipeError> in
                do throws(ScreensPipeError) {
                    return .success(try await decideTurn(mayServeCache: mayServeCache))
                } catch {
                    return .failure(error)
                }
            }
            decision = asked
            return asked
        }
        let decided = try await decision.value.get()
        if case .serveCache = decided {
            let first = run.state.withLock { state -> Bool in
                defer { state.announcedServing = true }
                return !state.announcedServing
            }
            if first {
                logger.info("another process refreshed this list or is refreshing it; serving the last complete snapshot from \(store.location)")
            }
        }
        return decided
    }

    /// The store's answer; under `cache-first`, a turn to refresh is given back when another
    /// process published a fresh copy between this run's lookup and the lock.
    private func decideTurn(mayServeCache: Bool) async throws(ScreensPipeError) -> CacheRefreshTurn {
        let turn = try await store.beginRefresh(key: key.text, mayServeCache: mayServeCache, logger: logger)
        guard case .refresh(let lease) = turn, mayServeCache, policy == .cacheFirst, lease.followedAnotherLoad else { return turn }
        let first = PageRequest(index: 0, startRow: 0, endRow: 0, includesRowCount: true)
        if case .page(let published) = try await store.lookup(key: key.text, request: first, rowsAsTexts: true), isFresh(published.fetchedAt) {
            await lease.release()
            return .serveCache
        }
        return turn
    }

    /// Records where a page came from; under `cache-first`, warns once when the delivered list
    /// mixes cached and fresh pages.
    private func noteServed(fromCache: Bool) {
        let mixed = run.state.withLock { state -> Bool in
            if fromCache { state.servedFromCache = true } else { state.servedFromServer = true }
            if state.source == .undecided, !fromCache { state.source = .server }
            guard policy == .cacheFirst, state.servedFromCache, state.servedFromServer, !state.warnedMixed else { return false }
            state.warnedMixed = true
            return true
        }
        if mixed {
            logger.warning(
                "the list mixes cached pages with pages fetched now (cache-first: some pages were stale or missing); use --refresh for one fresh load")
        }
    }

    /// A page from the cache snapshot the run reads: the same load as the first cached page
    /// (page 0's under cache-only). Missing pages are errors, as are pages of another load.
    private func fromSnapshot(_ request: PageRequest) async throws(ScreensPipeError) -> FetchedPage {
        let lookup = try await stored(request)
        guard let page = try cached(request, lookup: lookup) else {
            throw ScreensPipeError(
                .cache, "page \(request.index) is not in the cache (key \(key.text))", page: request.index)
        }
        if case .page(let stored) = lookup {
            let expected = run.state.withLock { state -> String? in
                if case .cache(let chosen) = state.source { return chosen }
                state.source = .cache(snapshot: stored.snapshot)
                return stored.snapshot
            }
            if let expected, let own = stored.snapshot, expected != own {
                throw ScreensPipeError(
                    .cache,
                    "page \(request.index) in the cache is from another load than the pages before it (fetched \(EventTime.text(stored.fetchedAt))); a list is never delivered mixed from two loads: run again when the server is reachable",
                    page: request.index)
            }
        }
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

    /// After a connectivity failure: the cached answer, whatever its age, when no page of the
    /// run came from the server yet (the run then reads that snapshot to the end), or the
    /// failure itself, saying why the cache could not stand in.
    private func fallBack(
        _ request: PageRequest, after error: ScreensPipeError, lookup: CacheLookup
    ) throws(ScreensPipeError) -> FetchedPage {
        var error = error
        if error.page == nil { error.page = request.index }
        if run.state.withLock({ $0.source == .server }) {
            error.message += "; not answered from the cache: earlier pages of this run came from the server, and a list is never delivered mixed from two loads"
            throw error
        }
        guard let page = try cached(request, lookup: lookup) else {
            error.message += "; page \(request.index) is not in the cache either"
            throw error
        }
        let (first, expected) = run.state.withLock { state -> (Bool, String?) in
            if case .cache(let chosen) = state.source { return (false, chosen) }
            let chosen: String? = if case .page(let stored) = lookup { stored.snapshot } else { nil }
            state.source = .cache(snapshot: chosen)
            return (true, chosen)
        }
        if case .page(let stored) = lookup, let expected, let own = stored.snapshot, expected != own {
            throw ScreensPipeError(
                .cache,
                "page \(request.index) in the cache is from another load than the pages before it; a list is never delivered mixed from two loads",
                page: request.index)
        }
        if first {
            logger.warning(
                "\(error.message.prefix(200)): delivering the list cached \(Self.age(of: page.fetchedAt, now: clock.now())) ago (fetched \(EventTime.text(page.fetchedAt)))")
        }
        return page
    }

    /// How long before `now` (the environment's clock) `date` was, for people: `3 h 12 min`,
    /// `45 s`, `2 days 4 h`.
    static func age(of date: Date, now: Date) -> String {
        let seconds = max(0, Int(min(now.timeIntervalSince(date), 1e12)))
        switch seconds {
        case ..<60: return "\(seconds) s"
        case ..<3600: return "\(seconds / 60) min"
        case ..<86_400: return "\(seconds / 3600) h \(seconds / 60 % 60) min"
        default:
            let days = seconds / 86_400
            return "\(days) \(days == 1 ? "day" : "days") \(seconds / 3600 % 24) h"
        }
    }

    private func isFresh(_ page: FetchedPage) -> Bool { isFresh(page.fetchedAt) }

    private func isFresh(_ fetchedAt: Date) -> Bool {
        guard let ttl else { return true }
        let seconds = Double(ttl.components.seconds) + Double(ttl.components.attoseconds) / 1e18
        return clock.now().timeIntervalSince(fetchedAt) <= seconds
    }
}
