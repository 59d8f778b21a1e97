import Foundation
import ScreensBus
import Testing

/// A session that edits its list through the pipeline's `liferay` sink, through the binary
/// against the sandbox portal: each edit written once (or kept in the outbox while the
/// portal is down), answered with the row, and seen by a later `run` of the cached list.
@Suite("session: add, update and delete rows of the list")
struct SessionEditTests {
    /// The session's pipeline: bookmarks of folder 20201, two a page, written back there.
    private func sessionPipeline(_ workspace: WriteWorkspace, server: String, policy: String = "remote-first") throws -> String {
        try workspace.save(
            "session.yaml",
            """
            name: session-edit
            \(source(server: server, policy: "remote-first"))
            sink:
              type: liferay
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              service: bookmark
              group-id: 20143
              folder-id: 20201
              write-policy: \(policy)
              retry: { attempts: 2, backoff: 20ms, max-backoff: 50ms }
            """)
    }

    /// The same list read with `cache-only`, written as JSON lines.
    private func cachedPipeline(_ workspace: WriteWorkspace, server: String) throws -> String {
        try workspace.save("cached.yaml", "name: cached-read\n" + source(server: server, policy: "cache-only"))
    }

    private func source(server: String, policy: String) -> String {
        """
        source:
          type: liferay-jsonws
          server: \(server)
          auth: { basic: { username: test@liferay.com, password: test } }
          rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 20201 } }
          count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 20201 } }
          pagination: { first-page-size: 2, page-size: 2 }
          retry: { attempts: 2, backoff: 20ms, max-backoff: 50ms }
        convert: { model: bookmark }
        cache: { policy: \(policy) }
        """
    }

    /// `count` bookmarks written to folder 20201 (`row 1`... at `https://example.com/row/N`).
    private func seed(_ workspace: WriteWorkspace, _ harness: SandboxHarness, count: Int) async throws {
        let written = try await workspace.write(try workspace.writePipeline(server: harness.server.baseURL), ["--input", try workspace.rows(count)])
        #expect(written.status == 0, "\(written.stderr)")
    }

    /// Opens a session and loads every page of the list (`pages` of them).
    private func openLoaded(_ pipeline: String, _ workspace: WriteWorkspace, pages: Int) async throws -> SessionProcess {
        let session = try SessionProcess([pipeline], environment: workspace.environment)
        #expect(try await session.nextEvent()?["event"] == "started")
        _ = try await session.ask(#"{"op":"load"}"#)
        for _ in 1..<pages { _ = try await session.ask(#"{"op":"next"}"#) }
        return session
    }

    private func cachedNames(_ workspace: WriteWorkspace, _ harness: SandboxHarness) async throws -> [String] {
        let run = try await CommandRunner.run(["run", try cachedPipeline(workspace, server: harness.server.baseURL)], environment: workspace.environment)
        #expect(run.status == 0, "\(run.stderr)")
        return try run.jsonLines().compactMap { $0["name"]?.stringValue }
    }

    @Test("add, update and delete: each written once, answered with the portal's row, and a cache-only run shows them")
    func editsOnline() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            try await seed(workspace, harness, count: 5)
            let session = try await openLoaded(try sessionPipeline(workspace, server: harness.server.baseURL), workspace, pages: 3)

            let added = try await session.ask(#"{"op":"add","row":{"name":"added","url":"https://example.com/added"},"id":"a"}"#)
            #expect(added.names == ["edited"])
            let add = try #require(added.first)
            #expect(add["id"] == "a" && add["op"] == "add" && add["outcome"] == "created")
            #expect(add["row"] == 5 && add["page"] == 2 && add["rowCount"] == 6)
            #expect(add["item"]?["name"] == "added")
            #expect(add["item"]?["entryId"]?.int64Value != nil, "the row as the portal lists it, converted")

            let updated = try await session.ask(#"{"op":"update","row":{"name":"renamed","url":"https://example.com/row/2"},"id":"u"}"#)
            let update = try #require(updated.first)
            #expect(update["event"] == "edited" && update["outcome"] == "updated", "\(updated)")
            #expect(update["row"] == 1 && update["page"] == 0 && update["item"]?["name"] == "renamed")

            let deleted = try await session.ask(#"{"op":"delete","key":{"url":"https://example.com/row/1"},"id":"d"}"#)
            let delete = try #require(deleted.first)
            #expect(delete["event"] == "edited" && delete["outcome"] == "deleted", "\(deleted)")
            #expect(delete["row"] == 0 && delete["rowCount"] == 5 && delete["item"]?["name"] == "row 1")

            // The session's own pages moved with the edits: page 0 is what the portal lists now.
            let page0 = try await session.ask(#"{"op":"load","id":"again"}"#)
            #expect(page0.filter { $0["event"] == "row" }.compactMap { $0["item"]?["name"]?.stringValue } == ["renamed", "row 3"])
            #expect(page0.first { $0["event"] == "response" }?["rowCount"] == 5)
            session.send(#"{"op":"close"}"#)
            let end = try await session.finish()
            #expect(end.status == 0, "\(end.stderr)")
            try await session.expectSchemaValid()

            let expected = ["renamed", "row 3", "row 4", "row 5", "added"]
            #expect(try await cachedNames(workspace, harness) == expected)
            let portal = try await workspace.readBack(server: harness.server.baseURL)
            #expect(portal.compactMap { $0["name"]?.stringValue } == expected, "each edit once: no second entry for the update")
        }
    }

    @Test("with the portal down, edits answer pending and show in the cached list; outbox sync applies each once")
    func editsOffline() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            try await seed(workspace, harness, count: 3)
            let pipeline = try sessionPipeline(workspace, server: harness.server.baseURL)
            let session = try await openLoaded(pipeline, workspace, pages: 2)
            harness.server.setAvailable(false)

            let update = try #require(try await session.ask(#"{"op":"update","row":{"name":"offline name","url":"https://example.com/row/3"},"id":1}"#).first)
            #expect(update["event"] == "edited" && update["outcome"] == "pending", "\(update)")
            #expect(update["row"] == 2 && update["item"]?["name"] == "offline name")
            #expect(update["reason"]?.stringValue?.isEmpty == false)
            let delete = try #require(try await session.ask(#"{"op":"delete","key":{"url":"https://example.com/row/1"},"id":2}"#).first)
            #expect(delete["outcome"] == "pending" && delete["rowCount"] == 2, "\(delete)")
            let add = try #require(try await session.ask(#"{"op":"add","row":{"name":"later","url":"https://example.com/later"},"id":3}"#).first)
            #expect(add["outcome"] == "pending" && add["rowCount"] == 2, "a pending add joins the list once synced: \(add)")
            session.closeInput()
            #expect(try await session.finish().status == 0)

            #expect(try await cachedNames(workspace, harness) == ["row 2", "offline name"])
            let listed = try await CommandRunner.run(["outbox", "list", pipeline], environment: workspace.environment)
            #expect(try listed.jsonLines().compactMap { $0["operation"]?.stringValue } == ["update", "delete", "add"], "\(listed.stdoutText)")

            harness.server.setAvailable(true)
            let synced = try await CommandRunner.run(["outbox", "sync", pipeline], environment: workspace.environment)
            #expect(synced.status == 0, "\(synced.stderr)")
            #expect(try synced.jsonLines().filter { $0["state"] == "completed" }.compactMap { $0["outcome"]?.stringValue } == ["updated", "deleted", "created"])
            let again = try await CommandRunner.run(["outbox", "sync", pipeline], environment: workspace.environment)
            #expect(again.status == 0 && again.stdoutLines.isEmpty)
            let portal = try await workspace.readBack(server: harness.server.baseURL)
            #expect(portal.compactMap { $0["name"]?.stringValue } == ["row 2", "offline name", "later"])
        }
    }

    @Test("bad edits get an error line and the session goes on; a pipeline without a liferay sink refuses edits")
    func refusedEdits() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            try await seed(workspace, harness, count: 2)
            let session = try await openLoaded(try sessionPipeline(workspace, server: harness.server.baseURL), workspace, pages: 1)
            let lines = [
                #"{"op":"add","id":"e1"}"#,
                #"{"op":"add","row":"https://example.com/x","id":"e2"}"#,
                #"{"op":"add","row":{"name":"no url"},"id":"e3"}"#,
                #"{"op":"update","row":{"name":"x","url":"https://example.com/not-listed"},"id":"e4"}"#,
                #"{"op":"delete","key":[1],"id":"e5"}"#,
                #"{"op":"add","row":{"name":"\#(String(repeating: "x", count: 70_000))"},"id":"e6"}"#,
            ]
            for line in lines {
                let answer = try await session.ask(line)
                #expect(answer.names == ["error"], "\(line.prefix(80)): \(answer)")
                #expect(answer.first?["kind"] == "command")
            }
            let stillThere = try await session.ask(#"{"op":"select","row":1,"id":"s"}"#)
            #expect(stillThere.names == ["selected"])
            session.closeInput()
            #expect(try await session.finish().status == 0)
            #expect(try await workspace.readBack(server: harness.server.baseURL).count == 2, "nothing was written")
        }

        let readOnly = try SessionProcess(["pipelines/offline-bookmarks.yaml"], environment: workspace.environment)
        _ = try await readOnly.nextEvent()
        _ = try await readOnly.ask(#"{"op":"load"}"#)
        let refused = try await readOnly.ask(#"{"op":"delete","key":{"url":"https://www.liferay.com"},"id":"d"}"#)
        #expect(refused.names == ["error"])
        #expect(refused.first?["message"]?.stringValue?.contains("no sink of type liferay") == true, "\(refused)")
        let next = try await readOnly.ask(#"{"op":"next"}"#)
        #expect(next.names.first == "loading")
        readOnly.closeInput()
        #expect(try await readOnly.finish().status == 0)
    }
}

extension SessionProcess {
    /// Checks every event read and every command sent against the session schemas.
    func expectSchemaValid(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let events = transcript.map(\.jsonString)
        for (text, problems) in zip(events, try await JSONSchemaValidation.problems(schema: "docs/schemas/session-events.schema.json", texts: events)) {
            #expect(problems.isEmpty, "\(text.prefix(300)): \(problems)", sourceLocation: sourceLocation)
        }
        for (line, problems) in zip(sent, try await JSONSchemaValidation.problems(schema: "docs/schemas/session-commands.schema.json", texts: sent)) {
            #expect(problems.isEmpty, "\(line.prefix(300)): \(problems)", sourceLocation: sourceLocation)
        }
    }
}
