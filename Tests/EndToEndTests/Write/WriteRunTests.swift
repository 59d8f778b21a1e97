import Foundation
import Sandbox
import ScreensBus
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `screens-pipe write` end to end: rows written through the binary are read back with a
/// list pipeline from the same sandbox portal, exactly once each.
@Suite("write: round trips, copies, crashes and ambiguous failures")
struct WriteRunTests {
    @Test("60 rows in batches of 25 come back from a list pipeline: same values, in order, once each")
    func roundTrip() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let result = try await workspace.write(try workspace.writePipeline(server: server), ["--input", try workspace.rows(60)])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let outcomes = try result.jsonLines()
            #expect(outcomes.count == 60)
            #expect(outcomes.allSatisfy { $0["outcome"]?.stringValue == "created" })
            #expect(outcomes.map { $0["line"]?.int64Value } == (1...60).map { Int64($0) })

            let entries = try await workspace.readBack(server: server)
            #expect(entries.map { $0["name"]?.stringValue } == (1...60).map { "row \($0)" })
            #expect(entries.map { $0["url"]?.stringValue } == (1...60).map { "https://example.com/row/\($0)" })
            #expect(entries.map { $0["description"]?.stringValue } == (1...60).map { "line \($0) of 60" })
            #expect(Set(entries.compactMap { $0["entryId"]?.int64Value }) == Set(outcomes.compactMap { $0["entryId"]?.int64Value }))
            #expect(entries.allSatisfy { $0["folderId"]?.int64Value == 20201 })
        }
    }

    @Test("a rerun writes nothing: the journal says every row is done")
    func rerunSkipsJournaledRows() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL)
            let rows = try workspace.rows(30)
            let first = try await workspace.write(pipeline, ["--input", rows])
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let requestsAfterFirst = harness.server.requestCount
            let second = try await workspace.write(pipeline, ["--input", rows])
            #expect(second.status == 0, "stderr: \(second.stderr)")
            #expect(try second.jsonLines().allSatisfy { $0["outcome"]?.stringValue == "unchanged" })
            #expect(harness.server.requestCount == requestsAfterFirst)
            #expect(try await workspace.readBack(server: harness.server.baseURL).count == 30)
        }
    }

    @Test("a changed row is updated in place, not created again")
    func changedRowIsUpdated() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL)
            _ = try await workspace.write(pipeline, ["--input", try workspace.rows(3)])
            let changed = try workspace.save(
                "changed.jsonl", #"{"name":"renamed","url":"https://example.com/row/2","description":"new"}"# + "\n")
            let result = try await workspace.write(pipeline, ["--input", changed])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try result.jsonLines().map { $0["outcome"]?.stringValue } == ["updated"])
            let entries = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entries.map { $0["name"]?.stringValue } == ["row 1", "renamed", "row 3"])
            #expect(entries[1]["description"] == "new")
            let created = try #require(entries[1]["createDate"]?.int64Value)
            #expect(try #require(entries[1]["modifiedDate"]?.int64Value) > created)
            #expect(entries[0]["modifiedDate"] == entries[0]["createDate"])
        }
    }

    @Test("copy a list from one sandbox portal to another: the same rows arrive")
    func copyBetweenPortals() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { from in
            try await withSandbox { to in
                let source = """
                    source:
                      type: liferay-jsonws
                      server: \(from.server.baseURL)
                      auth: { basic: { username: test@liferay.com, password: test } }
                      rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
                      count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
                    cache: { policy: remote-only }
                    """
                let pipeline = try workspace.writePipeline(server: to.server.baseURL, batchSize: 10, source: source)
                let result = try await CommandRunner.run(["write", pipeline])
                #expect(result.status == 0, "stderr: \(result.stderr)")
                let original = try await workspace.readBack(server: from.server.baseURL, folderId: 0)
                let copied = try await workspace.readBack(server: to.server.baseURL)
                #expect(original.count == 73)
                for field in ["name", "url", "description"] {
                    #expect(copied.map { $0[field] } == original.map { $0[field] }, "field \(field)")
                }
            }
        }
    }

    // The 4th data request (batch 4) is carried out and then stalls: the write is stuck
    // waiting for the answer to a batch the portal has stored, which is when the kill comes.
    // A shell loop in its own process watches the results and kills, so the kill does not
    // wait for a busy test thread pool. Later stalls (every 4th request) end after a while.
    @Test("kill -9 while a stored batch's answer is on its way, then a rerun: every row once, none missing")
    func killAndRerun() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox(faults: FaultPlan(stallEvery: 4, stallDuration: .seconds(8))) { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL, batchSize: 25)
            let rows = try workspace.rows(150)
            let killed = try await CommandRunner.shell(
                """
                # Created before the writer starts: the background job opens it itself, later, and
                # a loop reading a file not there yet would end at once and kill too early.
                : > "$DIR/out.jsonl"
                "$SP" write "$PIPELINE" --input "$ROWS" --rejects "$DIR/rejects.jsonl" >> "$DIR/out.jsonl" 2> /dev/null &
                writer=$!
                while [ "$(wc -l < "$DIR/out.jsonl")" -lt 75 ]; do sleep 0.02; done
                # Batch 4 goes out once batch 3's answer is in, and its answer stalls for 8 s:
                # a second's wait puts the kill in that stall on a loaded machine too.
                sleep 1
                kill -9 $writer
                wait $writer
                echo "status $?"
                """,
                environment: workspace.environment.merging(["PIPELINE": pipeline, "ROWS": rows, "DIR": workspace.directory.path]) { $1 })
            #expect(killed.stdoutText == "status 137\n", "the writer was killed by SIGKILL: \(killed.stdoutText) \(killed.stderr)")
            #expect(harness.server.requestCount == 4, "batches 1 to 4 were sent, and nothing else")

            let rerun = try await workspace.write(pipeline, ["--input", rows])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            let outcomes = try rerun.jsonLines()
            #expect(outcomes.filter { $0["outcome"] == "unchanged" }.count == 75, "batches 1 to 3: journaled as done")
            #expect(outcomes.filter { $0["outcome"] == "created" }.count == 75, "batch 4 found by the lookup, 5 and 6 sent")
            #expect(harness.server.requestCount == 7, "one lookup, then batches 5 and 6")
            let entries = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entries.count == 150)
            #expect(entries.urlCounts.values.allSatisfy { $0 == 1 })
            #expect(Set(entries.compactMap { $0["url"]?.stringValue }) == Set((1...150).map { "https://example.com/row/\($0)" }))
        }
    }

    @Test("the connection drops after every 2nd request was carried out: looked up, never duplicated")
    func ambiguousFailureIsLookedUp() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox(faults: FaultPlan(dropAfterProcessingEvery: 2)) { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL, batchSize: 3)
            let result = try await workspace.write(pipeline, ["--input", try workspace.rows(20)])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("looking its entries up before sending again"))
            let outcomes = try result.jsonLines()
            #expect(outcomes.count == 20)
            #expect(outcomes.allSatisfy { $0["outcome"]?.stringValue == "created" })
            let entries = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entries.count == 20)
            #expect(entries.urlCounts.values.allSatisfy { $0 == 1 })
        }
    }

    @Test("a portal that never answers: exit 1 naming the batch's lines and saying they stay pending")
    func noAnswerKeepsRowsPending() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox(faults: FaultPlan(dropAfterProcessingEvery: 1)) { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL, batchSize: 4)
            let result = try await workspace.write(pipeline, ["--input", try workspace.rows(4)])
            #expect(result.status == 1)
            #expect(result.stderr.contains("lines 1, 2, 3, 4"), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("pending"))
        }
    }
}
