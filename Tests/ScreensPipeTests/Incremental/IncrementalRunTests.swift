import Foundation
import ScreensBus
import Testing
@testable import ScreensPipeCore
@testable import ScreensPipeSQLite
import ScreensPipe

/// Incremental runs of a real pipeline over a file source, with the state in a real cache
/// database: each run writes its output file, and the union of the outputs is checked
/// against the rows as they changed.
@Suite struct IncrementalRunTests {
    final class Fixture {
        let directory: TemporaryDirectory
        var rows: [JSONValue] = []
        var run = 0

        init(count: Int) throws {
            directory = try TemporaryDirectory()
            rows = (0..<count).map { Self.row(id: Int64($0), modified: 1_000 + Int64($0 % 7) * 10) }
            try save()
        }

        static func row(id: Int64, modified: Int64, name: String? = nil) -> JSONValue {
            ["id": .int(id), "modifiedDate": .int(modified), "name": .string(name ?? "row \(id)")]
        }

        func save() throws {
            try JSONValue.array(rows).jsonString.write(toFile: directory.file("rows.json"), atomically: true, encoding: .utf8)
        }

        func yaml(output: String, extra: String = "") -> String {
            """
            name: incremental-file
            source:
              type: file
              path: \(directory.file("rows.json"))
              pagination: { first-page-size: 4, page-size: 3 }
            cache: { policy: remote-only, path: \(directory.file("cache.sqlite")) }
            sink: { path: \(output) }
            incremental: { cursor: modifiedDate, type: integer }
            \(extra)
            """
        }

        /// Runs the pipeline once; returns the ids written and the finished event.
        func runOnce(fullRefresh: Bool = false, extra: String = "") async throws -> (ids: [Int64], summary: RunSummary) {
            run += 1
            let output = directory.file("out-\(run).jsonl")
            let spec = try PipelineLoader().load(yaml: yaml(output: output, extra: extra), file: "<string>")
            var environment = PipelineEnvironment()
            environment.fullRefresh = fullRefresh
            // A failed run throws its first error, carrying the run's summary.
            let summary: RunSummary
            do {
                summary = try await Pipeline(spec: spec, environment: environment).run()
            } catch {
                // An error before the run started carries no summary: the caller's to see.
                guard let failed = error.summary else { throw error }
                summary = failed
            }
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            let ids = try text.split(separator: "\n").map { try #require(try JSONValue(parsing: String($0))["id"]?.int64Value) }
            return (ids, summary)
        }
    }

    @Test func aSecondRunDeliversExactlyTheChangedAndAddedRowsInListOrder() async throws {
        let fixture = try Fixture(count: 20)
        let first = try await fixture.runOnce()
        #expect(first.ids == Array(0..<20))
        #expect(first.summary.endedWithoutFailure)

        let unchanged = try await fixture.runOnce()
        #expect(unchanged.ids.isEmpty)

        // Modify rows 3 and 15, add 20 and 21 (one of them at the same new timestamp), delete row 8.
        fixture.rows[3] = Fixture.row(id: 3, modified: 2_000, name: "changed")
        fixture.rows[15] = Fixture.row(id: 15, modified: 2_001)
        fixture.rows.append(Fixture.row(id: 20, modified: 2_001))
        fixture.rows.append(Fixture.row(id: 21, modified: 1_500))
        fixture.rows.remove(at: 8)
        try fixture.save()
        #expect(try await fixture.runOnce().ids == [3, 15, 20, 21])

        // Same cursor value as the committed one (2001), written after the run: still delivered, once.
        fixture.rows.append(Fixture.row(id: 22, modified: 2_001))
        try fixture.save()
        #expect(try await fixture.runOnce().ids == [22])
        #expect(try await fixture.runOnce().ids.isEmpty)
    }

    @Test func fullRefreshDeliversEverythingAndRestartsTheCursor() async throws {
        let fixture = try Fixture(count: 9)
        _ = try await fixture.runOnce()
        let refreshed = try await fixture.runOnce(fullRefresh: true)
        #expect(refreshed.ids == Array(0..<9))
        #expect(try await fixture.runOnce().ids.isEmpty)
    }

    @Test func aLimitedRunDoesNotMoveTheCursor() async throws {
        let fixture = try Fixture(count: 9)
        let limited = try await fixture.runOnce(extra: "filter: { limit: 2 }")
        #expect(limited.ids == [0, 1])
        #expect(try await fixture.runOnce().ids == Array(0..<9))
    }

    @Test func aRowWithABadCursorFailsTheRunAndKeepsTheCursor() async throws {
        let fixture = try Fixture(count: 5)
        _ = try await fixture.runOnce()
        fixture.rows[1] = ["id": 1, "modifiedDate": "soon"]
        fixture.rows.append(Fixture.row(id: 5, modified: 5_000))
        try fixture.save()
        let failed = try await fixture.runOnce()
        #expect(!failed.summary.endedWithoutFailure)
        let failure = try #require(failed.summary.failures.first)
        #expect(failure.code == .conversion && failure.row == 1 && failure.message.contains("'modifiedDate' is not an integer"))
        // The cursor did not move: once the row is fixed, both changes come.
        fixture.rows[1] = Fixture.row(id: 1, modified: 4_000)
        try fixture.save()
        #expect(try await fixture.runOnce().ids == [1, 5])
    }

    @Test func aCorruptStateIsAClearErrorBeforeAnythingIsFetched() async throws {
        let fixture = try Fixture(count: 5)
        _ = try await fixture.runOnce()
        let spec = try PipelineLoader().load(yaml: fixture.yaml(output: fixture.directory.file("x.jsonl")), file: "<string>")
        let store = SQLiteListStateStore(cache: try CacheStore(path: fixture.directory.file("cache.sqlite")))
        try await store.commit(ListStateRecord(document: "{\"version\":1,\"type\":\"integer\",\"cursor\":", committedAt: Date()), for: try spec.stateKey())
        await #expect {
            _ = try await fixture.runOnce()
        } throws: { error in
            (error as? ScreensPipeError)?.code == .state
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.file("out-\(fixture.run).jsonl")))
        #expect(try await fixture.runOnce(fullRefresh: true).ids == Array(0..<5))
    }

    @Test func eventsSayTheCursorUsedAndTheNewOne() async throws {
        let fixture = try Fixture(count: 6)
        _ = try await fixture.runOnce()
        fixture.rows.append(Fixture.row(id: 6, modified: 9_000))
        try fixture.save()
        let spec = try PipelineLoader().load(yaml: fixture.yaml(output: fixture.directory.file("e.jsonl")), file: "<string>")
        let pipeline = Pipeline(spec: spec)
        let events = pipeline.subscribe()
        let collected = Task { var all: [PipelineEvent] = []; for await event in events { all.append(event) }; return all }
        _ = try await pipeline.run()
        let all = await collected.value
        guard case .started(let started)? = all.first, case .finished(let finished)? = all.last else {
            Issue.record("no started or finished event")
            return
        }
        #expect(started.cursor == "1050")
        #expect(started.cursorPushed == false)
        #expect(finished.cursor == "9000")
        #expect(finished.selected == 1)
    }

    /// A crash between the pending commit and the final one: the next run adopts the pending
    /// position when the file at the output path is the inode it names (the rename
    /// happened), and drops it otherwise.
    @Test(arguments: [true, false])
    func aPendingPositionIsAdoptedOnlyWhenItsOutputIsInPlace(_ renamed: Bool) async throws {
        let fixture = try Fixture(count: 5)
        _ = try await fixture.runOnce()
        let added = Fixture.row(id: 5, modified: 5_000)
        fixture.rows.append(added)
        try fixture.save()
        let published = fixture.directory.file("published.jsonl")
        try "{\"id\":5}\n".write(toFile: published, atomically: false, encoding: .utf8)
        let attributes = try FileManager.default.attributesOfItem(atPath: published)
        var inode = try #require(attributes[.systemFileNumber] as? UInt64)
        let device = try #require((attributes[.systemNumber] as? NSNumber)?.uint64Value)
        if !renamed { inode += 1 }
        let spec = try PipelineLoader().load(yaml: fixture.yaml(output: published), file: "<string>")
        let store = SQLiteListStateStore(cache: try CacheStore(path: fixture.directory.file("cache.sqlite")))
        let committed = CursorPosition(cursor: .integer(1_040), boundary: [CacheKey.digest(fixture.rows[4].jsonString)])
        let pending = CursorPosition(cursor: .integer(5_000), boundary: [CacheKey.digest(added.jsonString)])
        let state = IncrementalState(position: committed, pending: (pending, OutputIdentity(path: published, device: device, inode: inode)))
        try await store.commit(ListStateRecord(document: state.document(type: .integer), committedAt: Date()), for: try spec.stateKey())
        let next = try await fixture.runOnce()
        #expect(next.summary.endedWithoutFailure, "\(next.summary.failures)")
        #expect(next.ids == (renamed ? [] : [5]))
        let settled = try #require(try await store.record(for: try spec.stateKey()))
        #expect(try IncrementalState(document: settled.document, type: .integer, key: try spec.stateKey()).pending == nil)
    }

    /// `screens-pipe test` on an incremental pipeline without a cache section: each case
    /// starts from no cursor and leaves nothing in the default cache, so it passes every time.
    @Test func pipelineTestCasesStartFromNoCursor() async throws {
        let directory = try TemporaryDirectory()
        let pipeline = directory.file("p.yaml")
        try writeFile(pipeline, "name: p\nsource: { type: file, path: rows.json }\nincremental: { cursor: id, type: integer }\n")
        let rows: [JSONValue] = [["id": 1], ["id": 2]]
        let file = PipelineTestFile(
            path: directory.file("p.test.yaml"), pipeline: pipeline, variables: ["SCREENS_PIPE_CACHE_DIR": directory.file("default")],
            cases: [PipelineTestCase(name: "all rows", input: .rows(rows), expectation: PipelineTestExpectation(rowCount: 2))])
        for _ in 0..<2 {
            let results = await PipelineTestRunner().run(file)
            let failures = results.flatMap { $0.failures }
            #expect(results.count == 1 && failures.isEmpty, "\(failures)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("default")))
    }
}
