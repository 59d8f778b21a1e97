import Foundation
import Sandbox
import ScreensBus
import Testing

/// Replicas sharing one PostgreSQL cache share one outbox and one write journal: the real
/// binary, several processes at once, each in a directory of its own (a machine of its own:
/// nothing local is shared), against the sandbox portal.
@Suite("outbox: a fleet on one PostgreSQL outbox", .enabled(if: TestPostgres.serverURL != nil, TestPostgres.needed))
struct PostgresOutboxFleetTests {
    /// `count` replicas' workspaces and the pipeline file of each, all naming `database`.
    private func replicas(_ count: Int, database: String, server: String, policy: String = "cache-only") throws -> [(WriteWorkspace, String)] {
        try (0..<count).map { _ in
            let workspace = try WriteWorkspace()
            let pipeline = try workspace.writePipeline(
                server: server, batchSize: 10, source: #"cache: { url: "\#(database)", tls: disable }"#, extra: "  write-policy: \(policy)")
            return (workspace, pipeline)
        }
    }

    private func outbox(_ replica: (WriteWorkspace, String), _ command: String, _ arguments: [String] = []) async throws -> CommandResult {
        try await CommandRunner.run(["outbox", command, replica.1] + arguments, environment: replica.0.environment, directory: replica.0.directory)
    }

    /// The pending writes as PostgreSQL holds them, counted with psql.
    private func pendingInDatabase(_ database: String) async throws -> Int {
        let counted = try await CommandRunner.shell(
            #"psql -qtA -v ON_ERROR_STOP=1 "$URL" -c "SELECT COUNT(*) FROM screens_pipe_write_outbox""#, environment: ["URL": database])
        try #require(counted.status == 0, "psql: \(counted.stderr)")
        return try #require(Int(counted.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test("writes with the portal down go pending in PostgreSQL; another replica lists and syncs them, each once")
    func pendingInPostgres() async throws {
        let database = try await TestPostgres.freshDatabase()
        try await withSandbox { harness in
            let fleet = try replicas(2, database: database, server: harness.server.baseURL, policy: "remote-first")
            defer { fleet.forEach { $0.0.remove() } }
            harness.server.setAvailable(false)
            let written = try await fleet[0].0.write(fleet[0].1, ["--input", try fleet[0].0.rows(6)])
            #expect(written.status == 0, "stderr: \(written.stderr)")
            #expect(written.stderr.contains("6 pending in the outbox"), "\(written.stderr)")
            #expect(try await pendingInDatabase(database) == 6, "the outbox is in PostgreSQL")

            let listed = try await outbox(fleet[1], "list")
            #expect(listed.status == 0, "stderr: \(listed.stderr)")
            #expect(try listed.jsonLines().map { $0["key"]?[0]?.stringValue } == (1...6).map { "https://example.com/row/\($0)" })

            harness.server.setAvailable(true)
            let synced = try await outbox(fleet[1], "sync")
            #expect(synced.status == 0, "stderr: \(synced.stderr)")
            #expect(try synced.jsonLines().filter { $0["state"] == "completed" }.count == 6)
            let entries = try await fleet[1].0.readBack(server: harness.server.baseURL)
            #expect(entries.count == 6)
            #expect(entries.urlCounts.values.allSatisfy { $0 == 1 })
            #expect(try await pendingInDatabase(database) == 0)
            #expect(try await outbox(fleet[0], "list").stdoutLines.isEmpty, "the first replica sees the same, empty outbox")

            // The journal is shared too: the same rows again from the first replica are written already.
            let again = try await fleet[0].0.write(fleet[0].1, ["--input", try fleet[0].0.rows(6)])
            #expect(again.status == 0, "stderr: \(again.stderr)")
            #expect(try again.jsonLines().filter { $0["outcome"] != nil }.allSatisfy { $0["outcome"] == "unchanged" }, "\(again.stdoutText)")
            #expect(try await pendingInDatabase(database) == 0)
        }
    }

    @Test("discard and clear work on the PostgreSQL outbox from any replica")
    func discardAndClear() async throws {
        let database = try await TestPostgres.freshDatabase()
        try await withSandbox { harness in
            let fleet = try replicas(2, database: database, server: harness.server.baseURL)
            defer { fleet.forEach { $0.0.remove() } }
            #expect(try await fleet[0].0.write(fleet[0].1, ["--input", try fleet[0].0.rows(3)]).status == 0)
            let discarded = try await outbox(fleet[1], "discard", [#"["https://example.com/row/2","20201"]"#])
            #expect(discarded.status == 0, "stderr: \(discarded.stderr)")
            #expect(try await outbox(fleet[0], "list").jsonLines().map { $0["key"]?[0]?.stringValue } == [
                "https://example.com/row/1", "https://example.com/row/3",
            ])
            let cleared = try await outbox(fleet[0], "clear")
            #expect(cleared.status == 0, "stderr: \(cleared.stderr)")
            #expect(cleared.stderr.contains("discarded 2 pending writes"), "\(cleared.stderr)")
            #expect(try await pendingInDatabase(database) == 0)
            #expect(harness.server.requestCount == 0)
        }
    }

    @Test("two replicas sync one outbox at once: they share the work, and each write is applied once")
    func twoReplicasAtOnce() async throws {
        let database = try await TestPostgres.freshDatabase()
        // Every answer takes 60 ms: both syncs are mid-send at the same time, many times over.
        try await withSandbox(faults: FaultPlan(latency: .milliseconds(60))) { harness in
            let fleet = try replicas(2, database: database, server: harness.server.baseURL)
            defer { fleet.forEach { $0.0.remove() } }
            #expect(try await fleet[0].0.write(fleet[0].1, ["--input", try fleet[0].0.rows(40)]).status == 0)
            let results = try await withThrowingTaskGroup(of: CommandResult.self) { group in
                for replica in fleet { group.addTask { try await outbox(replica, "sync") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            var completedBy: [[String]] = []
            for result in results {
                #expect(result.status == 0, "stderr: \(result.stderr)")
                completedBy.append(try result.jsonLines().filter { $0["state"] == "completed" }.compactMap { $0["key"]?[0]?.stringValue })
            }
            let all = completedBy.flatMap { $0 }
            #expect(all.count == 40, "each write completed by one replica: \(completedBy)")
            #expect(Set(all).count == 40)
            #expect(completedBy.allSatisfy { !$0.isEmpty }, "both replicas sent some: \(completedBy.map(\.count))")
            let entries = try await fleet[0].0.readBack(server: harness.server.baseURL)
            #expect(entries.count == 40)
            #expect(entries.urlCounts.values.allSatisfy { $0 == 1 })
            #expect(try await pendingInDatabase(database) == 0)
        }
    }

    // The killed replica is mid-send: the journal marked its write pending before the request
    // left, so whoever takes the write next looks it up instead of sending it again.
    @Test("kill -9 of one replica mid-sync, then a rerun: every write applied exactly once")
    func killOneReplicaMidSync() async throws {
        let database = try await TestPostgres.freshDatabase()
        try await withSandbox(faults: FaultPlan(latency: .milliseconds(150))) { harness in
            let fleet = try replicas(2, database: database, server: harness.server.baseURL)
            defer { fleet.forEach { $0.0.remove() } }
            #expect(try await fleet[0].0.write(fleet[0].1, ["--input", try fleet[0].0.rows(30)]).status == 0)
            let killed = try await CommandRunner.shell(
                """
                : > "$DIR/a.jsonl"; : > "$DIR/b.jsonl"
                "$SP" outbox sync "$A" >> "$DIR/a.jsonl" 2> /dev/null &
                a=$!
                "$SP" outbox sync "$B" >> "$DIR/b.jsonl" 2> /dev/null &
                b=$!
                # Waits (30 s at most) until the command given succeeds.
                until_true() { for _ in $(seq 3000); do if eval "$1"; then return 0; fi; sleep 0.01; done; echo "timed out: $1"; }
                until_true '[ "$(grep -c completed "$DIR/a.jsonl")" -ge 4 ]'
                # Mid-send: the replica's last event is a write it started and has not completed.
                until_true 'tail -n 1 "$DIR/a.jsonl" | grep -q "\"started\""'
                kill -9 $a
                wait $a
                echo "a $?"
                wait $b
                echo "b $?"
                """,
                environment: [
                    "A": fleet[0].1, "B": fleet[1].1, "DIR": fleet[0].0.directory.path,
                    "SCREENS_PIPE_CACHE_DIR": fleet[0].0.directory.appendingPathComponent("cache").path,
                ], directory: fleet[0].0.directory)
            #expect(killed.stdoutText == "a 137\nb 0\n", "\(killed.stdoutText) \(killed.stderr)")
            let killedEvents = try String(contentsOfFile: fleet[0].0.path("a.jsonl"), encoding: .utf8)
                .split(separator: "\n").map { try JSONValue(parsing: String($0)) }
            let inFlight = try #require(killedEvents.last)
            #expect(inFlight["state"] == "started", "killed mid-send")
            let inFlightURL = try #require(inFlight["key"]?[0]?.stringValue)

            let rerun = try await outbox(fleet[1], "sync")
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            let entries = try await fleet[1].0.readBack(server: harness.server.baseURL)
            #expect(entries.count == 30)
            #expect(entries.urlCounts.values.allSatisfy { $0 == 1 }, "\(entries.urlCounts.filter { $0.value != 1 })")
            #expect(entries.urlCounts[inFlightURL] == 1, "the write the killed replica was sending is there once")
            #expect(try await pendingInDatabase(database) == 0)
        }
    }
}
