import Foundation
import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// Comparing a poll with the snapshot before it, and the state that keeps the snapshot.
@Suite struct ChangeDetectionTests {
    private func row(_ id: Int64, _ name: String) -> ObservedRow {
        let text = #"{"id":\#(id),"name":"\#(name)"}"#
        return ObservedRow(key: "[\(id)]", keyObject: ["id": .int(id)], digest: SHA256.hexDigest(text, characters: 32), text: text)
    }

    private func snapshot(_ rows: [ObservedRow]) -> ListSnapshot {
        ChangeDetection.compare(rows, with: ListSnapshot(), complete: true, keyFields: ["id"], after: 0).snapshot
    }

    @Test func addedUpdatedAndUnchangedInTheOrderRead() {
        let before = snapshot([row(1, "a"), row(2, "b"), row(3, "c")])
        let outcome = ChangeDetection.compare([row(4, "d"), row(1, "a"), row(2, "B"), row(3, "c")], with: before, complete: true, keyFields: ["id"], after: 10)
        #expect(outcome.changes.map(\.kind) == [.added, .updated])
        #expect(outcome.changes.map(\.sequence) == [11, 12])
        let expected: [JSONValue] = [["id": 4], ["id": 2]]
        #expect(outcome.changes.map(\.key) == expected)
        #expect(outcome.changes[1].itemText == #"{"id":2,"name":"B"}"#)
    }

    /// A key one complete read misses is only marked; the second read without it deletes it,
    /// and a read that finds it again clears the mark without a change.
    @Test func aDeletionNeedsTwoCompleteReadsInARow() {
        let before = snapshot([row(1, "a"), row(2, "b"), row(3, "c")])
        let once = ChangeDetection.compare([row(1, "a"), row(3, "c")], with: before, complete: true, keyFields: ["id"], after: 3)
        #expect(once.changes.isEmpty)
        #expect(once.snapshot.missing == ["[2]"])
        let back = ChangeDetection.compare([row(1, "a"), row(2, "b"), row(3, "c")], with: once.snapshot, complete: true, keyFields: ["id"], after: 3)
        #expect(back.changes.isEmpty)
        #expect(back.snapshot.missing.isEmpty)
        let twice = ChangeDetection.compare([row(1, "a"), row(3, "c")], with: once.snapshot, complete: true, keyFields: ["id"], after: 3)
        #expect(twice.changes.map(\.kind) == [.deleted])
        #expect(twice.changes[0].line == #"{"change":"deleted","seq":4,"key":{"id":2}}"#)
        #expect(twice.snapshot.count == 2)
    }

    /// A cursor poll reads only changed rows: the rows it did not read are not gone.
    @Test func aCursorPollDeletesNothing() {
        let before = snapshot([row(1, "a"), row(2, "b")])
        let outcome = ChangeDetection.compare([row(2, "B")], with: before, complete: false, keyFields: ["id"], after: 2)
        #expect(outcome.changes.map(\.kind) == [.updated])
        #expect(outcome.snapshot.count == 2)
        #expect(outcome.snapshot.missing.isEmpty)
    }

    /// A row read twice (moved across a page boundary while the list was paged) is one change.
    @Test func aKeyReadTwiceIsOneChange() {
        let outcome = ChangeDetection.compare([row(1, "a"), row(2, "b"), row(1, "a")], with: ListSnapshot(), complete: true, keyFields: ["id"], after: 0)
        let expected: [JSONValue] = [["id": 1], ["id": 2]]
        #expect(outcome.changes.map(\.key) == expected)
    }

    @Test func theStateDocumentRoundTrips() throws {
        var state = FollowState()
        state.keyFields = ["entryId"]
        state.sequence = 76
        state.cursor = #"{"cursor":"2024-01-01T00:00:00Z"}"#
        state.snapshot = ChangeDetection.compare([row(1, "a"), row(9_223_372_036_854_775_807, "b")], with: ListSnapshot(), complete: true, keyFields: ["id"], after: 0).snapshot
        state.snapshot.set("[1]", digest: "x", missing: true)
        state.pending = [#"{"change":"added","seq":76,"key":{"id":1},"item":{"id":1}}"#]
        let key = StateKey(pipeline: "p", list: "follow:l")
        #expect(try FollowState(document: state.document, key: key) == state)
        #expect(throws: ScreensPipeError.self) { try FollowState(document: "[]", key: key) }
        #expect(throws: ScreensPipeError.self) { try FollowState(document: #"{"version":2}"#, key: key) }
    }

    /// A change line keeps the item's text as it was read: numbers are not rewritten.
    @Test func aChangeLineKeepsTheItemText() throws {
        let change = ListChange(kind: .added, sequence: 1, key: ["id": .int(1)], itemText: #"{"id":1,"price":0.10,"big":12345678901234567890123}"#)
        #expect(change.line == #"{"change":"added","seq":1,"key":{"id":1},"item":{"id":1,"price":0.10,"big":12345678901234567890123}}"#)
        #expect(ListChange(line: change.line)?.sequence == 1)
    }
}

/// The file a follow appends to: its last change, and a line a crash cut short.
@Suite struct ChangeLinesOutputTests {
    @Test func aCutLineIsRemovedAndTheLastChangeRead() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("follow-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("changes.jsonl").path
        let output = try ChangeLinesOutput.appending(to: path)
        #expect(try await output.lastSequence() == 0)
        let changes = (1...3).map { ListChange(kind: .added, sequence: $0, key: ["id": .int($0)], itemText: #"{"id":\#($0),"pad":"\#(String(repeating: "x", count: 40_000))"}"#) }
        try await output.write(changes)
        #expect(try await output.lastSequence() == 3)
        // A crash in the middle of the fourth line.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"change":"added","seq":4,"key":{"id"#.utf8))
        try handle.close()
        #expect(try await output.lastSequence() == 3)
        try await output.write([ListChange(kind: .deleted, sequence: 4, key: ["id": .int(1)], itemText: nil)])
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.last == #"{"change":"deleted","seq":4,"key":{"id":1}}"#)
        try "not a change\n".write(toFile: path, atomically: false, encoding: .utf8)
        await #expect(throws: ScreensPipeError.self) { try await output.lastSequence() }
    }
}
