import Foundation
@testable import ScreensPipeCore
@testable import ScreensPipeSQLite
@testable import ScreensPipePostgres
import ScreensPipe
import Testing

/// The outbox in a real cache database (SQLite, and PostgreSQL when the test server runs):
/// order, collapsing per key, removal of only the version that was tried, and claims.
@Suite("Outbox store")
struct OutboxStoreTests {
    private func withOutbox(_ kind: CacheBackendKind = .sqlite, _ body: (Outbox) async throws -> Void) async throws {
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let store = try CacheStore(path: directory.appendingPathComponent("cache.sqlite").path)
            try await body(SQLiteOutbox(store: store, pipeline: "p", target: "http://portal group 1"))
        case .postgres:
            let database = try await PostgresTesting.freshDatabase()
            try await body(try await PostgresOutbox.open(database, pipeline: "p", target: "http://portal group 1"))
        }
    }

    @Test("pending writes are kept in order, one per key", arguments: CacheBackendKind.available)
    func order(_ kind: CacheBackendKind) async throws {
        try await withOutbox(kind) { outbox in
            for key in ["a", "b", "c"] { _ = try await outbox.keep(key: "[\"\(key)\"]", operation: .add, row: "{}") }
            #expect(try await outbox.entries().map(\.key) == ["[\"a\"]", "[\"b\"]", "[\"c\"]"])
        }
    }

    @Test("an update after an add is one add with the new row, in the add's place", arguments: CacheBackendKind.available)
    func updateAfterAdd(_ kind: CacheBackendKind) async throws {
        try await withOutbox(kind) { outbox in
            _ = try await outbox.keep(key: "k", operation: .add, row: "{\"v\":1}")
            _ = try await outbox.keep(key: "other", operation: .add, row: "{}")
            #expect(try await outbox.keep(key: "k", operation: .update, row: "{\"v\":2}") == .pending(.add, collapsed: true))
            let entries = try await outbox.entries()
            #expect(entries.map(\.key) == ["k", "other"])
            #expect(entries[0].operation == .add)
            #expect(entries[0].row == "{\"v\":2}")
        }
    }

    @Test("a delete after an add is nothing; after an update it is a delete", arguments: CacheBackendKind.available)
    func deleteCollapses(_ kind: CacheBackendKind) async throws {
        try await withOutbox(kind) { outbox in
            _ = try await outbox.keep(key: "new", operation: .add, row: "{}")
            #expect(try await outbox.keep(key: "new", operation: .delete, row: "{}") == .cancelled)
            _ = try await outbox.keep(key: "old", operation: .update, row: "{}")
            #expect(try await outbox.keep(key: "old", operation: .delete, row: "{}") == .pending(.delete, collapsed: true))
            #expect(try await outbox.entries().map(\.operation) == [.delete])
        }
    }

    @Test("an add or update after a delete changes the entry instead")
    func writeAfterDelete() {
        #expect(OutboxOperation.delete.followed(by: .add) == .update)
        #expect(OutboxOperation.delete.followed(by: .update) == .update)
        #expect(OutboxOperation.update.followed(by: .update) == .update)
        #expect(OutboxOperation.add.followed(by: .add) == .add)
    }

    @Test("removing a tried write keeps a newer version collapsed into it meanwhile", arguments: CacheBackendKind.available)
    func removeOnlyTried(_ kind: CacheBackendKind) async throws {
        try await withOutbox(kind) { outbox in
            _ = try await outbox.keep(key: "k", operation: .add, row: "{\"v\":1}")
            let tried = try #require(try await outbox.entries().first)
            _ = try await outbox.keep(key: "k", operation: .update, row: "{\"v\":2}")
            #expect(try await outbox.remove(tried) == false)
            #expect(try await outbox.entries().map(\.row) == ["{\"v\":2}"])
            let newer = try #require(try await outbox.entries().first)
            #expect(try await outbox.remove(newer))
            #expect(try await outbox.entries().isEmpty)
        }
    }

    @Test("a failure counts an attempt and keeps its reason; discard and clear forget", arguments: CacheBackendKind.available)
    func failuresDiscardClear(_ kind: CacheBackendKind) async throws {
        try await withOutbox(kind) { outbox in
            _ = try await outbox.keep(key: "a", operation: .add, row: "{}")
            _ = try await outbox.keep(key: "b", operation: .add, row: "{}")
            _ = try await outbox.keep(key: "c", operation: .add, row: "{}")
            let first = try #require(try await outbox.entries().first)
            try await outbox.recordFailure(first, reason: "down")
            try await outbox.recordFailure(first, reason: "still down")
            let failed = try #require(try await outbox.entries().first)
            #expect(failed.attempts == 2)
            #expect(failed.lastError == "still down")
            #expect(try await outbox.discard(key: "b"))
            #expect(try await outbox.discard(key: "b") == false)
            #expect(try await outbox.entries().map(\.key) == ["a", "c"])
            #expect(try await outbox.clear() == 2)
            #expect(try await outbox.entries().isEmpty)
        }
    }

    @Test("a sync claims the pending writes in order, of the keys asked for only, and a claim settles its write", arguments: CacheBackendKind.available)
    func claims(_ kind: CacheBackendKind) async throws {
        try await withOutbox(kind) { outbox in
            for key in ["a", "b", "c", "d"] { _ = try await outbox.keep(key: key, operation: .add, row: "{}") }
            let first = try #require(try await outbox.claimNext(after: 0, keys: nil))
            #expect(first.entry.key == "a")
            #expect(try await first.remove())
            let second = try #require(try await outbox.claimNext(after: first.entry.sequence, keys: ["c", "d"]))
            #expect(second.entry.key == "c", "b is not asked for")
            try await second.recordFailure(reason: "refused")
            let third = try #require(try await outbox.claimNext(after: second.entry.sequence, keys: ["c", "d"]))
            #expect(third.entry.key == "d")
            await third.release()
            #expect(try await outbox.claimNext(after: third.entry.sequence, keys: nil) == nil)
            let left = try await outbox.entries()
            #expect(left.map(\.key) == ["b", "c", "d"], "a released claim leaves its write pending")
            #expect(left.map(\.attempts) == [0, 1, 0])
            #expect(left[1].lastError == "refused")
        }
    }
}
