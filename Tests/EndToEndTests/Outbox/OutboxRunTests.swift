import Foundation
import Sandbox
import ScreensBus
import Testing

/// `write-policy` and `screens-pipe outbox` through the binary against the sandbox portal,
/// which goes down and comes back on command (`SandboxServer.setAvailable`).
@Suite("screens-pipe outbox")
struct OutboxRunTests {
    private func pipeline(_ workspace: WriteWorkspace, _ harness: SandboxHarness, policy: String) throws -> String {
        try workspace.writePipeline(server: harness.server.baseURL, batchSize: 10, extra: "  write-policy: \(policy)")
    }

    private func outbox(_ workspace: WriteWorkspace, _ arguments: [String]) async throws -> CommandResult {
        try await CommandRunner.run(["outbox"] + arguments, environment: workspace.environment, directory: workspace.directory)
    }

    @Test("cache-only keeps every row pending and sends nothing; sync sends each once, in order")
    func cacheOnlyThenSync() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try pipeline(workspace, harness, policy: "cache-only")
            let written = try await workspace.write(pipeline, ["--input", try workspace.rows(5)])
            #expect(written.status == 0, "stderr: \(written.stderr)")
            let results = try written.jsonLines()
            #expect(results.map { $0["outcome"]?.stringValue } == Array(repeating: "pending", count: 5))
            #expect(results.allSatisfy { $0["operation"] == "add" })
            #expect(written.stderr.contains("5 pending in the outbox"), "\(written.stderr)")
            #expect(harness.server.requestCount == 0, "cache-only sends nothing")

            let listed = try await outbox(workspace, ["list", pipeline])
            #expect(listed.status == 0, "stderr: \(listed.stderr)")
            let entries = try listed.jsonLines()
            #expect(entries.count == 5)
            #expect(entries.first?["key"] == ["https://example.com/row/1", "20201"])
            #expect(entries.allSatisfy { $0["operation"] == "add" && $0["attempts"] == 0 && $0["lastError"] == .null && $0["age"]?.int64Value != nil })

            let synced = try await outbox(workspace, ["sync", pipeline])
            #expect(synced.status == 0, "stderr: \(synced.stderr)")
            let events = try synced.jsonLines()
            #expect(events.map { $0["state"]?.stringValue } == Array(repeating: ["started", "completed"], count: 5).flatMap { $0 })
            #expect(events.filter { $0["state"] == "completed" }.map { $0["key"]?[0]?.stringValue } == (1...5).map { "https://example.com/row/\($0)" })
            #expect(events.filter { $0["state"] == "completed" }.allSatisfy { $0["outcome"] == "created" })
            let entriesOnPortal = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entriesOnPortal.map { $0["url"]?.stringValue } == (1...5).map { "https://example.com/row/\($0)" })
            #expect(try await outbox(workspace, ["list", pipeline]).stdoutLines.isEmpty)

            let again = try await outbox(workspace, ["sync", pipeline])
            #expect(again.status == 0)
            #expect(again.stdoutLines.isEmpty, "nothing is pending any more")
            #expect(try await workspace.readBack(server: harness.server.baseURL).count == 5)
        }
    }

    @Test("remote-first with the portal down: rows go pending, the write succeeds; sync after it is back writes each once")
    func remoteFirstWhileDown() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try pipeline(workspace, harness, policy: "remote-first")
            harness.server.setAvailable(false)
            let written = try await workspace.write(pipeline, ["--input", try workspace.rows(12)])
            #expect(written.status == 0, "stderr: \(written.stderr)")
            #expect(written.stderr.contains("could not be reached"), "\(written.stderr)")
            #expect(written.stderr.contains("12 pending in the outbox"), "\(written.stderr)")
            let syncEvents = try written.jsonLines().filter { $0["state"] != nil }
            #expect(syncEvents.map { $0["state"]?.stringValue } == ["started", "failed"], "the first write found the portal down and the rest waited")

            let stillDown = try await outbox(workspace, ["sync", pipeline])
            #expect(stillDown.status == 1, "a sync that cannot reach the portal fails: \(stillDown.stderr)")
            #expect(stillDown.stderr.contains("503") || stillDown.stderr.contains("Service Unavailable"), "\(stillDown.stderr)")
            let listed = try await outbox(workspace, ["list", pipeline]).jsonLines()
            #expect(listed.count == 12)
            #expect(listed.first?["attempts"] == 2)
            #expect(listed.first?["lastError"]?.stringValue?.isEmpty == false)

            harness.server.setAvailable(true)
            let synced = try await outbox(workspace, ["sync", pipeline])
            #expect(synced.status == 0, "stderr: \(synced.stderr)")
            #expect(try synced.jsonLines().filter { $0["state"] == "completed" }.count == 12)
            let entries = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entries.count == 12)
            #expect(entries.urlCounts.values.allSatisfy { $0 == 1 })
            #expect(try await outbox(workspace, ["list", pipeline]).stdoutLines.isEmpty)
        }
    }

    @Test("remote-first and cache-first with the portal up: written now, nothing left pending")
    func onlinePolicies() async throws {
        for policy in ["remote-first", "cache-first"] {
            let workspace = try WriteWorkspace()
            defer { workspace.remove() }
            try await withSandbox { harness in
                let pipeline = try pipeline(workspace, harness, policy: policy)
                let written = try await workspace.write(pipeline, ["--input", try workspace.rows(4)])
                #expect(written.status == 0, "\(policy) stderr: \(written.stderr)")
                #expect(written.stderr.contains("4 created"), "\(policy): \(written.stderr)")
                let completed = try written.jsonLines().filter { $0["state"] == "completed" }
                #expect(completed.count == 4, "\(policy)")
                #expect(try await workspace.readBack(server: harness.server.baseURL).count == 4, "\(policy)")
                #expect(try await outbox(workspace, ["list", pipeline]).stdoutLines.isEmpty, "\(policy)")
            }
        }
    }

    @Test("pending writes to one key collapse: an update after an add is one add; after a sync it is an update")
    func collapsing() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try pipeline(workspace, harness, policy: "cache-only")
            let one = try workspace.save("one.jsonl", #"{"name":"first","url":"https://example.com/k"}"# + "\n")
            let two = try workspace.save("two.jsonl", #"{"name":"second","url":"https://example.com/k"}"# + "\n")
            let three = try workspace.save("three.jsonl", #"{"name":"third","url":"https://example.com/k"}"# + "\n")
            #expect(try await workspace.write(pipeline, ["--input", one]).status == 0)
            let second = try await workspace.write(pipeline, ["--input", two])
            #expect(try second.jsonLines().first?["operation"] == "add", "an update after a pending add is the add")
            let listed = try await outbox(workspace, ["list", pipeline]).jsonLines()
            #expect(listed.count == 1)
            #expect(listed.first?["row"]?["name"] == "second")

            let synced = try await outbox(workspace, ["sync", pipeline])
            #expect(try synced.jsonLines().last?["outcome"] == "created")
            #expect(harness.server.requestCount == 1, "one add-entry, nothing else")

            let third = try await workspace.write(pipeline, ["--input", three])
            #expect(try third.jsonLines().first?["operation"] == "update", "the journal knows the entry now")
            let resynced = try await outbox(workspace, ["sync", pipeline])
            #expect(try resynced.jsonLines().last?["outcome"] == "updated", "stderr: \(resynced.stderr)")
            let entries = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entries.count == 1)
            #expect(entries.first?["name"] == "third")

            // The same values again: the journal says it is written, nothing is kept.
            let unchanged = try await workspace.write(pipeline, ["--input", three])
            #expect(try unchanged.jsonLines().first?["outcome"] == "unchanged")
            #expect(try await outbox(workspace, ["list", pipeline]).stdoutLines.isEmpty)
        }
    }

    @Test("discard forgets one key's pending write, clear all of them")
    func discardAndClear() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try pipeline(workspace, harness, policy: "cache-only")
            #expect(try await workspace.write(pipeline, ["--input", try workspace.rows(3)]).status == 0)
            let discarded = try await outbox(workspace, ["discard", pipeline, #"[ "https://example.com/row/2", "20201" ]"#])
            #expect(discarded.status == 0, "stderr: \(discarded.stderr)")
            #expect(try await outbox(workspace, ["list", pipeline]).jsonLines().map { $0["key"]?[0]?.stringValue } == [
                "https://example.com/row/1", "https://example.com/row/3",
            ])
            let missing = try await outbox(workspace, ["discard", pipeline, #"["https://example.com/row/2","20201"]"#])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("no pending write has the key"))
            let cleared = try await outbox(workspace, ["clear", pipeline])
            #expect(cleared.status == 0)
            #expect(cleared.stderr.contains("discarded 2 pending writes"))
            #expect(try await outbox(workspace, ["list", pipeline]).stdoutLines.isEmpty)
            #expect(harness.server.requestCount == 0)
        }
    }

    @Test("--events shows started, sync, response and finished events")
    func events() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try pipeline(workspace, harness, policy: "cache-only")
            #expect(try await workspace.write(pipeline, ["--input", try workspace.rows(2)]).status == 0)
            let synced = try await outbox(workspace, ["sync", pipeline, "--events"])
            #expect(synced.status == 0, "stderr: \(synced.stderr)")
            let events = try synced.jsonLines()
            let kinds = events.map { event -> String in
                let kind = event["event"]?.stringValue ?? "?"
                return kind == "custom" ? "\(event["name"]?.stringValue ?? "?"):\(event["payload"]?["state"]?.stringValue ?? "")" : kind
            }
            #expect(kinds == ["started", "sync:started", "response", "sync:completed", "sync:started", "response", "sync:completed", "finished"], "\(kinds)")
        }
    }

    @Test("a write policy needs a portal that outlives the run")
    func sandboxRefused() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let pipeline = try workspace.writePipeline(server: "sandbox", extra: "  write-policy: cache-only")
        let result = try await workspace.write(pipeline, ["--input", try workspace.rows(1)])
        #expect(result.status == 2)
        #expect(result.stderr.contains("outlives the run"), "\(result.stderr)")
    }

    // Each pending write is one request; the 30th is carried out and its answer stalls,
    // which is when the kill comes. The rerun finds it by a lookup instead of sending it again.
    @Test("kill -9 during a sync, then a sync again: every pending write applied exactly once")
    func killDuringSync() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox(faults: FaultPlan(stallEvery: 30, stallDuration: .seconds(8))) { harness in
            let pipeline = try pipeline(workspace, harness, policy: "cache-only")
            #expect(try await workspace.write(pipeline, ["--input", try workspace.rows(50)]).status == 0)
            let killed = try await CommandRunner.shell(
                """
                : > "$DIR/out.jsonl"
                "$SP" outbox sync "$PIPELINE" >> "$DIR/out.jsonl" 2> /dev/null &
                syncer=$!
                while [ "$(grep -c completed "$DIR/out.jsonl")" -lt 29 ]; do sleep 0.02; done
                sleep 1
                kill -9 $syncer
                wait $syncer
                echo "status $?"
                """,
                environment: workspace.environment.merging(["PIPELINE": pipeline, "DIR": workspace.directory.path]) { $1 })
            #expect(killed.stdoutText == "status 137\n", "killed by SIGKILL: \(killed.stdoutText) \(killed.stderr)")
            #expect(harness.server.requestCount == 30, "writes 1 to 30 were sent, and nothing else")
            #expect(try await outbox(workspace, ["list", pipeline]).jsonLines().count == 21, "the 30th stays pending until its outcome is known")

            let rerun = try await outbox(workspace, ["sync", pipeline])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            let completed = try rerun.jsonLines().filter { $0["state"] == "completed" }
            #expect(completed.count == 21)
            #expect(completed.first?["key"]?[0] == "https://example.com/row/30")
            let entries = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entries.count == 50)
            #expect(entries.urlCounts.values.allSatisfy { $0 == 1 })
            #expect(try await outbox(workspace, ["list", pipeline]).stdoutLines.isEmpty)
        }
    }
}
