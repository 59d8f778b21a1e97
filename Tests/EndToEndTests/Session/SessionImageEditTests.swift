import Foundation
import ScreensBus
import Testing

/// A session over an image gallery (Image Gallery Screenlet's list: `/dlapp/get-file-entries`
/// of folder 20400 by image types) that uploads and deletes images through the pipeline's
/// `liferay` sink (`service: image`), through the binary against the sandbox portal. As
/// `ImageGalleryUploadInteractor` and `ImageGalleryDeleteInteractor` do, the uploaded entry
/// joins the list's last page and the count grows by one, a deleted one leaves it, and the
/// cached pages follow.
@Suite("session: upload and delete images of a gallery")
struct SessionImageEditTests {
    /// Folder 20400 holds 25 images of these types: pages of 10 end with a page of 5.
    /// The list's source; `policy` nil: no cache, every page from the portal.
    private func source(server: String, policy: String?) -> String {
        """
        source:
          type: liferay-jsonws
          server: \(server)
          auth: { basic: { username: test@liferay.com, password: test } }
          rows:
            service: /dlapp/get-file-entries
            params: { repositoryId: 20143, folderId: 20400, mimeTypes: [image/png, image/jpeg, image/gif], obc: null }
          count:
            service: /dlapp/get-file-entries-count
            params: { repositoryId: 20143, folderId: 20400, mimeTypes: [image/png, image/jpeg, image/gif] }
          pagination: { first-page-size: 10, page-size: 10 }
          retry: { attempts: 2, backoff: 20ms, max-backoff: 50ms }
        convert: { model: image }
        \(policy.map { "cache: { policy: \($0) }" } ?? "")
        """
    }

    private func sessionPipeline(_ workspace: WriteWorkspace, server: String) throws -> String {
        try workspace.save(
            "gallery.yaml",
            "name: gallery\n" + source(server: server, policy: "remote-first") + "\n"
                + ImageUploadTests.imageSink(server: server, retry: "{ attempts: 2, backoff: 20ms, max-backoff: 50ms }"))
    }

    /// The gallery's entry ids as a `run` lists them: from the cache only (`cache-only`), or
    /// from the portal (nil), storing nothing.
    private func listedIds(_ workspace: WriteWorkspace, server: String, policy: String?) async throws -> [Int64] {
        let name = policy ?? "portal"
        let pipeline = try workspace.save("list-\(name).yaml", "name: gallery-\(name)\n" + source(server: server, policy: policy))
        let run = try await CommandRunner.run(["run", pipeline], environment: workspace.environment)
        #expect(run.status == 0, "\(run.stderr)")
        return try run.jsonLines().compactMap { $0["fileEntryId"]?.int64Value }
    }

    @Test("an upload joins the last page with strictly growing progress and the count grows by one; a delete leaves; the cache follows")
    func uploadAndDelete() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        // A file of 3 MB, whose first bytes make it the PNG it says it is.
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 3 << 20)
        try Data(png).write(to: workspace.directory.appendingPathComponent("harbour at night.png"))
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let before = try await listedIds(workspace, server: server, policy: nil)
            #expect(before.count == 25)
            let session = try SessionProcess([try sessionPipeline(workspace, server: server)], environment: workspace.environment, directory: workspace.directory)
            #expect(try await session.nextEvent()?["event"] == "started")
            for command in [#"{"op":"load"}"#, #"{"op":"next"}"#, #"{"op":"next"}"#] { _ = try await session.ask(command) }

            let added = try await session.ask(#"{"op":"add","row":{"file":"harbour at night.png","title":"Harbour at night","mimeType":"image/png"},"id":"up"}"#)
            let progress = added.filter { $0["event"] == "progress" }
            #expect(added.last?["event"] == "edited" && added.count == progress.count + 1, "progress, then the answer: \(added.map(\.jsonString))")
            let sent = progress.compactMap { $0["sent"]?.int64Value }
            let total = try #require(progress.last?["total"]?.int64Value)
            #expect(!sent.isEmpty && zip(sent, sent.dropFirst()).allSatisfy { $0 < $1 }, "strictly growing: \(sent)")
            #expect(sent.last == total && total > Int64(png.count), "the whole body, the file and the form around it")
            #expect(progress.allSatisfy { $0["id"] == "up" && $0["op"] == "add" && $0["total"]?.int64Value == total })
            let add = try #require(added.last)
            #expect(add["outcome"] == "created" && add["row"] == 25 && add["page"] == 2 && add["rowCount"] == 26, "\(add)")
            let item = try #require(add["item"])
            let uploaded = try #require(item["fileEntryId"]?.int64Value)
            #expect(item["title"] == "Harbour at night" && item["size"] == .int(Int64(png.count)) && item["mimeType"] == "image/png")
            #expect(item["imageUrl"]?.stringValue?.hasPrefix("\(server)/documents/20143/20400/Harbour%20at%20night/") == true, "\(item)")

            let deleted = try await session.ask(#"{"op":"delete","key":{"fileEntryId":\#(before[0])},"id":"del"}"#)
            let delete = try #require(deleted.last)
            #expect(delete["event"] == "edited" && delete["outcome"] == "deleted", "\(deleted)")
            #expect(delete["row"] == 0 && delete["page"] == 0 && delete["rowCount"] == 25 && delete["item"]?["fileEntryId"] == .int(before[0]))

            // The session's own pages moved with the edits: row 10 came back to page 0.
            let page0 = try await session.ask(#"{"op":"load","id":"again"}"#)
            #expect(page0.filter { $0["event"] == "row" }.compactMap { $0["item"]?["fileEntryId"]?.int64Value } == Array(before[1...10]))
            #expect(page0.first { $0["event"] == "response" }?["rowCount"] == 25)

            let refused = [
                #"{"op":"update","row":{"fileEntryId":\#(uploaded),"title":"renamed"},"id":"e1"}"#,
                #"{"op":"delete","key":{"title":"Harbour at night"},"id":"e2"}"#,
                #"{"op":"delete","key":{"fileEntryId":\#(before[0])},"id":"e3"}"#,
                #"{"op":"add","row":{"file":"../outside.png","mimeType":"image/png"},"id":"e4"}"#,
                #"{"op":"add","row":{"op":"delete","fileEntryId":\#(uploaded)},"id":"e5"}"#,
            ]
            for line in refused {
                let answer = try await session.ask(line)
                #expect(answer.names == ["error"] && answer.first?["kind"] == "command", "\(line): \(answer)")
            }
            session.send(#"{"op":"close"}"#)
            let end = try await session.finish()
            #expect(end.status == 0, "\(end.stderr)")
            try await session.expectSchemaValid()

            let expected = Array(before.dropFirst()) + [uploaded]
            #expect(try await listedIds(workspace, server: server, policy: "cache-only") == expected, "the cached pages of the list were edited")
            #expect(try await listedIds(workspace, server: server, policy: nil) == expected, "each edit once on the portal")
        }
    }
}
