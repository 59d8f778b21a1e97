import Foundation
import Sandbox
import ScreensBus
import Testing

/// `{"op":"delete"}` rows of `service: web-content` over JSON-WS end to end: each article is
/// removed once with `/journal.journalarticle/delete-article(groupId, articleId, articleURL)`
/// (the Mobile SDK's `JournalArticleService.deleteArticle`, every version), found by a
/// lookup of its folder; a rerun sends nothing.
@Suite("write: web content deletes over JSON-WS")
struct JSONWSWebContentDeleteTests {
    @Test("deletes by title and by articleId remove exactly those articles, each in a request of its own; a rerun sends nothing")
    func deleteByTitleAndArticleId() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.servicePipeline(server: server, service: "web-content", extra: "  structure-key: NEWS-ARTICLE\n  folder-id: 20300")
            let created = try await workspace.write(pipeline, ["--input", try workspace.articles(5, externalReferenceCodes: false)])
            #expect(created.status == 0, "stderr: \(created.stderr)")
            let articleIds = try await workspace.readBackArticles(server: server, folderId: 20300).compactMap { $0["articleId"]?.stringValue }
            #expect(articleIds.count == 5)

            let deletes = try workspace.save(
                "deletes.jsonl", #"{"op":"delete","title":"Article 2"}"# + "\n" + #"{"op":"delete","articleId":"\#(articleIds[3])"}"# + "\n")
            let result = try await workspace.write(pipeline, ["--input", deletes])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let outcomes = try result.jsonLines()
            #expect(outcomes.map { $0["outcome"]?.stringValue } == ["deleted", "deleted"])
            #expect(outcomes.map { $0["op"]?.stringValue } == ["delete", "delete"])
            let left = try await workspace.readBackArticles(server: server, folderId: 20300)
            #expect(left.compactMap { $0["articleId"]?.stringValue } == [articleIds[0], articleIds[2], articleIds[4]])

            let requests = harness.server.requestCount
            let rerun = try await workspace.write(pipeline, ["--input", deletes])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().allSatisfy { $0["outcome"]?.stringValue == "unchanged" })
            #expect(harness.server.requestCount == requests, "the journal answered for both deletes")
        }
    }

    @Test("a delete of an article its folder does not hold is a reject without a delete request; the rest go on; exit 1")
    func nothingToDelete() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.servicePipeline(server: server, service: "web-content", extra: "  structure-key: NEWS-ARTICLE\n  folder-id: 20300")
            _ = try await workspace.write(pipeline, ["--input", try workspace.articles(2, externalReferenceCodes: false)])
            let deletes = try workspace.save(
                "deletes.jsonl",
                [#"{"op":"delete","title":"No such article"}"#, #"{"op":"delete","articleId":"999999"}"#, #"{"op":"delete"}"#, #"{"op":"delete","title":"Article 1"}"#]
                    .joined(separator: "\n") + "\n")
            let result = try await workspace.write(pipeline, ["--input", deletes])
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(try result.jsonLines().map { $0["outcome"]?.stringValue } == ["rejected", "rejected", "rejected", "deleted"])
            let rejects = try workspace.rejects()
            #expect(rejects.map { $0["line"]?.int64Value } == [1, 2, 3])
            #expect(rejects[0]["reason"]?.stringValue?.contains("nothing to delete") == true)
            #expect(rejects[1]["reason"]?.stringValue?.contains("nothing to delete") == true)
            #expect(rejects[2]["reason"]?.stringValue?.contains("missing 'title'") == true)
            #expect(try await workspace.readBackArticles(server: server, folderId: 20300).count == 1)
        }
    }

    @Test("deletes whose answers are lost after the portal deleted are looked up, found gone and reported deleted")
    func lostAnswers() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox(faults: FaultPlan(dropAfterProcessingEvery: 2)) { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.servicePipeline(server: server, service: "web-content", extra: "  structure-key: NEWS-ARTICLE\n  folder-id: 20300")
            let created = try await workspace.write(pipeline, ["--input", try workspace.articles(4, externalReferenceCodes: false)])
            #expect(created.status == 0, "stderr: \(created.stderr)")
            let deletes = try workspace.save("deletes.jsonl", (1...4).map { #"{"op":"delete","title":"Article \#($0)"}"# }.joined(separator: "\n") + "\n")
            let result = try await workspace.write(pipeline, ["--input", deletes])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try result.jsonLines().map { $0["outcome"]?.stringValue } == Array(repeating: "deleted", count: 4))
            #expect(try await workspace.readBackArticles(server: server, folderId: 20300).isEmpty)
        }
    }
}
