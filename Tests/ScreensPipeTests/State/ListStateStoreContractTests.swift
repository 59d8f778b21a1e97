import Foundation
import ScreensPipe
import Testing

/// One backend of ``ListStateStore`` under the contract suite: SQLite always, PostgreSQL
/// when the test server runs (a fresh database per test).
enum ListStateStoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// The backends every contract test runs against.
    static var available: [ListStateStoreBackend] { PostgresTesting.isAvailable ? allCases : [.sqlite] }

    var testDescription: String { self == .sqlite ? "SQLite (cache database)" : "PostgreSQL" }

    /// Runs `body` with a fresh, empty store and `reopen`, which opens another store on the
    /// same storage (to check that commits persist). Every store opened is closed afterwards,
    /// whatever `body` does: postgres-nio treats a client freed while open as a bug.
    func withStore(
        _ body: (_ store: any ListStateStore, _ reopen: () async throws -> any ListStateStore) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        let target = self == .postgres ? try await PostgresTesting.freshDatabase() : nil
        var opened: [any ListStateStore] = []
        func open() async throws -> any ListStateStore {
            let store: any ListStateStore =
                if let target { try await PostgresListStateStore.open(target) } else {
                    SQLiteListStateStore(cache: try CacheStore(path: directory.file("cache.sqlite")))
                }
            opened.append(store)
            return store
        }
        do {
            try await body(try await open(), open)
        } catch {
            for store in opened { await store.close() }
            throw error
        }
        for store in opened { await store.close() }
    }
}

@Suite struct ListStateStoreContractTests {
    static let key = StateKey(pipeline: "bookmarks", list: #"{"server":"sandbox","request":{"a":1}}"#)
    static let committedAt = Date(timeIntervalSince1970: 1_790_000_000.5)

    @Test(arguments: ListStateStoreBackend.available)
    func anUnknownKeyHasNoRecord(_ backend: ListStateStoreBackend) async throws {
        try await backend.withStore { (store, reopen) async throws in
            #expect(try await store.record(for: Self.key) == nil)
            #expect(try await store.reset(Self.key) == false)
            #expect(try await store.records(pipeline: nil).isEmpty)
        }
    }

    @Test(arguments: ListStateStoreBackend.available)
    func aCommitIsReadBackExactlyAndSurvivesReopening(_ backend: ListStateStoreBackend) async throws {
        try await backend.withStore { (store, reopen) async throws in
            // Opaque text: stored byte for byte, whatever it holds.
            let document = #"{"version":1,"cursor":"2026-01-01T00:00:00.000Z","odd":"\u0000 ' ; DROP TABLE x; -- Grüße 👩‍👩‍👧"}"#
            try await store.commit(ListStateRecord(document: document, committedAt: Self.committedAt), for: Self.key)
            let record = try #require(try await store.record(for: Self.key))
            #expect(record.document == document)
            #expect(abs(record.committedAt.timeIntervalSince(Self.committedAt)) < 0.001)
            let reopened = try await reopen()
            #expect(try await reopened.record(for: Self.key)?.document == document)
        }
    }

    @Test(arguments: ListStateStoreBackend.available)
    func aCommitReplacesTheWholeRecord(_ backend: ListStateStoreBackend) async throws {
        try await backend.withStore { (store, reopen) async throws in
            try await store.commit(ListStateRecord(document: #"{"v":1,"long":"\#(String(repeating: "x", count: 10_000))"}"#, committedAt: Self.committedAt), for: Self.key)
            try await store.commit(ListStateRecord(document: #"{"v":2}"#, committedAt: Self.committedAt.addingTimeInterval(60)), for: Self.key)
            #expect(try await store.record(for: Self.key)?.document == #"{"v":2}"#)
            #expect(try await store.records(pipeline: nil).count == 1)
        }
    }

    @Test(arguments: ListStateStoreBackend.available)
    func keysAreSeparateByPipelineAndByList(_ backend: ListStateStoreBackend) async throws {
        try await backend.withStore { (store, reopen) async throws in
            let other = StateKey(pipeline: "bookmarks-copy", list: Self.key.list)
            let otherList = StateKey(pipeline: Self.key.pipeline, list: #"{"server":"sandbox","request":{"a":2}}"#)
            for (index, key) in [Self.key, other, otherList].enumerated() {
                try await store.commit(ListStateRecord(document: "{\"n\":\(index)}", committedAt: Self.committedAt), for: key)
            }
            #expect(try await store.record(for: other)?.document == #"{"n":1}"#)
            #expect(try await store.record(for: otherList)?.document == #"{"n":2}"#)
            let all = try await store.records(pipeline: nil).map(\.key)
            #expect(all == [Self.key, otherList, other].sorted { ($0.pipeline, $0.list) < ($1.pipeline, $1.list) })
            #expect(try await store.records(pipeline: "bookmarks-copy").map(\.key) == [other])
        }
    }

    @Test(arguments: ListStateStoreBackend.available)
    func resetRemovesOnlyItsOwnKey(_ backend: ListStateStoreBackend) async throws {
        try await backend.withStore { (store, reopen) async throws in
            let other = StateKey(pipeline: "other", list: Self.key.list)
            try await store.commit(ListStateRecord(document: "{}", committedAt: Self.committedAt), for: Self.key)
            try await store.commit(ListStateRecord(document: "{}", committedAt: Self.committedAt), for: other)
            #expect(try await store.reset(Self.key) == true)
            #expect(try await store.record(for: Self.key) == nil)
            #expect(try await store.record(for: other) != nil)
            #expect(try await store.reset(Self.key) == false)
        }
    }

    @Test(arguments: ListStateStoreBackend.available)
    func concurrentCommitsLeaveOneWholeRecord(_ backend: ListStateStoreBackend) async throws {
        try await backend.withStore { (store, reopen) async throws in
            let documents = (0..<16).map { "{\"writer\":\($0),\"pad\":\"\(String(repeating: "p", count: $0 * 500))\"}" }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for document in documents {
                    group.addTask { try await store.commit(ListStateRecord(document: document, committedAt: Self.committedAt), for: Self.key) }
                }
                try await group.waitForAll()
            }
            let record = try #require(try await store.record(for: Self.key))
            #expect(documents.contains(record.document))
        }
    }
}
