import Foundation
import ScreensBus
import ScreensPipe
import Testing

@Suite struct CacheStoreTests {
    private func page(
        _ index: Int, rows: [JSONValue], rowCount: Int? = nil, continuation: String? = nil, fetchedAt: Date = Date()
    ) -> FetchedPage {
        FetchedPage(
            request: CacheFixtures.request(index), rows: rows, rowCount: rowCount, continuation: continuation,
            origin: .remote, fetchedAt: fetchedAt)
    }

    @Test(arguments: CacheBackendKind.available)
    func roundTripsIdsAndHostileStringsByteForByte(backend: CacheBackendKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory)
        let rows: [JSONValue] = [
            ["id": .int(Int64.max), "min": .int(Int64.min), "above53": .int(9_007_199_254_740_993)],
            ["huge": .number("123456789012345678901234567890"), "pi": .double(3.25), "neg": .double(-0.5)],
            [
                "quote": "\"'; DROP TABLE page; --", "nul": "a\u{0}b", "controls": "\u{1}\u{1f}\t\r\n\u{7f}",
                "backslash": #"C:\path\"x"#, "unicode": "Grüße 日本 👩‍👩‍👧 \u{202e}rtl \u{2028}\u{2029}",
            ],
            ["nested": ["a": [1, nil, true, false, ["b": "c"]], "empty": [:], "list": []]],
        ]
        let fetchedAt = Date(timeIntervalSince1970: 1_700_000_000.25)
        try await store.write(key: "k", pipeline: "p", page: page(0, rows: rows, rowCount: 73, continuation: "c&d=e", fetchedAt: fetchedAt), snapshot: nil)

        let cached = try #require(try await store.read(key: "k", page: 0))
        #expect(cached.rows == rows)
        #expect(JSONValue.array(cached.rows).jsonBytes == JSONValue.array(rows).jsonBytes)
        #expect(cached.byteSize == JSONValue.array(rows).jsonBytes.count)
        #expect(cached.rowCount == 73)
        #expect(cached.continuation == "c&d=e")
        #expect(cached.fetchedAt == fetchedAt)
        #expect(cached.pipeline == "p")
        #expect((cached.startRow, cached.endRow) == (0, 4))

        // A second store on the file sees the same bytes (nothing lives only in memory).
        let reopened = try await backend.reopen(store)
        #expect(try await reopened.read(key: "k", page: 0)?.rows == rows)
        #expect(try await reopened.read(key: "k", page: 1) == nil)
        #expect(try await reopened.read(key: "other", page: 0) == nil)
    }

    @Test(arguments: CacheBackendKind.available)
    func aLookupKeepsRowsAsTextsOnlyWhenAsked(backend: CacheBackendKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory)
        let rows: [JSONValue] = [["id": 1, "n": .number("1.50")], ["id": 2, "t": "a\u{2028}b"]]
        try await store.write(key: "k", pipeline: "p", page: page(0, rows: rows), snapshot: nil)

        for asTexts in [true, false] {
            guard case .page(let stored) = try await store.lookup(key: "k", request: CacheFixtures.request(0), rowsAsTexts: asTexts) else {
                Issue.record("page 0 is stored")
                continue
            }
            let fetched = stored.fetchedPage(for: CacheFixtures.request(0))
            #expect(fetched.rowsAreTexts == asTexts)
            #expect(fetched.rowsInPage == 2)
            // Either way each row keeps its stored text, and the values are the same.
            #expect(fetched.rowTexts?.count == 2)
            #expect(fetched.rowTexts?[0].map { Array($0) } == Array(#"{"id":1,"n":1.50}"#.utf8))
            #expect(fetched.rows == rows)
        }
    }

    @Test(arguments: CacheBackendKind.available)
    func aDamagedStoredPageIsACacheErrorThatNamesIt(backend: CacheBackendKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory)
        // The stored text a hand edit would leave: a row cut short.
        try await store.write(key: "k", pipeline: "p", page: page(3, rows: [["id": 1, "name": "x"]]), snapshot: nil)
        try await CacheRowIndexTests.setRows(of: store, to: #"[{"id":1,"name":]"#)

        for asTexts in [true, false] {
            do {
                _ = try await store.lookup(key: "k", request: CacheFixtures.request(3), rowsAsTexts: asTexts)
                Issue.record("a damaged page was read")
            } catch {
                #expect(error.code == .cache)
                #expect(error.message.contains("page 3 of key k holds unreadable JSON"))
            }
        }
    }

    @Test func createsDirectoryAndFilesPrivately() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("a/b/cache.sqlite")
        let store = try CacheStore(path: path)
        try await store.write(key: "k", pipeline: "p", page: page(0, rows: CacheFixtures.rows(2)), snapshot: nil)

        func mode(_ path: String) throws -> Int {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return try #require(attributes[.posixPermissions] as? Int)
        }
        #expect(try mode(directory.file("a")) == 0o700)
        #expect(try mode(directory.file("a/b")) == 0o700)
        #expect(try mode(path) == 0o600)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(try mode(path + "-wal") == 0o600)
        #expect(try mode(path + "-shm") == 0o600)
    }

    @Test func tightensAnOwnedDirectoryAndAnExistingFile() throws {
        let directory = try TemporaryDirectory()
        let cacheDirectory = directory.file("mine")
        try FileManager.default.createDirectory(
            atPath: cacheDirectory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let path = cacheDirectory + "/cache.sqlite"
        _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644])

        _ = try CacheStore(spec: nil, environment: ["SCREENS_PIPE_CACHE_DIR": cacheDirectory])
        let directoryMode = try FileManager.default.attributesOfItem(atPath: cacheDirectory)[.posixPermissions] as? Int
        let fileMode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)
        #expect(fileMode == 0o600)
    }

    @Test func defaultPathFollowsTheEnvironment() {
        #expect(
            CacheStore.defaultPath(environment: ["SCREENS_PIPE_CACHE_DIR": "/x/y", "XDG_CACHE_HOME": "/xdg", "HOME": "/h"])
                == "/x/y/cache.sqlite")
        #expect(
            CacheStore.defaultPath(environment: ["XDG_CACHE_HOME": "/xdg/", "HOME": "/h"])
                == "/xdg/screens-pipe/cache.sqlite")
        // A relative XDG_CACHE_HOME is invalid by the XDG spec, and an empty variable is unset.
        #expect(
            CacheStore.defaultPath(environment: ["XDG_CACHE_HOME": "rel", "SCREENS_PIPE_CACHE_DIR": "", "HOME": "/h"])
                == "/h/.cache/screens-pipe/cache.sqlite")
    }

    @Test(arguments: CacheBackendKind.available)
    func theRowCountOfPageZeroMarksTheEndOfTheList(backend: CacheBackendKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory)
        let fetchedAt = Date(timeIntervalSince1970: 1_000)
        // 6 rows: page 0 holds 4, page 1 holds 2 (short), page 2 starts at 7.
        try await store.write(key: "k", pipeline: "p", page: page(0, rows: CacheFixtures.rows(4), rowCount: 6, fetchedAt: fetchedAt), snapshot: nil)

        #expect(try await store.lookup(key: "k", request: CacheFixtures.request(1)) == .miss)
        #expect(try await store.lookup(key: "k", request: CacheFixtures.request(2)) == .endOfList(fetchedAt: fetchedAt))
        #expect(try await store.lookup(key: "other", request: CacheFixtures.request(2)) == .miss)
    }

    @Test(arguments: CacheBackendKind.available)
    func withoutACountAShortPageMarksTheEnd(backend: CacheBackendKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory)
        let fetchedAt = Date(timeIntervalSince1970: 2_000)
        try await store.write(key: "k", pipeline: "p", page: page(0, rows: CacheFixtures.rows(4)), snapshot: nil)
        try await store.write(key: "k", pipeline: "p", page: page(1, rows: CacheFixtures.rows(1), fetchedAt: fetchedAt), snapshot: nil)

        #expect(try await store.lookup(key: "k", request: CacheFixtures.request(2)) == .endOfList(fetchedAt: fetchedAt))
        guard case .page(let first) = try await store.lookup(key: "k", request: CacheFixtures.request(0)) else {
            Issue.record("page 0 is stored")
            return
        }
        #expect(first.rows == CacheFixtures.rows(4))
    }

    @Test(arguments: CacheBackendKind.available)
    func aShorterListRemovesStalePagesPastItsEnd(backend: CacheBackendKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory)
        try await store.write(key: "k", pipeline: "p", page: page(0, rows: CacheFixtures.rows(4), rowCount: 10), snapshot: nil)
        try await store.write(key: "k", pipeline: "p", page: page(1, rows: CacheFixtures.rows(3)), snapshot: nil)
        try await store.write(key: "k", pipeline: "p", page: page(2, rows: CacheFixtures.rows(3)), snapshot: nil)
        // The list shrank to 5 rows: page 2 (rows 7..<10) no longer exists.
        try await store.write(key: "k", pipeline: "p", page: page(0, rows: CacheFixtures.rows(4), rowCount: 5), snapshot: nil)
        #expect(try await store.read(key: "k", page: 1) != nil)
        #expect(try await store.read(key: "k", page: 2) == nil)

        // Without a count, a short page removes the pages after it.
        try await store.write(key: "n", pipeline: "p", page: page(0, rows: CacheFixtures.rows(4)), snapshot: nil)
        try await store.write(key: "n", pipeline: "p", page: page(1, rows: CacheFixtures.rows(3)), snapshot: nil)
        try await store.write(key: "n", pipeline: "p", page: page(2, rows: CacheFixtures.rows(3)), snapshot: nil)
        try await store.write(key: "n", pipeline: "p", page: page(0, rows: CacheFixtures.rows(2)), snapshot: nil)
        #expect(try await store.read(key: "n", page: 0)?.rows.count == 2)
        #expect(try await store.read(key: "n", page: 1) == nil)
        #expect(try await store.read(key: "n", page: 2) == nil)
    }

    @Test(arguments: CacheBackendKind.available)
    func listsSummarizesAndClears(backend: CacheBackendKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory)
        let early = Date(timeIntervalSince1970: 1_000)
        let late = Date(timeIntervalSince1970: 5_000)
        try await store.write(key: "server-a k1", pipeline: "one", page: page(0, rows: CacheFixtures.rows(4), rowCount: 7, fetchedAt: early), snapshot: nil)
        try await store.write(key: "server-a k1", pipeline: "one", page: page(1, rows: CacheFixtures.rows(3), fetchedAt: late), snapshot: nil)
        try await store.write(key: "server-a k2", pipeline: "two", page: page(0, rows: CacheFixtures.rows(2), fetchedAt: early), snapshot: nil)
        try await store.write(key: "server-b k1", pipeline: "two", page: page(0, rows: CacheFixtures.rows(1), fetchedAt: late), snapshot: nil)

        let entries = try await store.entries()
        #expect(entries.map(\.key) == ["server-a k1", "server-a k2", "server-b k1"])
        let first = entries[0]
        #expect(first.pipeline == "one")
        #expect((first.pages, first.rows, first.rowCount) == (2, 7, 7))
        #expect((first.oldestFetch, first.newestFetch) == (early, late))
        #expect(first.bytes == JSONValue.array(CacheFixtures.rows(4)).jsonBytes.count + JSONValue.array(CacheFixtures.rows(3)).jsonBytes.count)
        #expect(entries[1].rowCount == nil)

        let stats = try await store.stats()
        #expect((stats.entries, stats.pages, stats.rows) == (3, 4, 10))
        #expect(stats.bytes == entries.map(\.bytes).reduce(0, +))
        #expect((stats.oldestFetch, stats.newestFetch) == (early, late))
        #expect(stats.fileSize > 0)
        #expect(stats.path == store.location)

        #expect(try await store.clear(pipeline: "two", keyPrefix: "server-b") == 1)
        #expect(try await store.clear(pipeline: nil, keyPrefix: "server-a") == 3)
        #expect(try await store.entries().isEmpty)
        #expect(try await store.clear(pipeline: nil, keyPrefix: nil) == 0)
        let empty = try await store.stats()
        #expect((empty.entries, empty.pages, empty.rows, empty.bytes) == (0, 0, 0, 0))
        #expect(empty.oldestFetch == nil)
    }

    @Test(arguments: CacheBackendKind.available)
    func clearByPipelineKeepsOtherPipelines(backend: CacheBackendKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory)
        try await store.write(key: "a", pipeline: "one", page: page(0, rows: CacheFixtures.rows(1)), snapshot: nil)
        try await store.write(key: "b", pipeline: "two", page: page(0, rows: CacheFixtures.rows(1)), snapshot: nil)
        // A prefix that is a LIKE pattern must match literally.
        #expect(try await store.clear(pipeline: nil, keyPrefix: "%") == 0)
        #expect(try await store.clear(pipeline: "one", keyPrefix: nil) == 1)
        #expect(try await store.entries().map(\.key) == ["b"])
    }

    @Test func twoStoresWriteOneFileConcurrently() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("shared/cache.sqlite")
        // Both open a brand-new file at once: both migrate, one of them finds the work done.
        async let openedFirst = Task { try CacheStore(path: path) }.value
        async let openedSecond = Task { try CacheStore(path: path) }.value
        let stores = try await [openedFirst, openedSecond]

        let tasksPerStore = 4
        let pagesPerTask = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (storeIndex, store) in stores.enumerated() {
                for task in 0..<tasksPerStore {
                    group.addTask {
                        for index in 0..<pagesPerTask {
                            let fetched = FetchedPage(
                                request: CacheFixtures.request(index), rows: CacheFixtures.rows(3, tag: "\(storeIndex)-\(task)"),
                                rowCount: index == 0 ? 1_000 : nil, origin: .remote)
                            try await store.write(key: "store\(storeIndex) task\(task)", pipeline: "p", page: fetched, snapshot: nil)
                            // Readers run alongside the writers (WAL: they never wait).
                            _ = try await store.read(key: "store\(1 - storeIndex) task\(task)", page: index)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }

        let stats = try stores[0].stats()
        #expect(stats.entries == stores.count * tasksPerStore)
        #expect(stats.pages == stores.count * tasksPerStore * pagesPerTask)
        for storeIndex in stores.indices {
            for task in 0..<tasksPerStore {
                for index in 0..<pagesPerTask {
                    let cached = try await stores[1 - storeIndex].read(key: "store\(storeIndex) task\(task)", page: index)
                    #expect(cached?.rows == CacheFixtures.rows(3, tag: "\(storeIndex)-\(task)"))
                }
            }
        }
        #expect(try stores[1].integrityCheck() == ["ok"])
    }

    @Test func aFileThatIsNotADatabaseIsACacheError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("cache.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try CacheStore(path: path)
        } throws: { error in
            (error as? ScreensPipeError)?.code == .cache && "\(error)".contains(path)
        }
    }
}
