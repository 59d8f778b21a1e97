import Foundation
import Sandbox
import ScreensBus
import Testing

/// `{"op":"delete"}` rows of `service: web-content, transport: headless` end to end: the
/// articles are gone from the structured-contents list, each delete is sent once, and a
/// delete whose answer was lost is done, never reported refused.
@Suite("write: web content deletes through headless-delivery")
struct HeadlessWebContentDeleteTests {
    @Test("deletes by externalReferenceCode, by id and by title remove exactly those articles; a rerun sends nothing")
    func deleteThreeWays() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.webContentPipeline(server: server)
            let created = try await workspace.write(pipeline, ["--input", try workspace.articles(6)])
            #expect(created.status == 0, "stderr: \(created.stderr)")
            let ids = try created.jsonLines().compactMap { $0["id"]?.int64Value }
            #expect(ids.count == 6)
            let deletes = try workspace.save(
                "deletes.jsonl",
                [
                    #"{"op":"delete","externalReferenceCode":"wc-1"}"#,
                    #"{"op":"delete","id":\#(ids[2])}"#,
                    #"{"op":"delete","title":"Article 5"}"#,
                ].joined(separator: "\n") + "\n")
            let before = harness.server.requestCount
            let result = try await workspace.write(pipeline, ["--input", deletes])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let outcomes = try result.jsonLines()
            #expect(outcomes.map { $0["outcome"]?.stringValue } == ["deleted", "deleted", "deleted"])
            #expect(outcomes.map { $0["op"]?.stringValue } == ["delete", "delete", "delete"])
            #expect(outcomes[1]["id"]?.int64Value == ids[2])
            #expect(outcomes[2]["id"]?.int64Value == ids[4], "the title was found by a lookup")
            // One DELETE a row, and one list page for the title: the journal knows these
            // articles by their codes, not their titles.
            #expect(harness.server.requestCount - before == 4)

            let left = try await workspace.readBackWebContent(server: server)
            #expect(left.map { $0["externalReferenceCode"]?.stringValue } == ["wc-2", "wc-4", "wc-6"])

            let requests = harness.server.requestCount
            let rerun = try await workspace.write(pipeline, ["--input", deletes])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().allSatisfy { $0["outcome"]?.stringValue == "unchanged" })
            #expect(harness.server.requestCount == requests, "the journal answered for every delete")

            // Created again after its delete: a new article, listed once.
            let again = try await workspace.write(pipeline, ["--input", try workspace.save("again.jsonl", #"{"externalReferenceCode":"wc-1","title":"Back","contentFields":[]}"# + "\n")])
            #expect(try again.jsonLines().map { $0["outcome"]?.stringValue } == ["created"])
            #expect(try await workspace.readBackWebContent(server: server).map { $0["externalReferenceCode"]?.stringValue } == ["wc-2", "wc-4", "wc-6", "wc-1"])
        }
    }

    @Test("a delete by title of an article this journal created by title takes the journal's id: one DELETE, no lookup")
    func deleteByKnownTitle() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.webContentPipeline(server: server)
            let created = try await workspace.write(pipeline, ["--input", try workspace.articles(2, externalReferenceCodes: false)])
            let firstId = try created.jsonLines().first?["id"]?.int64Value
            let before = harness.server.requestCount
            let result = try await workspace.write(pipeline, ["--input", try workspace.save("delete.jsonl", #"{"op":"delete","title":"Article 1"}"# + "\n")])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try result.jsonLines().map { $0["id"]?.int64Value } == [firstId])
            #expect(harness.server.requestCount - before == 1)
            let titles = try await workspace.readBackWebContent(server: server, newOnly: false).compactMap { $0["title"]?.stringValue }.filter { $0.hasPrefix("Article ") }
            #expect(titles == ["Article 2"])
        }
    }

    @Test("a delete by title of an article another client made is found by a lookup; unknown ones are rejects, the rest go on; exit 1")
    func lookupsAndRejects() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.webContentPipeline(server: server)
            // Written by another workspace (another journal): this one knows nothing of them.
            let other = try WriteWorkspace()
            defer { other.remove() }
            let created = try await other.write(try other.webContentPipeline(server: server), ["--input", try other.articles(3, externalReferenceCodes: false)])
            #expect(created.status == 0, "stderr: \(created.stderr)")
            let deletes = try workspace.save(
                "deletes.jsonl",
                [
                    #"{"op":"delete","title":"Article 2"}"#,
                    #"{"op":"delete","title":"No such article"}"#,
                    #"{"op":"delete","id":987654321}"#,
                    #"{"op":"delete","externalReferenceCode":"no-such-code"}"#,
                    #"{"op":"delete","id":-4}"#,
                    #"{"op":"delete","externalReferenceCode":".."}"#,
                    #"{"op":"delete"}"#,
                ].joined(separator: "\n") + "\n")
            let rejectsPath = workspace.path("rejects.jsonl")
            let result = try await workspace.write(pipeline, ["--input", deletes, "--rejects", rejectsPath])
            #expect(result.status == 1, "stderr: \(result.stderr)")
            let outcomes = try result.jsonLines()
            #expect(outcomes.first?["outcome"]?.stringValue == "deleted")
            let rejects = try String(contentsOfFile: rejectsPath, encoding: .utf8).split(separator: "\n").map { try JSONValue(parsing: Array($0.utf8)) }
            #expect(rejects.map { $0["line"]?.int64Value } == [2, 3, 4, 5, 6, 7])
            let reasons = rejects.compactMap { $0["reason"]?.stringValue }
            #expect(reasons[0].contains("nothing to delete"))
            #expect(reasons[1].contains("HTTP 404") && reasons[1].contains("No JournalArticle exists with the key {resourcePrimKey=987654321}"))
            #expect(reasons[2].contains("HTTP 404") && reasons[2].contains("externalReferenceCode=no-such-code"))
            #expect(reasons[3].contains("'id' must be a web content id"))
            #expect(reasons[4].contains("reads as a step"))
            #expect(reasons[5].contains("missing 'title'"))
            let titles = try await workspace.readBackWebContent(server: server, newOnly: false).compactMap { $0["title"]?.stringValue }.filter { $0.hasPrefix("Article ") }
            #expect(titles == ["Article 1", "Article 3"])
        }
    }

    @Test("deletes whose answers are lost after the portal deleted are sent again and reported deleted, each article once gone")
    func lostAnswers() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox(faults: FaultPlan(dropAfterProcessingEvery: 2)) { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.webContentPipeline(server: server)
            let created = try await workspace.write(pipeline, ["--input", try workspace.articles(6)])
            #expect(created.status == 0, "stderr: \(created.stderr)")
            let deletes = try workspace.save(
                "deletes.jsonl", (1...6).map { #"{"op":"delete","externalReferenceCode":"wc-\#($0)"}"# }.joined(separator: "\n") + "\n")
            let result = try await workspace.write(pipeline, ["--input", deletes])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try result.jsonLines().map { $0["outcome"]?.stringValue } == Array(repeating: "deleted", count: 6))
            #expect(try await workspace.readBackWebContent(server: server).isEmpty)
        }
    }

    @Test("a dry run plans each DELETE and sends none")
    func dryRun() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.webContentPipeline(server: server)
            _ = try await workspace.write(pipeline, ["--input", try workspace.articles(2)])
            let deletes = try workspace.save("deletes.jsonl", #"{"op":"delete","externalReferenceCode":"wc-1"}"# + "\n" + #"{"op":"delete","id":42}"# + "\n")
            let requests = harness.server.requestCount
            let result = try await workspace.write(pipeline, ["--input", deletes, "--dry-run"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let planned = try result.jsonLines().filter { $0["event"] == "custom" && $0["name"] == "request" }.compactMap { $0["payload"]?["request"]?.stringValue }
            #expect(planned == [
                "DELETE \(server)/o/headless-delivery/v1.0/sites/20143/structured-contents/by-external-reference-code/wc-1",
                "DELETE \(server)/o/headless-delivery/v1.0/structured-contents/42",
            ])
            #expect(harness.server.requestCount == requests, "a dry run sends nothing")
            #expect(try await workspace.readBackWebContent(server: server).count == 2)
        }
    }
}
