import Foundation
import Sandbox
import ScreensBus
import Testing

/// Delete rows (`{"op":"delete", <key fields>}`) through the binary against the sandbox:
/// bookmarks by key (`delete-entry`, which the sandbox checks as the portal does), with
/// every write policy, exactly once through the journal, and conflicts; comments through the
/// outbox.
@Suite("screens-pipe outbox deletes")
struct OutboxDeleteTests {
    private func pipeline(_ workspace: WriteWorkspace, _ harness: SandboxHarness, policy: String, conflictPolicy: String? = nil) throws -> String {
        let conflicts = conflictPolicy.map { "\n  conflict-policy: \($0)" } ?? ""
        return try workspace.writePipeline(server: harness.server.baseURL, batchSize: 10, extra: "  write-policy: \(policy)\(conflicts)")
    }

    private func outbox(_ workspace: WriteWorkspace, _ arguments: [String]) async throws -> CommandResult {
        try await CommandRunner.run(["outbox"] + arguments, environment: workspace.environment, directory: workspace.directory)
    }

    private func deleteRow(_ workspace: WriteWorkspace, _ name: String, url: String, modifiedDate: Int64? = nil) throws -> String {
        let version = modifiedDate.map { #","modifiedDate":\#($0)"# } ?? ""
        return try workspace.save(name, #"{"op":"delete","url":"\#(url)"\#(version)}"# + "\n")
    }

    @Test("remote-only: a delete row removes its entry by key, once; the sandbox refuses an unknown id with NoSuchEntryException")
    func remoteOnly() async throws {
        let workspace = try WriteWorkspace()
        let other = try WriteWorkspace()
        defer {
            workspace.remove()
            other.remove()
        }
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.writePipeline(server: server, batchSize: 10)
            #expect(try await workspace.write(pipeline, ["--input", try workspace.rows(3)]).status == 0)
            let before = try await workspace.readBack(server: server)
            let entryId = try #require(before.first { $0["url"] == "https://example.com/row/2" }?["entryId"])

            let delete = try deleteRow(workspace, "delete.jsonl", url: "https://example.com/row/2")
            let deleted = try await workspace.write(pipeline, ["--input", delete])
            #expect(deleted.status == 0, "stderr: \(deleted.stderr)")
            let results = try deleted.jsonLines()
            #expect(results.map { $0["outcome"]?.stringValue } == ["deleted"])
            #expect(results.first?["entryId"] == entryId, "the journal's id was deleted")
            #expect(results.first?["op"] == "delete")
            #expect(deleted.stderr.contains("1 deleted"), "\(deleted.stderr)")
            #expect(try await workspace.readBack(server: server).map { $0["url"]?.stringValue } == ["https://example.com/row/1", "https://example.com/row/3"])

            let requests = harness.server.requestCount
            let again = try await workspace.write(pipeline, ["--input", delete])
            #expect(again.status == 0, "stderr: \(again.stderr)")
            #expect(try again.jsonLines().first?["outcome"] == "unchanged")
            #expect(harness.server.requestCount == requests, "the journal answers: nothing is sent")

            // Another machine's journal knows nothing: it finds the entry by key, and an entry
            // that is not there is a reject, never a request.
            let otherPipeline = try other.writePipeline(server: server, batchSize: 10)
            let byLookup = try await other.write(otherPipeline, ["--input", try deleteRow(other, "d3.jsonl", url: "https://example.com/row/3")])
            #expect(byLookup.status == 0, "stderr: \(byLookup.stderr)")
            #expect(try byLookup.jsonLines().first?["outcome"] == "deleted")
            let missing = try await other.write(otherPipeline, ["--input", try deleteRow(other, "d9.jsonl", url: "https://example.com/row/9")])
            #expect(missing.status == 1)
            #expect(try String(contentsOfFile: other.path("rejects.jsonl"), encoding: .utf8).contains("nothing to delete"))

            // The first journal still holds row 3's id: delete-entry of an entry that is gone
            // is the portal's NoSuchEntryException, the row's own refusal.
            let stale = try await workspace.write(pipeline, ["--input", try deleteRow(workspace, "d3.jsonl", url: "https://example.com/row/3")])
            #expect(stale.status == 1)
            let reason = try String(contentsOfFile: workspace.path("rejects.jsonl"), encoding: .utf8)
            #expect(reason.contains("NoSuchEntryException"), "\(reason)")

            // A deleted entry's key written again is a new entry, not an update of the old one.
            let readd = try workspace.save("readd.jsonl", #"{"name":"back","url":"https://example.com/row/2"}"# + "\n")
            let added = try await workspace.write(pipeline, ["--input", readd])
            #expect(try added.jsonLines().first?["outcome"] == "created", "stderr: \(added.stderr)")
            #expect(try await workspace.readBack(server: server).map { $0["url"]?.stringValue } == ["https://example.com/row/1", "https://example.com/row/2"])
        }
    }

    @Test("a delete whose answer was lost is looked up before anything is sent again: deleted once")
    func lostAnswer() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        // Data request 1 writes the rows; request 2 (the delete) is carried out and its
        // connection reset before the answer.
        try await withSandbox(faults: FaultPlan(dropAfterProcessingEvery: 2)) { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.writePipeline(server: server, batchSize: 10)
            #expect(try await workspace.write(pipeline, ["--input", try workspace.rows(2)]).status == 0)
            let deleted = try await workspace.write(pipeline, ["--input", try deleteRow(workspace, "delete.jsonl", url: "https://example.com/row/1")])
            #expect(deleted.status == 0, "stderr: \(deleted.stderr)")
            #expect(deleted.stderr.contains("looking its entries up before sending again"), "\(deleted.stderr)")
            #expect(try deleted.jsonLines().map { $0["outcome"]?.stringValue } == ["deleted"])
            #expect(try await workspace.readBack(server: server).map { $0["url"]?.stringValue } == ["https://example.com/row/2"])
        }
    }

    @Test("cache-only: a pending delete waits while the portal is down and outbox sync sends it once; a delete after a pending add cancels both")
    func pendingDelete() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try pipeline(workspace, harness, policy: "cache-only")
            #expect(try await workspace.write(pipeline, ["--input", try workspace.rows(3)]).status == 0)
            #expect(try await outbox(workspace, ["sync", pipeline]).status == 0)

            let kept = try await workspace.write(pipeline, ["--input", try deleteRow(workspace, "delete.jsonl", url: "https://example.com/row/2")])
            #expect(kept.status == 0, "stderr: \(kept.stderr)")
            #expect(try kept.jsonLines().first?["outcome"] == "pending")
            #expect(try kept.jsonLines().first?["operation"] == "delete")
            let listed = try await outbox(workspace, ["list", pipeline]).jsonLines()
            #expect(listed.map { $0["operation"]?.stringValue } == ["delete"])
            #expect(listed.first?["row"]?["op"] == "delete")

            harness.server.setAvailable(false)
            let down = try await outbox(workspace, ["sync", pipeline])
            #expect(down.status == 1)
            #expect(try down.jsonLines().map { $0["state"]?.stringValue } == ["started", "failed"])
            harness.server.setAvailable(true)
            #expect(try await workspace.readBack(server: server).count == 3, "nothing was deleted while the portal was down")

            let synced = try await outbox(workspace, ["sync", pipeline])
            #expect(synced.status == 0, "stderr: \(synced.stderr)")
            let events = try synced.jsonLines()
            #expect(events.map { $0["state"]?.stringValue } == ["started", "completed"])
            #expect(events.last?["outcome"] == "deleted")
            #expect(synced.stderr.contains("1 synced (0 created, 0 updated, 1 deleted, 0 already there)"), "\(synced.stderr)")
            #expect(try await workspace.readBack(server: server).map { $0["url"]?.stringValue } == ["https://example.com/row/1", "https://example.com/row/3"])
            #expect(try await outbox(workspace, ["list", pipeline]).stdoutLines.isEmpty)

            // An add still pending and then its delete: neither is sent.
            let add = try workspace.save("add.jsonl", #"{"name":"brief","url":"https://example.com/brief"}"# + "\n")
            #expect(try await workspace.write(pipeline, ["--input", add]).status == 0)
            let cancel = try await workspace.write(pipeline, ["--input", try deleteRow(workspace, "cancel.jsonl", url: "https://example.com/brief")])
            #expect(try cancel.jsonLines().first?["outcome"] == "cancelled", "stderr: \(cancel.stderr)")
            #expect(try await outbox(workspace, ["list", pipeline]).stdoutLines.isEmpty)
            let requests = harness.server.requestCount
            #expect(try await outbox(workspace, ["sync", pipeline]).status == 0)
            #expect(harness.server.requestCount == requests)
        }
    }

    @Test("remote-first with the portal down: the delete goes pending; sync after it is back deletes it")
    func remoteFirstDelete() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try pipeline(workspace, harness, policy: "remote-first")
            #expect(try await workspace.write(pipeline, ["--input", try workspace.rows(2)]).status == 0)
            harness.server.setAvailable(false)
            let written = try await workspace.write(pipeline, ["--input", try deleteRow(workspace, "delete.jsonl", url: "https://example.com/row/1")])
            #expect(written.status == 0, "stderr: \(written.stderr)")
            #expect(written.stderr.contains("1 pending in the outbox"), "\(written.stderr)")
            harness.server.setAvailable(true)
            let synced = try await outbox(workspace, ["sync", pipeline])
            #expect(try synced.jsonLines().last?["outcome"] == "deleted", "stderr: \(synced.stderr)")
            #expect(try await workspace.readBack(server: server).map { $0["url"]?.stringValue } == ["https://example.com/row/2"])
        }
    }

    @Test("a pending delete of an entry renamed on the portal: report keeps it pending, keep-local deletes it, keep-remote drops it")
    func conflicts() async throws {
        for policy in ["report", "keep-remote"] {
            let workspace = try WriteWorkspace()
            defer { workspace.remove() }
            try await withSandbox { harness in
                let server = harness.server.baseURL
                let pipeline = try pipeline(workspace, harness, policy: "cache-only", conflictPolicy: policy)
                let first = try workspace.save("first.jsonl", #"{"name":"v1","url":"https://example.com/c"}"# + "\n")
                #expect(try await workspace.write(pipeline, ["--input", first]).status == 0)
                #expect(try await outbox(workspace, ["sync", pipeline]).status == 0)
                let read = try #require(try await workspace.readBack(server: server).first)
                let entryId = try #require(read["entryId"]?.int64Value)
                let base = try #require(read["modifiedDate"]?.int64Value)
                let kept = try await workspace.write(pipeline, ["--input", try deleteRow(workspace, "delete.jsonl", url: "https://example.com/c", modifiedDate: base)])
                #expect(try kept.jsonLines().first?["operation"] == "delete", "stderr: \(kept.stderr)")
                try await Task.sleep(for: .milliseconds(5))
                #expect(harness.server.editBookmark(entryId: entryId, name: "remote") != nil)

                let conflictsPath = workspace.path("conflicts.jsonl")
                let synced = try await outbox(workspace, ["sync", pipeline, "--conflicts", conflictsPath])
                let events = try synced.jsonLines()
                #expect(events.map { $0["state"]?.stringValue } == ["started", "conflicted"], "\(policy): \(synced.stderr)")
                #expect(events.last?["resolution"] == .string(policy))
                #expect(events.last?["operation"] == "delete")
                #expect(try await workspace.readBack(server: server).first?["name"] == "remote", "\(policy): nothing was deleted")
                if policy == "report" {
                    #expect(synced.status == 1)
                    let line = try JSONValue(parsing: String(String(contentsOfFile: conflictsPath, encoding: .utf8).split(separator: "\n")[0]))
                    #expect(line["operation"] == "delete")
                    #expect(line["remote"]?["name"] == "remote")
                    #expect(try await outbox(workspace, ["list", pipeline]).jsonLines().count == 1, "left pending")

                    let forced = try await outbox(workspace, ["sync", pipeline, "--set", "sink.conflict-policy=keep-local"])
                    #expect(forced.status == 0, "stderr: \(forced.stderr)")
                    #expect(try forced.jsonLines().map { $0["state"]?.stringValue } == ["started", "conflicted", "completed"])
                    #expect(try forced.jsonLines().last?["outcome"] == "deleted")
                    #expect(try await workspace.readBack(server: server).isEmpty)
                } else {
                    #expect(synced.status == 0, "stderr: \(synced.stderr)")
                    #expect(try await outbox(workspace, ["list", pipeline]).stdoutLines.isEmpty, "dropped")
                }
            }
        }
    }

    @Test("comments through the outbox: update and delete rows go pending with their own operation and sync sends each once")
    func commentsThroughTheOutbox() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.save(
                "comments-offline.yaml",
                """
                name: comments-offline
                sink:
                  type: liferay
                  server: \(server)
                  auth: { basic: { username: test@liferay.com, password: test } }
                  service: comment
                  write-policy: cache-only
                  retry: { attempts: 2, backoff: 20ms }
                """)
            let input = try workspace.save(
                "comments.jsonl",
                [
                    #"{"className":"com.liferay.journal.model.JournalArticle","classPK":40001,"body":"<p>Offline</p>"}"#,
                    #"{"commentId":80003,"body":"<p>Edited offline</p>"}"#,
                    #"{"op":"delete","commentId":80004}"#,
                ].joined(separator: "\n") + "\n")
            let kept = try await workspace.write(pipeline, ["--input", input])
            #expect(kept.status == 0, "stderr: \(kept.stderr)")
            #expect(try kept.jsonLines().map { $0["operation"]?.stringValue } == ["add", "update", "delete"])
            #expect(harness.server.requestCount == 0)

            let synced = try await outbox(workspace, ["sync", pipeline])
            #expect(synced.status == 0, "stderr: \(synced.stderr)")
            #expect(try synced.jsonLines().filter { $0["state"] == "completed" }.map { $0["outcome"]?.stringValue } == ["created", "updated", "deleted"])
            let thread = try await workspace.readBackComments(server: server, classPK: 40001)
            #expect(thread.filter { $0["body"] == "<p>Offline</p>" }.count == 1)
            #expect(thread.first { $0["commentId"] == .int(80003) }?["body"] == "<p>Edited offline</p>")
            #expect(!thread.contains { $0["commentId"] == .int(80004) })
            #expect(try await outbox(workspace, ["sync", pipeline]).stdoutLines.isEmpty)
        }
    }
}
