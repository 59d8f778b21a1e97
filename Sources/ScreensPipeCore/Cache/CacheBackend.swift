public import Logging
import ScreensBus

/// Where cached pages live: ``CacheStore`` (SQLite, one file, the default) or
/// ``PostgresCacheStore`` (one database that many processes on many machines share).
///
/// Both keep the same pages with the same meaning: a write replaces the page of a key in
/// one transaction, a page that shows where the list ends removes the key's pages past it,
/// and ``lookup(key:request:rowsAsTexts:)`` answers the same for the same writes. The cache suites run
/// against both.
public protocol CacheBackend: Sendable {
    /// Where the pages are, for messages: a file path, or a PostgreSQL URL without its password.
    var location: String { get }

    /// Stores `page` under `key`, replacing what was there, in one transaction; `snapshot`
    /// names the load (one run's fetches) that stored it.
    func write(key: String, pipeline: String, page: FetchedPage, snapshot: String?) async throws(ScreensPipeError)
    /// The stored page `page` of `key`, or nil.
    func read(key: String, page: Int) async throws(ScreensPipeError) -> CachedPage?
    /// What the backend knows about `request`'s page of `key`: the page, the end of the list, or nothing.
    ///
    /// With `rowsAsTexts`, the page's rows are kept as their stored texts, checked but
    /// parsed only when read (a run whose stages change no row); without, they are parsed
    /// as they are read.
    func lookup(key: String, request: PageRequest, rowsAsTexts: Bool) async throws(ScreensPipeError) -> CacheLookup
    /// One summary per key, ordered by key.
    func entries() async throws(ScreensPipeError) -> [CacheEntrySummary]
    /// Totals over the whole cache.
    func stats() async throws(ScreensPipeError) -> CacheStats
    /// Removes the pages stored by `pipeline` and/or under keys starting with `keyPrefix`
    /// (neither: every page); returns how many were removed.
    func clear(pipeline: String?, keyPrefix: String?) async throws(ScreensPipeError) -> Int
    /// The stored asset class name ids of `names` on `server`; names not stored are absent.
    func classNameIds(server: String, names: [String]) async throws(ScreensPipeError) -> [String: Int64]
    /// Stores asset class name ids for `server`, replacing what was there.
    func storeClassNameIds(server: String, _ ids: [String: Int64]) async throws(ScreensPipeError)

    /// Decides who loads `key` from the server when several processes share the cache.
    ///
    /// `mayServeCache` is false when the run must fetch whatever happens (`remote-only`,
    /// `--refresh`): it then waits its turn and refreshes. A backend only one machine uses
    /// answers ``CacheRefreshTurn/solo``.
    func beginRefresh(key: String, mayServeCache: Bool) async throws(ScreensPipeError) -> CacheRefreshTurn
    /// The same, telling what it waits for through `logger` (the run's, so its level and
    /// format apply); by default ``beginRefresh(key:mayServeCache:)``.
    func beginRefresh(key: String, mayServeCache: Bool, logger: Logger) async throws(ScreensPipeError) -> CacheRefreshTurn
    /// Lets go of connections and background work; the backend is not used afterwards.
    func close() async
}

extension CacheBackend {
    /// What the backend knows about `request`'s page of `key`, its rows parsed.
    public func lookup(key: String, request: PageRequest) async throws(ScreensPipeError) -> CacheLookup {
        try await lookup(key: key, request: request, rowsAsTexts: false)
    }
    /// No coordination: one machine, one file.
    public func beginRefresh(key: String, mayServeCache: Bool) async throws(ScreensPipeError) -> CacheRefreshTurn { .solo }
    /// ``beginRefresh(key:mayServeCache:)``: a backend that waits for nobody has nothing to tell.
    public func beginRefresh(key: String, mayServeCache: Bool, logger: Logger) async throws(ScreensPipeError) -> CacheRefreshTurn {
        try await beginRefresh(key: key, mayServeCache: mayServeCache)
    }
    /// Nothing to let go of.
    public func close() async {}
}

/// Who loads a list from the server, when processes share one cache.
public enum CacheRefreshTurn: Sendable {
    /// Nobody else is involved: fetch, and store each page as it comes.
    case solo
    /// This process refreshes the list; its pages go through the lease, and become visible
    /// to every process at once when the list is complete.
    case refresh(any CacheRefreshLease)
    /// Another process is refreshing the list, or just did: answer from the last complete
    /// snapshot without asking the server.
    case serveCache
}

/// One process's turn to refresh one list: it holds the list's lock until the load is
/// complete (or the process ends, or dies: the lock goes with its connection), and keeps
/// the previous snapshot visible to every reader until then.
public protocol CacheRefreshLease: Sendable {
    /// Stages `page` of the load; when the staged pages make a complete list, publishes them
    /// in one transaction in place of the previous snapshot and lets go of the lock.
    /// `endsChain` says a chained source named no next page after this one.
    func write(pipeline: String, page: FetchedPage, snapshot: String, endsChain: Bool) async throws(ScreensPipeError)
    /// Lets go of the lock, dropping staged pages of a load that did not complete.
    func release() async
    /// Whether another process held the list's lock when this turn was asked for, so it may
    /// have stored a fresh copy meanwhile (`cache-first` then reads that copy instead).
    var followedAnotherLoad: Bool { get }
}

extension CacheRefreshLease {
    /// Assumed, unless the backend knows better: the re-check it leads to costs one lookup.
    public var followedAnotherLoad: Bool { true }
}
