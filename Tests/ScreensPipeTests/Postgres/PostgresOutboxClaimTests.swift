import Foundation
import Synchronization
import Testing
@testable import ScreensPipeCore
@testable import ScreensPipePostgres
import ScreensPipe

/// One outbox in PostgreSQL, opened twice as two replicas would (each its own connections):
/// a claim is a row lock the other replica's sync skips, that a dead holder gives back, and
/// that a keep of the same key waits for.
@Suite(.enabled(if: PostgresTesting.isAvailable, PostgresTesting.needed))
struct PostgresOutboxClaimTests {
    private static let target = "http://portal group 1"

    private func replicas() async throws -> (PostgresOutbox, PostgresOutbox) {
        let database = try await PostgresTesting.freshDatabase()
        return (
            try await PostgresOutbox.open(database, pipeline: "p", target: Self.target),
            try await PostgresOutbox.open(database, pipeline: "p", target: Self.target)
        )
    }

    @Test("the second replica skips the write the first holds and takes the next")
    func secondSkipsHeldRow() async throws {
        let (one, two) = try await replicas()
        for key in ["a", "b", "c"] { _ = try await one.keep(key: key, operation: .add, row: "{}") }
        let held = try #require(try await one.claimNext(after: 0, keys: nil))
        #expect(held.entry.key == "a")
        let skipped = try #require(try await two.claimNext(after: 0, keys: nil))
        #expect(skipped.entry.key == "b", "a is held by the first replica")
        // Both held: nothing is left for a third try but c.
        let third = try #require(try await two.claimNext(after: 0, keys: ["a", "b", "c"]))
        #expect(third.entry.key == "c")
        #expect(try await two.claimNext(after: 0, keys: nil) == nil, "every write is held")
        #expect(try await held.remove())
        #expect(try await skipped.remove())
        await third.release()
        #expect(try await two.entries().map(\.key) == ["c"])
    }

    @Test("a holder whose connection dies gives its write back, untouched")
    func deadHolderGivesBack() async throws {
        let (one, two) = try await replicas()
        _ = try await one.keep(key: "a", operation: .add, row: "{\"v\":1}")
        let held = try #require(try await one.claimNext(after: 0, keys: nil))
        #expect(try await two.claimNext(after: 0, keys: nil) == nil)
        // What the server does when the process is killed: the session ends, its transaction
        // rolls back, its row locks go.
        await held.release()
        let taken = try #require(try await two.claimNext(after: 0, keys: nil))
        #expect(taken.entry.key == "a")
        #expect(taken.entry.attempts == 0)
        #expect(try await taken.remove())
        #expect(try await one.entries().isEmpty)
    }

    @Test("a keep of a key a sync holds waits for it, then keeps a new write after it")
    func keepWaitsForHolder() async throws {
        let (one, two) = try await replicas()
        _ = try await one.keep(key: "a", operation: .add, row: "{\"v\":1}")
        let held = try #require(try await one.claimNext(after: 0, keys: nil))
        let kept = Mutex(false)
        let keeping = Task {
            let outcome = try await two.keep(key: "a", operation: .update, row: "{\"v\":2}")
            kept.withLock { $0 = true }
            return outcome
        }
        try await Task.sleep(for: .milliseconds(400))
        #expect(kept.withLock { $0 } == false, "the keep waits while the write is being sent")
        #expect(try await held.remove())
        #expect(try await keeping.value == .pending(.update, collapsed: false), "the sent add is gone: a new write, not a collapse into it")
        let entries = try await one.entries()
        #expect(entries.map(\.row) == ["{\"v\":2}"])
        #expect(entries.first.map { $0.sequence > held.entry.sequence } == true)
    }

    @Test("the journal is shared: one replica reads what the other recorded, by key")
    func sharedJournal() async throws {
        let database = try await PostgresTesting.freshDatabase()
        let one = try await PostgresWriteJournal.open(database, pipeline: "p", journalTarget: Self.target)
        let two = try await PostgresWriteJournal.open(database, pipeline: "p", journalTarget: Self.target)
        try await one.record([
            JournalEntry(key: "a", line: 1, state: .pending, content: "x", entryId: nil),
            JournalEntry(key: "b", line: 2, state: .created, content: "y", entryId: 9_007_199_254_740_993),
        ])
        try await one.record([JournalEntry(key: "a", line: 1, state: .created, content: "x", entryId: 42)])
        let all = try await two.records()
        #expect(all.current.count == 2)
        #expect(all.current["a"]?.state == .created)
        #expect(all.current["a"]?.entryId == 42)
        #expect(all.current["b"]?.entryId == 9_007_199_254_740_993, "64-bit ids come back exactly")
        let scoped = try await two.records(keys: ["b"])
        #expect(Array(scoped.current.keys) == ["b"])
        try await two.forget(keys: ["a"])
        #expect(try await one.records().current.keys.sorted() == ["b"])
        let other = try await PostgresWriteJournal.open(database, pipeline: "p", journalTarget: "http://other group 1")
        #expect(try await other.records().current.isEmpty, "a journal is per pipeline and target")
    }
}
