import ScreensBus
public import Logging

/// What a ``ScreensPipeClient`` keeps open for every run made with its environment: one
/// HTTP client (libcurl's connection cache and I/O thread) and each cache store a run
/// opened, by where it is. A run borrows them and leaves them open; the client closes them.
package final class SharedResources: Sendable {
    package let client: HTTPClient
    let stores: OpenCacheStores

    init(configuration: HTTPClient.Configuration) {
        client = HTTPClient(configuration: configuration)
        stores = OpenCacheStores()
    }

    /// Closes every store and the HTTP client; runs still using them fail (`cancelled`).
    func shutdown() async {
        await stores.closeAll()
        await client.shutdown()
    }
}

/// An HTTP client for one run: the long-lived client's, which the run leaves open, or one
/// of the run's own, which ``release()`` shuts down.
package struct HTTPClientLease: Sendable {
    package let client: HTTPClient
    /// Whether the run started the client, so ends it.
    package let owned: Bool

    package func release() async {
        if owned { await client.shutdown() }
    }
}

extension PipelineEnvironment {
    /// The client a run sends with: the shared one when a ``ScreensPipeClient`` made this
    /// environment, else a new one with `configuration`.
    package func httpClient(_ configuration: @autoclosure () -> HTTPClient.Configuration = .init()) -> HTTPClientLease {
        if let shared { return HTTPClientLease(client: shared.client, owned: false) }
        return HTTPClientLease(client: HTTPClient(configuration: configuration()), owned: true)
    }

    /// The cache store `spec` names: the shared one at the same place (opened by the first
    /// run that needed it), or one of the run's own, which the run closes.
    package func openCache(_ spec: CacheSpec) async throws(ScreensPipeError) -> any CacheBackend {
        let variables = storageVariables
        guard let shared else { return try await CacheBackends.open(spec: spec, environment: variables) }
        return try await shared.stores.store(at: try CacheStorePlace(spec, environment: variables)) { () async throws(ScreensPipeError) in
            try await CacheBackends.open(spec: spec, environment: variables)
        }
    }
}

/// Where a cache store is: two specs that name the same file or database share one store.
struct CacheStorePlace: Hashable, Sendable {
    private enum Place: Hashable {
        case file(String)
        case postgres(PostgresTarget)
    }

    private let place: Place

    init(_ spec: CacheSpec, environment: [String: String]) throws(ScreensPipeError) {
        if let target = spec.postgres {
            place = .postgres(target.resolvingPassword(environment: environment))
        } else if let path = spec.path {
            place = .file(path)
        } else {
            place = .file(try CacheLocation.runPath(environment: environment))
        }
    }
}

/// The stores a client opened, each once: runs that start together wait for the one open.
actor OpenCacheStores {
    private var opened: [CacheStorePlace: Task<any CacheBackend, any Error>] = [:]
    private var closed = false

    func store(
        at place: CacheStorePlace, open: @escaping @Sendable () async throws(ScreensPipeError) -> any CacheBackend
    ) async throws(ScreensPipeError) -> any CacheBackend {
        guard !closed else {
            throw .cancelled("the screens-pipe client was shut down; its cache stores are closed")
        }
        let opening: Task<any CacheBackend, any Error>
        if let existing = opened[place] {
            opening = existing
        } else {
            opening = Task { try await open() }
            opened[place] = opening
        }
        do {
            return BorrowedCacheStore(base: try await opening.value)
        } catch {
            // A store that did not open is tried again by the next run.
            if opened[place] == opening { opened[place] = nil }
            throw error as? ScreensPipeError ?? .cache("cannot open the cache: \(error)")
        }
    }

    func closeAll() async {
        closed = true
        let stores = opened.values
        opened = [:]
        for opening in stores {
            if let store = try? await opening.value { await store.close() }
        }
    }
}

/// A shared store as one run sees it: everything but ``close()``, which the client does.
struct BorrowedCacheStore: CacheBackend {
    let base: any CacheBackend

    var location: String { base.location }

    func write(key: String, pipeline: String, page: FetchedPage, snapshot: String?) async throws(ScreensPipeError) {
        try await base.write(key: key, pipeline: pipeline, page: page, snapshot: snapshot)
    }
    func read(key: String, page: Int) async throws(ScreensPipeError) -> CachedPage? { try await base.read(key: key, page: page) }
    func lookup(key: String, request: PageRequest, rowsAsTexts: Bool) async throws(ScreensPipeError) -> CacheLookup {
        try await base.lookup(key: key, request: request, rowsAsTexts: rowsAsTexts)
    }
    func entries() async throws(ScreensPipeError) -> [CacheEntrySummary] { try await base.entries() }
    func stats() async throws(ScreensPipeError) -> CacheStats { try await base.stats() }
    func clear(pipeline: String?, keyPrefix: String?) async throws(ScreensPipeError) -> Int {
        try await base.clear(pipeline: pipeline, keyPrefix: keyPrefix)
    }
    func classNameIds(server: String, names: [String]) async throws(ScreensPipeError) -> [String: Int64] {
        try await base.classNameIds(server: server, names: names)
    }
    func storeClassNameIds(server: String, _ ids: [String: Int64]) async throws(ScreensPipeError) {
        try await base.storeClassNameIds(server: server, ids)
    }
    func beginRefresh(key: String, mayServeCache: Bool) async throws(ScreensPipeError) -> CacheRefreshTurn {
        try await base.beginRefresh(key: key, mayServeCache: mayServeCache)
    }
    func beginRefresh(key: String, mayServeCache: Bool, logger: Logger) async throws(ScreensPipeError) -> CacheRefreshTurn {
        try await base.beginRefresh(key: key, mayServeCache: mayServeCache, logger: logger)
    }
    /// Left open for the client's other runs.
    func close() async {}
}
