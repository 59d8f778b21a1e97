import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs of one pipeline started at once, through the real binary, as an overlapping cron job
/// starts them (architecture.md, "Running twice at once"): writes create each key once,
/// incremental runs deliver each change once, loads store one snapshot, and a run that waits
/// too long fails with exit 75 naming the holder.
@Suite("run and write: several runs of one pipeline at once")
struct ConcurrentRunTests {
    /// Every answer of the portal is 150 ms late: each writer's first batch is still on its
    /// way when the others start, which is when two writers both found nothing and both created.
    private static let slowPortal = FaultPlan(latency: .milliseconds(150))

    /// A bookmark write keyed by URL, as pipelines/import-bookmarks.yaml is.
    private func keyedWritePipeline(_ workspace: WriteWorkspace, server: String, more: String = "") throws -> String {
        try workspace.writePipeline(server: server, batchSize: 4, extra: "  key: [url, folderId]\n\(more)")
    }

    @Test("two and three writers at once: each key created exactly once, the others find it done", arguments: [2, 3])
    func writersAtOnce(count: Int) async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox(faults: Self.slowPortal) { harness in
            let pipeline = try keyedWritePipeline(workspace, server: harness.server.baseURL)
            let rows = try workspace.rows(10)
            let results = try await withThrowingTaskGroup(of: CommandResult.self) { group in
                for _ in 0..<count { group.addTask { try await workspace.write(pipeline, ["--input", rows]) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for result in results { #expect(result.status == 0, "stderr: \(result.stderr)") }
            let outcomes = try results.flatMap { try $0.jsonLines() }.compactMap { $0["outcome"]?.stringValue }
            #expect(outcomes.filter { $0 == "created" }.count == 10, "\(outcomes)")
            #expect(outcomes.filter { $0 == "unchanged" }.count == 10 * (count - 1), "\(outcomes)")
            let entries = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entries.count == 10)
            #expect(entries.urlCounts.values.allSatisfy { $0 == 1 }, "\(entries.urlCounts)")
        }
    }

    @Test("the holder is killed with -9 mid-write: the waiting writer takes over, each key once")
    func holderKilled() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        // The 2nd request (batch 2) is carried out and its answer stalls: the first writer
        // holds the lock there, batch 2 stored at the portal but pending in its journal. The
        // stall outlasts any delay of this test's own steps (under a loaded full test run a
        // 30 s stall once ended before the kill, and the holder finished), and the holder's
        // timeout outlasts the stall: the holder is always killed mid-write.
        try await withSandbox(faults: FaultPlan(stallEvery: 2, stallDuration: .seconds(600))) { harness in
            let pipeline = try keyedWritePipeline(workspace, server: harness.server.baseURL, more: "  timeout: 900s\n")
            let rows = try workspace.rows(8)
            let holder = try RunningCommand(
                ["write", pipeline, "--input", rows, "--rejects", workspace.path("holder-rejects.jsonl")], environment: workspace.environment)
            try await waitUntil { harness.server.requestCount >= 2 }
            try #require(harness.server.requestCount == 2)
            async let second = workspace.write(pipeline, ["--input", rows])
            // The second writer is waiting for the lock, not writing.
            try await Task.sleep(for: .milliseconds(600))
            #expect(harness.server.requestCount == 2)
            holder.send(SIGKILL)
            let killed = await holder.wait()
            #expect(killed.status == 9 || killed.status == 137, "killed while it held the lock: \(killed)")
            let result = try await second
            #expect(result.status == 0, "stderr: \(result.stderr)")
            // Batch 1 from the journal, batch 2 (pending) found by one lookup: nothing sent twice.
            let outcomes = try result.jsonLines().compactMap { $0["outcome"]?.stringValue }
            #expect(outcomes == Array(repeating: "unchanged", count: 4) + Array(repeating: "created", count: 4), "\(outcomes)")
            #expect(harness.server.requestCount == 3, "one lookup after the two batches")
            let entries = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entries.count == 8)
            #expect(entries.urlCounts.values.allSatisfy { $0 == 1 }, "\(entries.urlCounts)")
        }
    }

    @Test("a writer that waits longer than cache.lock-wait fails with exit 75 naming the holder")
    func waitRunsOut() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox(faults: FaultPlan(stallEvery: 1, stallDuration: .seconds(20))) { harness in
            let pipeline = try keyedWritePipeline(workspace, server: harness.server.baseURL)
            let rows = try workspace.rows(4)
            let holder = try RunningCommand(
                ["write", pipeline, "--input", rows, "--rejects", workspace.path("holder-rejects.jsonl")], environment: workspace.environment)
            defer { holder.send(SIGKILL) }
            try await waitUntil { harness.server.requestCount >= 1 }
            let started = ContinuousClock.now
            let refused = try await workspace.write(pipeline, ["--input", rows, "--set", "cache.lock-wait=1s"])
            let waited = ContinuousClock.now - started
            #expect(refused.status == 75, "stderr: \(refused.stderr)")
            #expect(refused.stderr.contains("another run holds the lock of the writes of 'write-test'"), "\(refused.stderr)")
            #expect(refused.stderr.contains("pid \(holder.process.processIdentifier) on \(ProcessInfo.processInfo.hostName) since "), "\(refused.stderr)")
            #expect(waited >= .seconds(1))
            #expect(refused.stdoutText.isEmpty, "the refused writer wrote nothing")
        }
    }

    @Test(
        "two replicas on one PostgreSQL, each with its own local journal: each key created once",
        .enabled(if: TestPostgres.serverURL != nil, TestPostgres.needed))
    func replicasOnOnePostgres() async throws {
        let database = try await TestPostgres.freshDatabase()
        let first = try WriteWorkspace()
        let second = try WriteWorkspace()
        defer {
            first.remove()
            second.remove()
        }
        try await withSandbox(faults: Self.slowPortal) { harness in
            let cache = "cache: { url: \"\(database)\", tls: disable }\n"
            // The same pipeline text on two "machines": separate directories, separate SQLite journals.
            let pipelines = try [first, second].map { try keyedWritePipeline($0, server: harness.server.baseURL, more: cache) }
            let rows = try first.rows(10)
            async let a = first.write(pipelines[0], ["--input", rows])
            async let b = second.write(pipelines[1], ["--input", rows])
            let results = try await [a, b]
            for result in results { #expect(result.status == 0, "stderr: \(result.stderr)") }
            let entries = try await first.readBack(server: harness.server.baseURL)
            #expect(entries.count == 10)
            #expect(entries.urlCounts.values.allSatisfy { $0 == 1 }, "\(entries.urlCounts)")
        }
    }

    @Test("two incremental runs at once: every row delivered by exactly one of them")
    func incrementalRunsAtOnce() async throws {
        try await withSandbox(faults: FaultPlan(latency: .milliseconds(60))) { sandbox in
            let workspace = try IncrementalWorkspace()
            let file = try workspace.pipeline("inc-twice", source: IncrementalWorkspace.jsonwsBookmarks)
            async let a = sandbox.run(file)
            async let b = sandbox.run(file)
            let results = try await [a, b]
            for result in results { #expect(result.status == 0, "stderr: \(result.stderr)") }
            let delivered = try results.flatMap { try $0.values("entryId") }
            let all = try await sandbox.run(file, ["--full-refresh"])
            let every = try all.values("entryId")
            #expect(!every.isEmpty)
            #expect(delivered.sorted() == every.sorted(), "each row once across both runs")
            #expect(results.contains { $0.stdoutLines.isEmpty }, "the second run found the first one's cursor")
        }
    }

    @Test("two loads into one SQLite cache at once: one fetches, the other reads its pages; one snapshot")
    func cacheLoadsAtOnce() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("cache.sqlite").path
        let file = directory.appendingPathComponent("cached.yaml").path
        try """
            name: cached-twice
            source:
              type: liferay-jsonws
              server: ${LIFERAY_SERVER}
              auth: { basic: { username: test@liferay.com, password: test } }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
              pagination: { first-page-size: 10, page-size: 7, prefetch: 2 }
            cache: { policy: cache-first, ttl: 1h, path: \(cache) }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        try await withSandbox(faults: FaultPlan(latency: .milliseconds(80))) { sandbox in
            // What one load costs at the portal, into a cache of its own.
            let alone = try await sandbox.run(file, ["--set", "cache.path=\(directory.appendingPathComponent("alone.sqlite").path)"])
            try #require(alone.status == 0, "stderr: \(alone.stderr)")
            let requestsPerLoad = sandbox.server.requestCount

            async let a = sandbox.run(file)
            async let b = sandbox.run(file)
            let results = try await [a, b]
            for result in results {
                #expect(result.status == 0, "stderr: \(result.stderr)")
                #expect(result.stdoutLines == alone.stdoutLines)
            }
            #expect(sandbox.server.requestCount - requestsPerLoad == requestsPerLoad, "one load at the portal, not two")
            let snapshots = try await CommandRunner.shell(
                #"python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(DISTINCT snapshot) FROM page").fetchone()[0])' "$DB""#,
                environment: ["DB": cache])
            #expect(snapshots.stdoutText == "1\n", "\(snapshots.stdoutText) \(snapshots.stderr)")
        }
    }
}
