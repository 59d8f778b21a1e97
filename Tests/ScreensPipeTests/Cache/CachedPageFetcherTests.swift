import Foundation
import ScreensBus
import ScreensPipe
import ScreensPipeTesting
import Testing

/// Each offline policy with the source up, down (connectivity) and answering 401/404, over a
/// real SQLite file and a real PostgreSQL database (when the test server runs).
@Suite struct CachedPageFetcherTests {
    let directory: TemporaryDirectory
    private let opened: OpenedCacheBackend
    /// The cache under test: the SQLite file, or a fresh PostgreSQL database after `use(.postgres)`.
    var store: any CacheBackend { opened.store }
    let source = ScriptedSource(rows: CacheFixtures.rows(9))
    let key = CacheKey(text: "test-key")

    init() throws {
        directory = try TemporaryDirectory()
        opened = OpenedCacheBackend(try CacheStore(path: directory.file("cache.sqlite")))
    }

    /// Runs the test on `backend`.
    private func use(_ backend: CacheBackendKind) async throws { try await opened.use(backend, in: directory) }

    private func fetcher(_ policy: CachePolicy, ttl: Duration? = nil, refresh: Bool = false) throws(ScreensPipeError) -> CachedPageFetcher {
        try CachedPageFetcher(base: source, store: store, policy: policy, ttl: ttl, key: key, pipeline: "bookmarks", refresh: refresh)
    }

    /// Fills the cache with the list as it is now, through the remote-only policy.
    private func warmCache(fetchedAt: Date = Date()) async throws {
        source.fetchedAt = fetchedAt
        _ = try await CacheFixtures.loadAll(try fetcher(.remoteOnly))
    }

    private func expectError(
        _ code: ScreensPipeError.Code, _ body: () async throws -> Void,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async {
        do {
            try await body()
            Issue.record("expected a \(code) error", sourceLocation: sourceLocation)
        } catch {
            #expect((error as? ScreensPipeError)?.code == code, "\(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: remote-only

    @Test(arguments: CacheBackendKind.available)
    func remoteOnlyFetchesAndStores(backend: CacheBackendKind) async throws {
        try await use(backend)
        let pages = try await CacheFixtures.loadAll(try fetcher(.remoteOnly))
        #expect(pages.allSatisfy { $0.origin == .remote })
        #expect(pages.flatMap(\.rows) == source.rows)
        #expect(try await store.read(key: key.text, page: 2)?.rows == Array(source.rows[7...]))
        #expect(try await store.read(key: key.text, page: 0)?.rowCount == 9)
    }

    @Test(arguments: CacheBackendKind.available)
    func remoteOnlyFailsWhenTheSourceFailsEvenWithACache(backend: CacheBackendKind) async throws {
        try await use(backend)
        try await warmCache()
        let fetcher = try fetcher(.remoteOnly)
        source.mode = .down
        await expectError(.connectivity) { _ = try await fetcher.fetch(CacheFixtures.request(0)) }
        source.mode = .unauthorized
        await expectError(.authentication) { _ = try await fetcher.fetch(CacheFixtures.request(0)) }
        source.mode = .notFound
        await expectError(.http) { _ = try await fetcher.fetch(CacheFixtures.request(0)) }
    }

    // MARK: cache-only

    @Test(arguments: CacheBackendKind.available)
    func cacheOnlyNeverTouchesTheSource(backend: CacheBackendKind) async throws {
        try await use(backend)
        let stamp = Date(timeIntervalSince1970: 1_600_000_000)
        try await warmCache(fetchedAt: stamp)
        let fetchesBefore = source.fetches
        for mode in [ScriptedSource.Mode.up, .down, .unauthorized, .notFound] {
            source.mode = mode
            let pages = try await CacheFixtures.loadAll(try fetcher(.cacheOnly))
            #expect(pages.flatMap(\.rows) == CacheFixtures.rows(9))
            #expect(pages.allSatisfy { $0.origin == .cache && $0.fetchedAt == stamp })
            #expect(pages.first?.rowCount == 9)
        }
        #expect(source.fetches == fetchesBefore)
    }

    @Test(arguments: CacheBackendKind.available)
    func cacheOnlyMissingPageIsACacheError(backend: CacheBackendKind) async throws {
        try await use(backend)
        let fetcher = try fetcher(.cacheOnly)
        do {
            _ = try await fetcher.fetch(CacheFixtures.request(0))
            Issue.record("an empty cache has no page 0")
        } catch {
            #expect(error.code == .cache)
            #expect(error.page == 0)
            #expect(error.message == "page 0 is not in the cache (key test-key)")
        }
        // Page 0 alone is cached: page 1 is inside the list (count 9) and missing.
        _ = try await self.fetcher(.remoteOnly).fetch(CacheFixtures.request(0))
        await expectError(.cache) { _ = try await fetcher.fetch(CacheFixtures.request(1)) }
    }

    @Test(arguments: CacheBackendKind.available)
    func cacheOnlyPastTheCachedEndTheListEnds(backend: CacheBackendKind) async throws {
        try await use(backend)
        try await warmCache()
        // Pages in flight past the end (prefetch) get an empty page, as from the server.
        let past = try await fetcher(.cacheOnly).fetch(CacheFixtures.request(5))
        #expect(past.rows.isEmpty)
        #expect(past.origin == .cache)
    }

    // MARK: remote-first

    @Test(arguments: CacheBackendKind.available)
    func remoteFirstPrefersTheServer(backend: CacheBackendKind) async throws {
        try await use(backend)
        try await warmCache()
        source.rows = CacheFixtures.rows(9, tag: "v2")
        let pages = try await CacheFixtures.loadAll(try fetcher(.remoteFirst))
        #expect(pages.allSatisfy { $0.origin == .remote })
        #expect(pages.flatMap(\.rows) == CacheFixtures.rows(9, tag: "v2"))
        #expect(try await store.read(key: key.text, page: 1)?.rows == Array(CacheFixtures.rows(9, tag: "v2")[4..<7]))
    }

    @Test(arguments: CacheBackendKind.available)
    func remoteFirstFallsBackOnConnectivityFailures(backend: CacheBackendKind) async throws {
        try await use(backend)
        let stamp = Date(timeIntervalSince1970: 1_650_000_000)
        try await warmCache(fetchedAt: stamp)
        source.mode = .down
        let pages = try await CacheFixtures.loadAll(try fetcher(.remoteFirst))
        #expect(pages.flatMap(\.rows) == CacheFixtures.rows(9))
        #expect(pages.allSatisfy { $0.origin == .cache && $0.fetchedAt == stamp })
    }

    @Test(arguments: CacheBackendKind.available)
    func remoteFirstDownWithoutCacheReportsTheConnectivityFailure(backend: CacheBackendKind) async throws {
        try await use(backend)
        source.mode = .down
        do {
            _ = try await fetcher(.remoteFirst).fetch(CacheFixtures.request(0))
            Issue.record("nothing to fall back on")
        } catch {
            #expect(error.code == .connectivity)
            #expect(error.message.contains("not in the cache"))
        }
    }

    @Test(arguments: CacheBackendKind.available, [ScriptedSource.Mode.unauthorized, .notFound])
    func remoteFirstDoesNotFallBackOnHTTPErrors(backend: CacheBackendKind, mode: ScriptedSource.Mode) async throws {
        try await use(backend)
        try await warmCache()
        source.mode = mode
        await expectError(mode == .unauthorized ? .authentication : .http) {
            _ = try await fetcher(.remoteFirst).fetch(CacheFixtures.request(0))
        }
    }

    // MARK: cache-first

    @Test(arguments: CacheBackendKind.available)
    func cacheFirstServesAFreshCacheWithoutFetching(backend: CacheBackendKind) async throws {
        try await use(backend)
        try await warmCache()
        let fetchesBefore = source.fetches
        source.rows = CacheFixtures.rows(9, tag: "v2")
        let pages = try await CacheFixtures.loadAll(try fetcher(.cacheFirst, ttl: .seconds(3600)))
        #expect(pages.flatMap(\.rows) == CacheFixtures.rows(9))
        #expect(pages.allSatisfy { $0.origin == .cache })
        #expect(source.fetches == fetchesBefore)
    }

    @Test(arguments: CacheBackendKind.available)
    func cacheFirstFetchesOnAMissAndStores(backend: CacheBackendKind) async throws {
        try await use(backend)
        let pages = try await CacheFixtures.loadAll(try fetcher(.cacheFirst))
        #expect(pages.allSatisfy { $0.origin == .remote })
        #expect(try await store.read(key: key.text, page: 0)?.rows == Array(source.rows[0..<4]))
        source.mode = .down
        #expect(try await CacheFixtures.loadAll(try fetcher(.cacheFirst)).allSatisfy { $0.origin == .cache })
    }

    @Test(arguments: CacheBackendKind.available)
    func cacheFirstRefetchesAnEntryOlderThanTheTTL(backend: CacheBackendKind) async throws {
        try await use(backend)
        // An hour of ttl, not a minute: in a loaded full test run this test can stall for
        // more than a minute between storing the pages and reading them again.
        try await warmCache(fetchedAt: Date().addingTimeInterval(-7200))
        source.rows = CacheFixtures.rows(9, tag: "v2")
        source.fetchedAt = Date()
        let pages = try await CacheFixtures.loadAll(try fetcher(.cacheFirst, ttl: .seconds(3600)))
        #expect(pages.allSatisfy { $0.origin == .remote })
        #expect(pages.flatMap(\.rows) == CacheFixtures.rows(9, tag: "v2"))
        // Stored again: within the ttl now.
        let again = try await CacheFixtures.loadAll(try fetcher(.cacheFirst, ttl: .seconds(3600)))
        #expect(again.allSatisfy { $0.origin == .cache })
        #expect(again.flatMap(\.rows) == CacheFixtures.rows(9, tag: "v2"))
    }

    @Test(arguments: CacheBackendKind.available)
    func cacheFirstUsesAStaleEntryWhenTheServerIsDown(backend: CacheBackendKind) async throws {
        try await use(backend)
        // Whole seconds: the database keeps Unix seconds, which a Date's 2001-based
        // fraction does not always survive to the last bit.
        let stamp = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 7200).rounded())
        try await warmCache(fetchedAt: stamp)
        source.mode = .down
        let pages = try await CacheFixtures.loadAll(try fetcher(.cacheFirst, ttl: .seconds(60)))
        #expect(pages.flatMap(\.rows) == CacheFixtures.rows(9))
        #expect(pages.allSatisfy { $0.origin == .cache && $0.fetchedAt == stamp })
    }

    @Test(arguments: CacheBackendKind.available)
    func cacheFirstMissWithTheServerDownIsAnError(backend: CacheBackendKind) async throws {
        try await use(backend)
        source.mode = .down
        await expectError(.connectivity) { _ = try await fetcher(.cacheFirst).fetch(CacheFixtures.request(0)) }
    }

    @Test(arguments: CacheBackendKind.available, [ScriptedSource.Mode.unauthorized, .notFound])
    func cacheFirstStaleEntryAndHTTPErrorRethrows(backend: CacheBackendKind, mode: ScriptedSource.Mode) async throws {
        try await use(backend)
        try await warmCache(fetchedAt: Date().addingTimeInterval(-7200))
        source.mode = mode
        await expectError(mode == .unauthorized ? .authentication : .http) {
            _ = try await fetcher(.cacheFirst, ttl: .seconds(60)).fetch(CacheFixtures.request(0))
        }
    }

    // MARK: cache-and-remote

    @Test(arguments: CacheBackendKind.available)
    func cacheAndRemoteDeliversTheCachedPageThenTheFreshOne(backend: CacheBackendKind) async throws {
        try await use(backend)
        let stamp = Date(timeIntervalSince1970: 1_700_000_000)
        try await warmCache(fetchedAt: stamp)
        source.rows = CacheFixtures.rows(9, tag: "v2")
        source.fetchedAt = Date()
        let provisional = ProvisionalPages()
        let final = try await fetcher(.cacheAndRemote).fetch(CacheFixtures.request(1), provisional: provisional.callback)

        #expect(provisional.all.count == 1)
        #expect(provisional.all.first?.origin == .cache)
        #expect(provisional.all.first?.fetchedAt == stamp)
        #expect(provisional.all.first?.rows == Array(CacheFixtures.rows(9)[4..<7]))
        #expect(final.origin == .remote)
        #expect(final.rows == Array(CacheFixtures.rows(9, tag: "v2")[4..<7]))
        // PostgreSQL publishes a load when it is complete; one page is not.
        let stored = backend.publishesEachPage ? final.rows : Array(CacheFixtures.rows(9)[4..<7])
        #expect(try await store.read(key: key.text, page: 1)?.rows == stored)
    }

    @Test(arguments: CacheBackendKind.available)
    func cacheAndRemoteWithoutACachedPageDeliversOnlyTheFreshOne(backend: CacheBackendKind) async throws {
        try await use(backend)
        let provisional = ProvisionalPages()
        let final = try await fetcher(.cacheAndRemote).fetch(CacheFixtures.request(0), provisional: provisional.callback)
        #expect(provisional.all.isEmpty)
        #expect(final.origin == .remote)
    }

    @Test(arguments: CacheBackendKind.available)
    func cacheAndRemoteServerDownMakesTheCachedPageFinal(backend: CacheBackendKind) async throws {
        try await use(backend)
        try await warmCache()
        source.mode = .down
        let provisional = ProvisionalPages()
        let final = try await fetcher(.cacheAndRemote).fetch(CacheFixtures.request(0), provisional: provisional.callback)
        #expect(provisional.all.count == 1)
        #expect(final.origin == .cache)
        #expect(final.rows == Array(CacheFixtures.rows(9)[0..<4]))
        #expect(final.rowCount == 9)

        let emptyDirectory = try TemporaryDirectory()
        let empty = try await backend.open(in: emptyDirectory)
        let uncached = try CachedPageFetcher(base: source, store: empty, policy: .cacheAndRemote, key: key, pipeline: "p")
        await expectError(.connectivity) { _ = try await uncached.fetch(CacheFixtures.request(0)) }
    }

    @Test(arguments: CacheBackendKind.available, [ScriptedSource.Mode.unauthorized, .notFound])
    func cacheAndRemoteHTTPErrorsRethrowAfterTheProvisionalPage(backend: CacheBackendKind, mode: ScriptedSource.Mode) async throws {
        try await use(backend)
        try await warmCache()
        source.mode = mode
        let provisional = ProvisionalPages()
        await expectError(mode == .unauthorized ? .authentication : .http) {
            _ = try await fetcher(.cacheAndRemote).fetch(CacheFixtures.request(0), provisional: provisional.callback)
        }
        #expect(provisional.all.count == 1)
    }

    // MARK: refresh

    @Test(arguments: CacheBackendKind.available)
    func refreshSkipsCacheReadsAndStores(backend: CacheBackendKind) async throws {
        try await use(backend)
        try await warmCache()
        source.rows = CacheFixtures.rows(9, tag: "v2")
        let provisional = ProvisionalPages()
        for policy in [CachePolicy.cacheFirst, .cacheAndRemote, .remoteFirst] {
            let page = try await fetcher(policy, refresh: true).fetch(CacheFixtures.request(0), provisional: provisional.callback)
            #expect(page.origin == .remote)
        }
        #expect(provisional.all.isEmpty)
        // PostgreSQL publishes a load when it is complete: finish one.
        if !backend.publishesEachPage { _ = try await CacheFixtures.loadAll(try fetcher(.remoteFirst, refresh: true)) }
        #expect(try await store.read(key: key.text, page: 0)?.rows == Array(CacheFixtures.rows(9, tag: "v2")[0..<4]))
        // A refresh means the server's answer or nothing: no silent stale fallback.
        source.mode = .down
        await expectError(.connectivity) { _ = try await fetcher(.remoteFirst, refresh: true).fetch(CacheFixtures.request(0)) }
    }

    @Test func refreshUnderCacheOnlyIsAConfigurationError() {
        #expect {
            _ = try fetcher(.cacheOnly, refresh: true)
        } throws: { error in
            (error as? ScreensPipeError)?.code == .configuration
        }
    }

    @Test func aSpecSetsKeyPolicyAndTTL() throws {
        let spec = CacheFixtures.bookmarksSpec(cache: CacheSpec(policy: .cacheFirst, ttl: .seconds(5)))
        let fromSpec = try CachedPageFetcher(base: source, store: store, spec: spec)
        #expect(fromSpec.policy == .cacheFirst)
        #expect(fromSpec.ttl == .seconds(5))
        // The key is built from the fetcher it wraps, here the scripted stand-in.
        #expect(fromSpec.key == (try CacheKey(spec: spec, identity: source.identity)))
        #expect(fromSpec.key != (try CacheKey(spec: spec)))
        #expect(fromSpec.pipeline == "bookmarks")
        let overridden = try CachedPageFetcher(base: source, store: store, spec: spec, policy: .cacheOnly)
        #expect(overridden.policy == .cacheOnly)
    }

    @Test(arguments: CacheBackendKind.available)
    func anotherUserOrLocaleNeverSeesTheseRows(backend: CacheBackendKind) async throws {
        try await use(backend)
        let spanish = CacheFixtures.bookmarksSpec(locale: "es_ES")
        _ = try await CacheFixtures.loadAll(try CachedPageFetcher(base: source, store: store, spec: spanish, policy: .remoteOnly))
        let others = [
            CacheFixtures.bookmarksSpec(auth: .basic(username: "bruno@liferay.com", password: "secret"), locale: "es_ES"),
            CacheFixtures.bookmarksSpec(locale: "en_US"),
        ]
        for other in others {
            let fetcher = try CachedPageFetcher(base: source, store: store, spec: other, policy: .cacheOnly)
            await expectError(.cache) { _ = try await fetcher.fetch(CacheFixtures.request(0)) }
        }
        let same = try CachedPageFetcher(base: source, store: store, spec: spanish, policy: .cacheOnly)
        #expect(try await same.fetch(CacheFixtures.request(0)).rows == Array(CacheFixtures.rows(9)[0..<4]))
    }
}
