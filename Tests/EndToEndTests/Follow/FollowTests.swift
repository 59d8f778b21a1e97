import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `run --follow` through the binary against the sandbox: rows added, modified and deleted
/// with `POST /_sandbox/changes` between polls come out once each, with the right kind.
@Suite(.serialized) struct FollowTests {
    /// The first load (every row `added`), one batch of changes, and the end by a signal.
    private func follow(_ source: String, list: SandboxChangeList, rows: Int, name: String) async throws {
        try await withSandbox { sandbox in
            let workspace = try FollowWorkspace(name, source: source)
            let running = try workspace.start(sandbox)
            let first = try await workspace.waitForChanges(rows)
            #expect(first.count == rows)
            #expect(first.allSatisfy { $0.kind == "added" && $0.item != nil })
            #expect(Set(first.map(\.key)).count == rows)

            let report = try sandbox.server.applyChanges(SandboxChangeRequest(list: list, seed: 5, add: 2, modify: 3, delete: 2))
            // The sandbox may give a deleted row's id to a row it adds: that key's content changed.
            let reused = Set(report.added).intersection(report.deleted)
            let added = Set(report.added).subtracting(reused), deleted = Set(report.deleted).subtracting(reused)
            let updated = Set(report.modified).union(reused)
            let count = added.count + updated.count + deleted.count
            let all = try await workspace.waitForChanges(rows + count)
            let changes = Array(all.dropFirst(rows))
            #expect(all.numberedInOrder, "\(all.map(\.sequence))")
            #expect(changes.count == count, "\(changes)")
            #expect(Set(changes.keys("added")) == added)
            #expect(Set(changes.keys("updated")) == updated)
            #expect(Set(changes.keys("deleted")) == deleted)
            #expect(changes.filter { $0.kind == "deleted" }.allSatisfy { $0.item == nil })
            #expect(changes.filter { $0.kind != "deleted" }.allSatisfy { $0.item != nil })

            running.send(SIGTERM)
            let (status, stderr) = await running.wait()
            #expect(status == 143, "\(stderr)")
            #expect(stderr.contains("\(rows + added.count) added, \(updated.count) updated, \(deleted.count) deleted"), "\(stderr)")
            #expect(try workspace.changes() == all)
        }
    }

    @Test func jsonwsBookmarksChangesComeOnceEach() async throws {
        try await follow(FollowSources.jsonwsBookmarks, list: .bookmarks, rows: 73, name: "follow-jsonws")
    }

    @Test func headlessStructuredContentsChangesComeOnceEach() async throws {
        try await follow(FollowSources.headlessArticles, list: .articles, rows: 73, name: "follow-headless")
    }

    @Test func restBookmarksChangesComeOnceEach() async throws {
        try await follow(FollowSources.restBookmarks, list: .bookmarks, rows: 73, name: "follow-rest")
    }

    /// A follow stopped by SIGINT and started again writes nothing twice: the first poll of
    /// the second follow finds the snapshot the first one committed.
    @Test func aRestartedFollowWritesOnlyNewChanges() async throws {
        try await withSandbox { sandbox in
            let workspace = try FollowWorkspace("follow-restart", source: FollowSources.jsonwsBookmarks)
            var running = try workspace.start(sandbox)
            _ = try await workspace.waitForChanges(73)
            let modified = try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 9, modify: 1))
            _ = try await workspace.waitForChanges(74)
            running.send(SIGINT)
            let (interrupted, _) = await running.wait()
            #expect(interrupted == 130)

            // Changed while nobody followed: the next follow finds it.
            let added = try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 10, add: 1))
            running = try workspace.start(sandbox)
            let all = try await workspace.waitForChanges(75, settle: .seconds(1))
            running.send(SIGTERM)
            let (terminated, _) = await running.wait()
            #expect(terminated == 143)
            #expect(all.count == 75, "\(all.dropFirst(73))")
            #expect(all.numberedInOrder)
            #expect(all[73].kind == "updated" && all[73].key == modified.modified[0])
            #expect(all[74].kind == "added" && all[74].key == added.added[0])
        }
    }

    /// kill -9 at several moments of a follow, each followed by a restart and more changes:
    /// the output holds every change exactly once, numbered without a gap. Replayed from
    /// nothing, the changes make the list as the portal has it now, and each one is a change
    /// (no `added` of a key already there, no `updated` to the same content: what a change
    /// written twice would be), so nothing was repeated or skipped.
    @Test func killNineAndRestartNeitherRepeatsNorSkipsAChange() async throws {
        try await withSandbox(faults: FaultPlan(latency: .milliseconds(15))) { sandbox in
            let workspace = try FollowWorkspace("follow-crash", source: FollowSources.jsonwsBookmarks)
            var running = try workspace.start(sandbox, interval: "100ms")
            _ = try await workspace.waitForChanges(73, settle: .zero)
            for (round, delay) in [5, 40, 120, 260, 20, 400].enumerated() {
                try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: UInt64(100 + round), add: 2, modify: 2, delete: round % 2))
                try await Task.sleep(for: .milliseconds(delay))
                running.send(SIGKILL)
                _ = await running.wait()
                running = try workspace.start(sandbox, interval: "100ms")
            }
            let current = try await sandbox.run(workspace.pipeline)
            #expect(current.status == 0, "\(current.stderr)")
            var portal: [Int64: JSONValue] = [:]
            for row in try current.jsonLines() { portal[try #require(row["entryId"]?.int64Value)] = row }
            // Settled once the replay is the portal's list.
            try await waitUntil(timeout: .seconds(60)) { (try? FollowReplay(workspace.changes()).rows) == portal }
            try await Task.sleep(for: .seconds(1))
            running.send(SIGTERM)
            let (terminated, _) = await running.wait()
            #expect(terminated == 143)
            let all = try workspace.changes()
            #expect(all.numberedInOrder, "\(all.map(\.sequence))")
            let replay = FollowReplay(all)
            #expect(replay.problems.isEmpty, "\(replay.problems)")
            #expect(replay.rows == portal)
            #expect(all.count > 73 + 6 * 3)
        }
    }

    /// A follow has no end: its metrics file is rewritten after every poll (a textfile
    /// collector reads it meanwhile), and its trace is written once it stops.
    @Test func metricsAfterEveryPollAndTheTraceAtTheEnd() async throws {
        try await withSandbox { sandbox in
            let workspace = try FollowWorkspace("follow-reports", source: FollowSources.jsonwsBookmarks)
            let metrics = workspace.directory.appendingPathComponent("follow.prom").path
            let trace = workspace.directory.appendingPathComponent("follow.trace.json").path
            let running = try workspace.start(sandbox, interval: "100ms", ["--metrics-file", metrics, "--trace", trace])
            _ = try await workspace.waitForChanges(73, settle: .zero)
            // Polls go on: the file grows with them, while the follow runs.
            func pages() -> Int {
                let text = (try? String(contentsOfFile: metrics, encoding: .utf8)) ?? ""
                return text.split(separator: "\n").filter { $0.hasPrefix("screens_pipe_pages_total{") }
                    .compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
            }
            try await waitUntil(timeout: .seconds(30)) { pages() > 0 }
            let early = pages()
            try await waitUntil(timeout: .seconds(30)) { pages() > early }
            let text = try String(contentsOfFile: metrics, encoding: .utf8)
            #expect(text.contains(#"screens_pipe_follow_changes_total{pipeline="follow-reports",kind="added"} 73"#), "\(text)")
            #expect(text.contains(#"screens_pipe_follow_polls_total{pipeline="follow-reports",result="completed"} "#))
            #expect(text.contains("screens_pipe_follow_last_complete_poll_timestamp_seconds{"))
            #expect(!FileManager.default.fileExists(atPath: trace), "the trace is written once the follow stops")
            running.send(SIGTERM)
            let (terminated, _) = await running.wait()
            #expect(terminated == 143)
            let traceJSON = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: trace))))
            // The polls' page requests, as spans.
            #expect(traceJSON.arrayValue?.contains { $0["ph"]?.stringValue == "X" } == true)
        }
    }

    /// `--follow` alone means every 30 seconds, and options that make no sense with it are refused.
    @Test func usageErrors() async throws {
        let workspace = try FollowWorkspace("follow-usage", source: FollowSources.jsonwsBookmarks)
        for arguments in [["--follow", "10ms"], ["--follow", "1s", "--limit", "3"], ["--key", "id"], ["--follow", "1s", "--format", "csv"]] {
            let result = try await CommandRunner.run(["run", workspace.pipeline] + arguments, environment: ["LIFERAY_SERVER": "http://127.0.0.1:9"])
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
        }
    }
}
