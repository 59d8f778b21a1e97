import Foundation
@testable import ScreensPipeCore
@testable import ScreensPipeSQLite
import ScreensPipe
import Testing

/// The outbox in a real SQLite cache database: order, collapsing per key, and removal of
/// only the version that was tried.
@Suite("Outbox store")
struct OutboxStoreTests {
    private func withOutbox(_ body: (Outbox) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CacheStore(path: directory.appendingPathComponent("cache.sqlite").path)
        try await body(SQLiteOutbox(store: store, pipeline: "p", target: "http://portal group 1"))
    }

    @Test("pending writes are kept in order, one per key")
    func order() async throws {
        try await withOutbox { outbox in
            for key in ["a", "b", "c"] { _ = try await outbox.keep(key: "[\"\(key)\"]", operation: .add, row: "{}") }
            #expect(try await outbox.entries().map(\.key) == ["[\"a\"]", "[\"b\"]", "[\"c\"]"])
        }
    }

    @Test("an update after an add is one add with the new row, in the add's place")
    func updateAfterAdd() async throws {
        try await withOutbox { outbox in
            _ = try await outbox.keep(key: "k", operation: .add, row: "{\"v\":1}")
            _ = try await outbox.keep(key: "other", operation: .add, row: "{}")
            #expect(try await outbox.keep(key: "k", operation: .update, row: "{\"v\":2}") == .pending(.add, collapsed: true))
            let entries = try await outbox.entries()
            #expect(entries.map(\.key) == ["k", "other"])
            #expect(entries[0].operation == .add)
            #expect(entries[0].row == "{\"v\":2}")
        }
    }

    @Test("a delete after an add is nothing; after an update it is a delete")
    func deleteCollapses() async throws {
        try await withOutbox { outbox in
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

    @Test("removing a tried write keeps a newer version collapsed into it meanwhile")
    func removeOnlyTried() async throws {
        try await withOutbox { outbox in
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

    @Test("a failure counts an attempt and keeps its reason; discard and clear forget")
    func failuresDiscardClear() async throws {
        try await withOutbox { outbox in
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
}
