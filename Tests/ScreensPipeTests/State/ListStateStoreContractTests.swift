import Foundation
import ScreensPipe
import Testing

/// One backend of ``ListStateStore`` under the contract suite: a name for the test report
/// and a factory that opens a fresh, empty store. Another backend joins the suite by adding
/// itself to ``ListStateStoreBackends/all``.
struct ListStateStoreBackend: Sendable, CustomTestStringConvertible {
    let name: String
    /// A fresh empty store, and whatever keeps it alive (a temporary directory).
    let open: @Sendable () async throws -> (store: any ListStateStore, owner: AnyObject)
    /// Opens a second store on the same storage as `owner`'s, to check that commits persist.
    let reopen: @Sendable (AnyObject) async throws -> any ListStateStore

    var testDescription: String { name }
}

/// The backends every contract test runs against.
enum ListStateStoreBackends {
    static let sqlite = ListStateStoreBackend(
        name: "SQLite (cache database)",
        open: {
            let directory = try TemporaryDirectory()
            return (SQLiteListStateStore(cache: try CacheStore(path: directory.file("cache.sqlite"))), directory)
        },
        reopen: { owner in
            let directory = try #require(owner as? TemporaryDirectory)
            return SQLiteListStateStore(cache: try CacheStore(path: directory.file("cache.sqlite")))
        })

    static let all: [ListStateStoreBackend] = [sqlite]
}

@Suite struct ListStateStoreContractTests {
    static let key = StateKey(pipeline: "bookmarks", list: #"{"server":"sandbox","request":{"a":1}}"#)
    static let committedAt = Date(timeIntervalSince1970: 1_790_000_000.5)

    @Test(arguments: ListStateStoreBackends.all)
    func anUnknownKeyHasNoRecord(_ backend: ListStateStoreBackend) async throws {
        let (store, owner) = try await backend.open()
        #expect(try await store.record(for: Self.key) == nil)
        #expect(try await store.reset(Self.key) == false)
        #expect(try await store.records(pipeline: nil).isEmpty)
        withExtendedLifetime(owner) {}
    }

    @Test(arguments: ListStateStoreBackends.all)
    func aCommitIsReadBackExactlyAndSurvivesReopening(_ backend: ListStateStoreBackend) async throws {
        let (store, owner) = try await backend.open()
        // Opaque text: stored byte for byte, whatever it holds.
        let document = #"{"version":1,"cursor":"2026-01-01T00:00:00.000Z","odd":"\u0000 ' ; DROP TABLE x; -- Grüße 👩‍👩‍👧"}"#
        try await store.commit(ListStateRecord(document: document, committedAt: Self.committedAt), for: Self.key)
        let record = try #require(try await store.record(for: Self.key))
        #expect(record.document == document)
        #expect(abs(record.committedAt.timeIntervalSince(Self.committedAt)) < 0.001)
        let reopened = try await backend.reopen(owner)
        #expect(try await reopened.record(for: Self.key)?.document == document)
    }

    @Test(arguments: ListStateStoreBackends.all)
    func aCommitReplacesTheWholeRecord(_ backend: ListStateStoreBackend) async throws {
        let (store, owner) = try await backend.open()
        try await store.commit(ListStateRecord(document: #"{"v":1,"long":"\#(String(repeating: "x", count: 10_000))"}"#, committedAt: Self.committedAt), for: Self.key)
        try await store.commit(ListStateRecord(document: #"{"v":2}"#, committedAt: Self.committedAt.addingTimeInterval(60)), for: Self.key)
        #expect(try await store.record(for: Self.key)?.document == #"{"v":2}"#)
        #expect(try await store.records(pipeline: nil).count == 1)
        withExtendedLifetime(owner) {}
    }

    @Test(arguments: ListStateStoreBackends.all)
    func keysAreSeparateByPipelineAndByList(_ backend: ListStateStoreBackend) async throws {
        let (store, owner) = try await backend.open()
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
        withExtendedLifetime(owner) {}
    }

    @Test(arguments: ListStateStoreBackends.all)
    func resetRemovesOnlyItsOwnKey(_ backend: ListStateStoreBackend) async throws {
        let (store, owner) = try await backend.open()
        let other = StateKey(pipeline: "other", list: Self.key.list)
        try await store.commit(ListStateRecord(document: "{}", committedAt: Self.committedAt), for: Self.key)
        try await store.commit(ListStateRecord(document: "{}", committedAt: Self.committedAt), for: other)
        #expect(try await store.reset(Self.key) == true)
        #expect(try await store.record(for: Self.key) == nil)
        #expect(try await store.record(for: other) != nil)
        #expect(try await store.reset(Self.key) == false)
        withExtendedLifetime(owner) {}
    }

    @Test(arguments: ListStateStoreBackends.all)
    func concurrentCommitsLeaveOneWholeRecord(_ backend: ListStateStoreBackend) async throws {
        let (store, owner) = try await backend.open()
        let documents = (0..<16).map { "{\"writer\":\($0),\"pad\":\"\(String(repeating: "p", count: $0 * 500))\"}" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for document in documents {
                group.addTask { try await store.commit(ListStateRecord(document: document, committedAt: Self.committedAt), for: Self.key) }
            }
            try await group.waitForAll()
        }
        let record = try #require(try await store.record(for: Self.key))
        #expect(documents.contains(record.document))
        withExtendedLifetime(owner) {}
    }
}
