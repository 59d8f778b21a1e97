import Foundation
import ScreensBus
import Testing

/// Image uploads kept in the outbox while the portal is down, as Screens' image gallery
/// keeps an upload for `SyncManager`: a copy of each file waits with the write, so the
/// upload a sync sends is the file as it was when kept; each is uploaded once, and the
/// copies go once nothing names them. Through the binary against the sandbox portal.
@Suite("outbox: image uploads kept with a copy of their file")
struct ImageOutboxTests {
    static let pngHeader: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private func pipeline(_ workspace: WriteWorkspace, server: String, policy: String) throws -> String {
        try workspace.save(
            "upload-\(policy).yaml",
            "name: outbox-images\n" + ImageUploadTests.imageSink(server: server, retry: "{ attempts: 2, backoff: 20ms, max-backoff: 50ms }", extra: "  write-policy: \(policy)"))
    }

    /// The folder's uploaded entries (those of 95000 and up) as `title:size`.
    private func uploaded(_ workspace: WriteWorkspace, server: String) async throws -> [String] {
        try await ImageUploadTests.folder(server, workspace).filter { ($0["fileEntryId"]?.int64Value ?? 0) >= 95_000 }
            .map { "\($0["title"]?.stringValue ?? ""):\($0["size"]?.int64Value ?? -1)" }
    }

    /// The kept copies: one directory per pending upload.
    private func spooled(_ workspace: WriteWorkspace) -> [String] {
        let root = workspace.directory.appendingPathComponent("cache/outbox-files")
        let spools = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return spools.flatMap { (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent($0).path)) ?? [] }
    }

    @Test("kept while the portal is down, the file's copy is what a sync uploads, once; a rerun is unchanged; the copies go")
    func keptThenSynced() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let first = Self.pngHeader + Array(repeating: 1, count: 200_000)
        let second = Self.pngHeader + Array(repeating: 2, count: 3_000)
        try Data(first).write(to: workspace.directory.appendingPathComponent("a.png"))
        try Data(second).write(to: workspace.directory.appendingPathComponent("b.png"))
        let rows = try workspace.save(
            "images.jsonl",
            """
            {"file":"a.png","title":"Kept A","mimeType":"image/png"}
            {"file":"b.png","title":"Kept B","mimeType":"image/png"}

            """)
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try pipeline(workspace, server: server, policy: "remote-first")
            harness.server.setAvailable(false)
            let kept = try await workspace.write(pipeline, ["--input", rows])
            #expect(kept.status == 0, "\(kept.stderr)")
            #expect(try kept.jsonLines().compactMap { $0["outcome"]?.stringValue } == ["pending", "pending"], "\(kept.stdoutText)")
            #expect(spooled(workspace).count == 2)
            let listed = try await CommandRunner.run(["outbox", "list", pipeline], environment: workspace.environment)
            #expect(try listed.jsonLines().compactMap { $0["operation"]?.stringValue } == ["add", "add"], "\(listed.stdoutText)")

            // The originals change and go away (moved aside, keeping their times): the kept
            // copies are what the writes were.
            let files = FileManager.default
            let (a, b, aside) = (workspace.directory.appendingPathComponent("a.png"), workspace.directory.appendingPathComponent("b.png"), workspace.directory.appendingPathComponent("aside"))
            try files.createDirectory(at: aside, withIntermediateDirectories: true)
            try files.moveItem(at: a, to: aside.appendingPathComponent("a.png"))
            try files.moveItem(at: b, to: aside.appendingPathComponent("b.png"))
            try Data(Self.pngHeader + [9, 9, 9]).write(to: a)
            harness.server.setAvailable(true)
            let synced = try await CommandRunner.run(["outbox", "sync", pipeline], environment: workspace.environment)
            #expect(synced.status == 0, "\(synced.stderr)")
            #expect(try synced.jsonLines().filter { $0["state"] == "completed" }.compactMap { $0["outcome"]?.stringValue } == ["created", "created"])
            #expect(try await uploaded(workspace, server: server) == ["Kept A:\(first.count)", "Kept B:\(second.count)"])
            #expect(spooled(workspace).isEmpty, "a synced upload's copy is removed")

            let again = try await CommandRunner.run(["outbox", "sync", pipeline], environment: workspace.environment)
            #expect(again.status == 0 && again.stdoutLines.isEmpty)
            // The same files written again: the journal knows them, nothing is sent or kept.
            try files.removeItem(at: a)
            try files.moveItem(at: aside.appendingPathComponent("a.png"), to: a)
            try files.moveItem(at: aside.appendingPathComponent("b.png"), to: b)
            let requests = harness.server.requestCount
            let rerun = try await workspace.write(pipeline, ["--input", rows])
            #expect(rerun.status == 0, "\(rerun.stderr)")
            #expect(try rerun.jsonLines().compactMap { $0["outcome"]?.stringValue } == ["unchanged", "unchanged"], "\(rerun.stdoutText)")
            #expect(harness.server.requestCount == requests && spooled(workspace).isEmpty)
            #expect(try await uploaded(workspace, server: server).count == 2)
        }
    }

    @Test("cache-only keeps uploads without a request; a second keep of a title replaces the first; discard and clear remove the copies")
    func keptOnlyThenForgotten() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try Data(Self.pngHeader + [1]).write(to: workspace.directory.appendingPathComponent("a.png"))
        try Data(Self.pngHeader + [2, 2]).write(to: workspace.directory.appendingPathComponent("b.png"))
        try await withSandbox { harness in
            let pipeline = try pipeline(workspace, server: harness.server.baseURL, policy: "cache-only")
            let one = try workspace.save("one.jsonl", #"{"file":"a.png","title":"One","mimeType":"image/png"}"# + "\n")
            let two = try workspace.save(
                "two.jsonl", #"{"file":"b.png","title":"One","mimeType":"image/png"}"# + "\n" + #"{"file":"a.png","title":"Two","mimeType":"image/png"}"# + "\n")
            #expect(try await workspace.write(pipeline, ["--input", one]).status == 0)
            #expect(try await workspace.write(pipeline, ["--input", two]).status == 0)
            #expect(harness.server.requestCount == 0, "cache-only asks nothing")
            let listed = try await CommandRunner.run(["outbox", "list", pipeline], environment: workspace.environment)
            let entries = try listed.jsonLines()
            #expect(entries.count == 2, "the second keep of title One replaced the first: \(listed.stdoutText)")
            #expect(spooled(workspace).count == 2, "the replaced upload's copy is gone")

            let key = try #require(entries.first?["key"]).jsonString
            #expect(try await CommandRunner.run(["outbox", "discard", pipeline, key], environment: workspace.environment).status == 0)
            #expect(spooled(workspace).count == 1)
            #expect(try await CommandRunner.run(["outbox", "clear", pipeline], environment: workspace.environment).status == 0)
            #expect(spooled(workspace).isEmpty)
        }
    }
}
