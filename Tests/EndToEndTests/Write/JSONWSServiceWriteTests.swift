import Foundation
import Sandbox
import ScreensBus
import Testing

/// `screens-pipe write` over JSON-WS for the services besides bookmarks: web content
/// (`add-article` / `update-article`), DDL records (`add-record` / `update-record`) and a
/// declared command with `fields`, each read back with a list pipeline of the same portal.
@Suite("write: web content, DDL records and declared commands over JSON-WS")
struct JSONWSServiceWriteTests {
    @Test("web content: 20 articles in batches of 8 come back from get-articles once each; a rerun sends nothing; a change is a new version")
    func webContentRoundTrip() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.servicePipeline(server: server, service: "web-content", extra: "  structure-key: NEWS-ARTICLE\n  folder-id: 20300\n  batch-size: 8")
            let rows = try workspace.articles(20, externalReferenceCodes: false)
            let result = try await workspace.write(pipeline, ["--input", rows])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try result.jsonLines().map { $0["outcome"]?.stringValue } == Array(repeating: "created", count: 20))

            let articles = try await workspace.readBackArticles(server: server, folderId: 20300)
            #expect(articles.count == 20)
            for (index, article) in articles.enumerated() {
                #expect(article["title"]?.stringValue?.contains(">Article \(index + 1)</Title>") == true)
                #expect(article["content"]?.stringValue?.contains(">Body of article \(index + 1) of 20</dynamic-content>") == true)
                #expect(article["DDMStructureKey"] == "NEWS-ARTICLE")
            }

            let requests = harness.server.requestCount
            let rerun = try await workspace.write(pipeline, ["--input", rows])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().allSatisfy { $0["outcome"] == "unchanged" })
            #expect(harness.server.requestCount == requests)

            let changed = try workspace.save(
                "changed.jsonl", #"{"title":"Article 3","description":"changed","contentFields":[{"name":"Body","contentFieldValue":{"data":"new body"}}]}"# + "\n")
            let update = try await workspace.write(pipeline, ["--input", changed])
            #expect(update.status == 0, "stderr: \(update.stderr)")
            #expect(try update.jsonLines().map { $0["outcome"]?.stringValue } == ["updated"])
            let after = try await workspace.readBackArticles(server: server, folderId: 20300)
            #expect(after.count == 20)
            #expect(after[2]["version"]?.doubleValue == 1.1)
            #expect(after[2]["content"]?.stringValue?.contains(">new body</dynamic-content>") == true)
            #expect(after[2]["description"]?.stringValue?.contains(">changed</Description>") == true)
        }
    }

    @Test("web content: an unknown structure is the portal's NoSuchStructureException, a row without title a reject before any request")
    func webContentRejects() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let input = try workspace.save(
            "rows.jsonl",
            [
                #"{"title":"good","contentFields":[{"name":"Body","contentFieldValue":{"data":"x"}}]}"#,
                #"{"contentFields":[]}"#,
                #"{"title":"no such structure","ddmStructureKey":"MISSING"}"#,
            ].joined(separator: "\n") + "\n")
        try await withSandbox { harness in
            let pipeline = try workspace.servicePipeline(server: harness.server.baseURL, service: "web-content", extra: "  structure-key: NEWS-ARTICLE")
            let result = try await workspace.write(pipeline, ["--input", input])
            #expect(result.status == 1)
            let rejects = try workspace.rejects()
            #expect(rejects.map { $0["line"]?.int64Value } == [2, 3])
            #expect(rejects[0]["reason"]?.stringValue?.contains("missing 'title'") == true)
            #expect(rejects[1]["reason"]?.stringValue?.contains("NoSuchStructureException") == true)
        }
    }

    @Test("web content: the connection drops after every 2nd request was carried out; the folder is looked up, nothing is created twice")
    func webContentAmbiguousBatches() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox(faults: FaultPlan(dropAfterProcessingEvery: 2)) { harness in
            let pipeline = try workspace.servicePipeline(server: harness.server.baseURL, service: "web-content", extra: "  structure-key: NEWS-ARTICLE\n  folder-id: 20300\n  batch-size: 3")
            let result = try await workspace.write(pipeline, ["--input", try workspace.articles(12, externalReferenceCodes: false)])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("looking its entries up before sending again"))
            #expect(try result.jsonLines().allSatisfy { $0["outcome"] == "created" })
            let articles = try await workspace.readBackArticles(server: harness.server.baseURL, folderId: 20300)
            #expect(articles.count == 12)
        }
    }

    @Test("DDL records on Liferay 7.0: written, read back from get-ddl-records, unknown fields refused by the portal, changes updated")
    func ddlRecords() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        var lines = (1...15).map { #"{"name":"New \#($0)","email":"new\#($0)@example.com","phone":"+34 600 000 \#($0)","vip":false,"score":\#($0)}"# }
        lines.append(#"{"name":"No email"}"#)
        lines.append(#"{"name":"Nick","email":"nick@example.com","nickname":"n"}"#)
        let input = try workspace.save("records.jsonl", lines.joined(separator: "\n") + "\n")
        try await withConfiguredSandbox({ $0.liferayVersion = .v7_0 }) { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.servicePipeline(server: server, service: "ddl-record", extra: "  liferay-version: \"7.0\"\n  record-set-id: 20501\n  key: [email]\n  batch-size: 4")
            let result = try await workspace.write(pipeline, ["--input", input])
            #expect(result.status == 1, "two rows rejected: \(result.stderr)")
            let rejects = try workspace.rejects()
            #expect(rejects.map { $0["line"]?.int64Value } == [16, 17])
            #expect(rejects[0]["reason"]?.stringValue?.contains("missing 'email'") == true)
            #expect(rejects[1]["reason"]?.stringValue?.contains("StorageFieldNameException") == true)

            let records = try await workspace.readBackRecords(server: server).filter { $0["modelValues"]?["email"]?.stringValue?.hasPrefix("new") == true }
            #expect(records.map { $0["modelValues"]?["name"]?.stringValue } == (1...15).map { "New \($0)" })
            #expect(records.map { $0["modelValues"]?["score"]?.int64Value } == (1...15).map { Int64($0) })

            let changed = try workspace.save("changed.jsonl", #"{"name":"Renamed","email":"new4@example.com","phone":"1","vip":true,"score":40}"# + "\n")
            let update = try await workspace.write(pipeline, ["--input", changed])
            #expect(update.status == 0, "stderr: \(update.stderr)")
            #expect(try update.jsonLines().map { $0["outcome"]?.stringValue } == ["updated"])
            let after = try await workspace.readBackRecords(server: server).filter { $0["modelValues"]?["email"] == "new4@example.com" }
            #expect(after.count == 1)
            #expect(after.first?["modelValues"]?["name"] == "Renamed")
        }
    }

    @Test("a declared command: row fields mapped onto add-entry's parameters, a missing required one a reject, read back once each")
    func declaredFields() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        var lines = (1...10).map { #"{"title":"Link \#($0)","link":"https://example.com/link/\#($0)","meta":{"summary":"about \#($0)"}}"# }
        lines.insert(#"{"title":"no link"}"#, at: 3)
        let input = try workspace.save("links.jsonl", lines.joined(separator: "\n") + "\n")
        try await withSandbox { harness in
            let pipeline = try workspace.servicePipeline(
                server: harness.server.baseURL, service: "custom",
                extra: """
                  command: /bookmarks.bookmarksentry/add-entry
                  fields:
                    groupId: 20143
                    folderId: 20201
                    name: row.title
                    url: row.link
                    description: row.meta.summary
                  optional: [description]
                  key: [url]
                  batch-size: 4
                """)
            let result = try await workspace.write(pipeline, ["--input", input])
            #expect(result.status == 1)
            let rejects = try workspace.rejects()
            #expect(rejects.map { $0["line"]?.int64Value } == [4])
            #expect(rejects[0]["reason"]?.stringValue?.contains("missing 'row.link' for the required parameter 'url'") == true)
            let outcomes = try result.jsonLines().filter { $0["outcome"] == "created" }
            #expect(outcomes.count == 10)
            #expect(outcomes.allSatisfy { $0["id"]?.int64Value != nil })
            let entries = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entries.map { $0["name"]?.stringValue } == (1...10).map { "Link \($0)" })
            #expect(entries.map { $0["description"]?.stringValue } == (1...10).map { "about \($0)" })
        }
    }

    @Test("a declared command has no lookup: an unanswered batch stops the write, naming its lines, never sent twice")
    func declaredAmbiguousStops() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox(faults: FaultPlan(dropAfterProcessingEvery: 1)) { harness in
            let pipeline = try workspace.servicePipeline(
                server: harness.server.baseURL, service: "custom",
                extra: """
                  command: /bookmarks.bookmarksentry/add-entry
                  fields: { groupId: 20143, folderId: 20201, name: row.name, url: row.url, description: row.description }
                """)
            let result = try await workspace.write(pipeline, ["--input", try workspace.rows(3)])
            #expect(result.status != 0)
            #expect(result.stderr.contains("has no lookup"), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("1, 2, 3"))
            #expect(harness.server.requestCount == 1, "sent once, never again")
        }
    }
}

extension WriteWorkspace {
    /// A pipeline writing `service` over JSON-WS to `server`'s site 20143, `extra` lines in the sink.
    func servicePipeline(server: String, service: String, extra: String) throws -> String {
        try save(
            "write-\(service).yaml",
            """
            name: write-\(service)
            sink:
              type: liferay
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              service: \(service)
              group-id: 20143
              retry: { attempts: 4, backoff: 20ms, max-backoff: 200ms }
            \(extra)
            """)
    }

    /// The rejects file's lines.
    func rejects() throws -> [JSONValue] {
        try String(contentsOfFile: path("rejects.jsonl"), encoding: .utf8).split(separator: "\n").map { try JSONValue(parsing: Array($0.utf8)) }
    }

    /// The tests' articles ("Article N") of a folder of site 20143, read back through the binary.
    func readBackArticles(server: String, folderId: Int64) async throws -> [JSONValue] {
        try await readBackList(
            server: server,
            rows: "{ service: /journal.journalarticle/get-articles, params: { groupId: 20143, folderId: \(folderId), obc: null } }",
            count: "{ service: /journal.journalarticle/get-articles-count, params: { groupId: 20143, folderId: \(folderId) } }"
        ).filter { $0["title"]?.stringValue?.contains(">Article ") == true }
    }

    /// Every record of the Contacts list (20501), read back through the binary.
    func readBackRecords(server: String) async throws -> [JSONValue] {
        try await readBackList(
            server: server,
            rows: "{ service: /screens.screensddlrecord/get-ddl-records, params: { ddlRecordSetId: 20501, locale: en_US, obc: null } }",
            count: "{ service: /screens.screensddlrecord/get-ddl-records-count, params: { ddlRecordSetId: 20501 } }")
    }

    private func readBackList(server: String, rows: String, count: String) async throws -> [JSONValue] {
        let pipeline = try save(
            "read-list.yaml",
            """
            name: read-list
            source:
              type: liferay-jsonws
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              rows: \(rows)
              count: \(count)
              pagination: { first-page-size: 10, page-size: 7 }
            cache: { policy: remote-only }
            """)
        let result = try await CommandRunner.run(["run", pipeline], environment: environment)
        guard result.status == 0 else { throw ReadBackFailed(stderr: result.stderr) }
        return try result.jsonLines()
    }
}
