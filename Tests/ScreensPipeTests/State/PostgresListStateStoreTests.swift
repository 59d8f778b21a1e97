import Foundation
import ScreensPipe
import Testing

/// The ListStateStore contract on PostgreSQL: what a commit replaces, what a reset removes,
/// how records are listed, and that concurrent commits leave one whole record.
@Suite(.enabled(if: PostgresTesting.isAvailable, PostgresTesting.needed))
struct PostgresListStateStoreTests {
    private func openStore() async throws -> PostgresListStateStore {
        try await PostgresListStateStore.open(try await PostgresTesting.freshDatabase())
    }

    @Test func aCommitReplacesTheWholeRecordAndSurvivesReopening() async throws {
        let store = try await openStore()
        let key = StateKey(pipeline: "bookmarks", list: "https://portal/o 0123abcd")
        #expect(try await store.record(for: key) == nil)
        // Opaque text, byte for byte: escapes, a NUL escape, non-BMP characters.
        let first = ListStateRecord(
            document: #"{"cursor":"2024-01-01T00:00:00Z","ids":[9223372036854775807],"note":"a\u0000b 👩‍👩‍👧"}"#,
            committedAt: Date(timeIntervalSince1970: 1_700_000_000.5))
        try await store.commit(first, for: key)
        #expect(try await store.record(for: key) == first)
        let second = ListStateRecord(document: #"{"cursor":"2025"}"#, committedAt: Date(timeIntervalSince1970: 1_800_000_000))
        try await store.commit(second, for: key)
        #expect(try await store.record(for: key) == second)

        let reopened = try await PostgresListStateStore.open(store.target)
        #expect(try await reopened.record(for: key) == second)
        await store.close()
        await reopened.close()
    }

    @Test func resetRemovesOneRecordAndSaysWhetherThereWasOne() async throws {
        let store = try await openStore()
        let kept = StateKey(pipeline: "p", list: "kept")
        let removed = StateKey(pipeline: "p", list: "removed")
        let record = ListStateRecord(document: "{}", committedAt: Date(timeIntervalSince1970: 10))
        try await store.commit(record, for: kept)
        try await store.commit(record, for: removed)
        #expect(try await store.reset(removed))
        #expect(try await !store.reset(removed))
        #expect(try await store.record(for: removed) == nil)
        #expect(try await store.record(for: kept) == record)
        await store.close()
    }

    @Test func recordsAreListedByPipelineThenListInCodePointOrder() async throws {
        let store = try await openStore()
        let record = ListStateRecord(document: "{}", committedAt: Date(timeIntervalSince1970: 10))
        let keys = [
            StateKey(pipeline: "b", list: "z"), StateKey(pipeline: "a", list: "b"), StateKey(pipeline: "a", list: "B"),
            StateKey(pipeline: "a", list: "a"), StateKey(pipeline: "%", list: "x"),
        ]
        for key in keys { try await store.commit(record, for: key) }
        #expect(try await store.records(pipeline: nil).map(\.key) == [
            StateKey(pipeline: "%", list: "x"), StateKey(pipeline: "a", list: "B"), StateKey(pipeline: "a", list: "a"),
            StateKey(pipeline: "a", list: "b"), StateKey(pipeline: "b", list: "z"),
        ])
        #expect(try await store.records(pipeline: "a").map(\.key.list) == ["B", "a", "b"])
        // A pipeline name is matched literally, never as a pattern.
        #expect(try await store.records(pipeline: "%").map(\.key.list) == ["x"])
        await store.close()
    }

    @Test func concurrentCommitsFromTwoProcessesLeaveOneWholeRecord() async throws {
        let first = try await openStore()
        let second = try await PostgresListStateStore.open(first.target)
        let key = StateKey(pipeline: "p", list: "l")
        let documents = (0..<40).map { #"{"writer":\#($0),"padding":"\#(String(repeating: "x", count: 2_000))"}"# }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, document) in documents.enumerated() {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask {
                    try await store.commit(ListStateRecord(document: document, committedAt: Date()), for: key)
                    // Every read sees one whole committed document, never a mix.
                    let seen = try #require(try await store.record(for: key))
                    #expect(documents.contains(seen.document))
                }
            }
            try await group.waitForAll()
        }
        #expect(try await first.records(pipeline: "p").count == 1)
        await first.close()
        await second.close()
    }
}
