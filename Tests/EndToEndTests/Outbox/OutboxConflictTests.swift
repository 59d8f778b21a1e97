import Foundation
import Sandbox
import ScreensBus
import Testing

/// A pending update whose entry the portal changed meanwhile (the sandbox renames it with a
/// new `modifiedDate`, `SandboxServer.editBookmark`): each `conflict-policy` through the binary.
@Suite("screens-pipe outbox conflicts")
struct OutboxConflictTests {
    private struct Setup {
        var workspace: WriteWorkspace
        var pipeline: String
        var entryId: Int64
    }

    /// An entry written through the outbox, then edited offline from the row as read
    /// (its `modifiedDate` the base); `changeOnPortal` renames it on the portal meanwhile.
    private func prepare(_ harness: SandboxHarness, policy: String, changeOnPortal: Bool) async throws -> Setup {
        let workspace = try WriteWorkspace()
        let pipeline = try workspace.writePipeline(
            server: harness.server.baseURL, batchSize: 10, extra: "  write-policy: cache-only\n  conflict-policy: \(policy)")
        let first = try workspace.save("first.jsonl", #"{"name":"v1","url":"https://example.com/c"}"# + "\n")
        #expect(try await workspace.write(pipeline, ["--input", first]).status == 0)
        #expect(try await outbox(workspace, ["sync", pipeline]).status == 0)
        let read = try #require(try await workspace.readBack(server: harness.server.baseURL).first)
        let entryId = try #require(read["entryId"]?.int64Value)
        let base = try #require(read["modifiedDate"]?.int64Value)
        let edit = try workspace.save("edit.jsonl", #"{"name":"local","url":"https://example.com/c","modifiedDate":\#(base)}"# + "\n")
        let edited = try await workspace.write(pipeline, ["--input", edit])
        #expect(try edited.jsonLines().first?["operation"] == "update")
        if changeOnPortal {
            try await Task.sleep(for: .milliseconds(5))
            #expect(harness.server.editBookmark(entryId: entryId, name: "remote") != nil)
        }
        return Setup(workspace: workspace, pipeline: pipeline, entryId: entryId)
    }

    private func outbox(_ workspace: WriteWorkspace, _ arguments: [String]) async throws -> CommandResult {
        try await CommandRunner.run(["outbox"] + arguments, environment: workspace.environment, directory: workspace.directory)
    }

    private func portalName(_ setup: Setup, _ harness: SandboxHarness) async throws -> String? {
        try await setup.workspace.readBack(server: harness.server.baseURL).first?["name"]?.stringValue
    }

    @Test("no change on the portal: the update is sent, no conflict")
    func noConflict() async throws {
        try await withSandbox { harness in
            let setup = try await prepare(harness, policy: "report", changeOnPortal: false)
            defer { setup.workspace.remove() }
            let synced = try await outbox(setup.workspace, ["sync", setup.pipeline])
            #expect(synced.status == 0, "stderr: \(synced.stderr)")
            let events = try synced.jsonLines()
            #expect(events.map { $0["state"]?.stringValue } == ["started", "completed"])
            #expect(events.last?["outcome"] == "updated")
            #expect(try await portalName(setup, harness) == "local")
        }
    }

    @Test("report: left pending, both versions in the conflicts file, exit 1")
    func report() async throws {
        try await withSandbox { harness in
            let setup = try await prepare(harness, policy: "report", changeOnPortal: true)
            defer { setup.workspace.remove() }
            let conflicts = setup.workspace.path("conflicts.jsonl")
            let synced = try await outbox(setup.workspace, ["sync", setup.pipeline, "--conflicts", conflicts])
            #expect(synced.status == 1, "stderr: \(synced.stderr)")
            #expect(synced.stderr.contains("1 pending update conflicts"), "\(synced.stderr)")
            let events = try synced.jsonLines()
            #expect(events.map { $0["state"]?.stringValue } == ["started", "conflicted"])
            #expect(events.last?["resolution"] == "report")
            let lines = try String(contentsOfFile: conflicts, encoding: .utf8).split(separator: "\n").map { try JSONValue(parsing: String($0)) }
            #expect(lines.count == 1)
            #expect(lines.first?["local"]?["name"] == "local")
            #expect(lines.first?["remote"]?["name"] == "remote")
            #expect(lines.first?["remote"]?["modifiedDate"] == lines.first?["remoteVersion"])
            #expect(lines.first?["baseVersion"] != lines.first?["remoteVersion"])
            #expect(try await portalName(setup, harness) == "remote", "nothing was sent")
            let listed = try await outbox(setup.workspace, ["list", setup.pipeline]).jsonLines()
            #expect(listed.count == 1)
            #expect(listed.first?["lastError"]?.stringValue?.hasPrefix("conflict:") == true)
            #expect(FileManager.default.fileExists(atPath: setup.workspace.path("write-test.conflicts.jsonl")) == false)
        }
    }

    @Test("keep-local: the pending update overwrites the portal's change")
    func keepLocal() async throws {
        try await withSandbox { harness in
            let setup = try await prepare(harness, policy: "keep-local", changeOnPortal: true)
            defer { setup.workspace.remove() }
            let synced = try await outbox(setup.workspace, ["sync", setup.pipeline])
            #expect(synced.status == 0, "stderr: \(synced.stderr)")
            let events = try synced.jsonLines()
            #expect(events.map { $0["state"]?.stringValue } == ["started", "conflicted", "completed"])
            #expect(events.last?["outcome"] == "updated")
            #expect(try await portalName(setup, harness) == "local")
        }
    }

    @Test("keep-remote: the pending update is dropped and the journal takes the portal's values")
    func keepRemote() async throws {
        try await withSandbox { harness in
            let setup = try await prepare(harness, policy: "keep-remote", changeOnPortal: true)
            defer { setup.workspace.remove() }
            let synced = try await outbox(setup.workspace, ["sync", setup.pipeline])
            #expect(synced.status == 0, "stderr: \(synced.stderr)")
            #expect(try synced.jsonLines().map { $0["state"]?.stringValue } == ["started", "conflicted"])
            #expect(try await portalName(setup, harness) == "remote")
            #expect(try await outbox(setup.workspace, ["list", setup.pipeline]).stdoutLines.isEmpty)
            let same = try setup.workspace.save("same.jsonl", #"{"name":"remote","url":"https://example.com/c"}"# + "\n")
            let again = try await setup.workspace.write(setup.pipeline, ["--input", same])
            #expect(try again.jsonLines().first?["outcome"] == "unchanged", "the journal holds the portal's values now")
        }
    }

    @Test("discard: the pending update is dropped, the portal keeps its change")
    func discard() async throws {
        try await withSandbox { harness in
            let setup = try await prepare(harness, policy: "discard", changeOnPortal: true)
            defer { setup.workspace.remove() }
            let synced = try await outbox(setup.workspace, ["sync", setup.pipeline])
            #expect(synced.status == 0, "stderr: \(synced.stderr)")
            let events = try synced.jsonLines()
            #expect(events.map { $0["state"]?.stringValue } == ["started", "conflicted"])
            #expect(events.last?["resolution"] == "discard")
            #expect(try await portalName(setup, harness) == "remote")
            #expect(try await outbox(setup.workspace, ["list", setup.pipeline]).stdoutLines.isEmpty)
        }
    }
}
