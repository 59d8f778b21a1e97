import Foundation
import Sandbox
import ScreensBus
import Testing

/// `screens-pipe write` with `service: web-content, transport: headless` end to end:
/// structured contents written through the binary come back from a headless list pipeline
/// of the same sandbox portal, exactly once each.
@Suite("write: web content through headless-delivery")
struct HeadlessWriteTests {
    @Test("30 rows PUT by external reference code come back from a structured-contents list: same values, in order, once each")
    func roundTrip() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let result = try await workspace.write(try workspace.webContentPipeline(server: server), ["--input", try workspace.articles(30)])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let outcomes = try result.jsonLines()
            #expect(outcomes.map { $0["outcome"]?.stringValue } == Array(repeating: "created", count: 30))
            #expect(outcomes.map { $0["line"]?.int64Value } == (1...30).map { Int64($0) })

            let written = try await workspace.readBackWebContent(server: server)
            #expect(written.map { $0["externalReferenceCode"]?.stringValue } == (1...30).map { "wc-\($0)" })
            #expect(written.map { $0["title"]?.stringValue } == (1...30).map { "Article \($0)" })
            #expect(written.map { $0["contentFields"]?[0]?["contentFieldValue"]?["data"]?.stringValue } == (1...30).map { "Body of article \($0) of 30" })
            #expect(written.allSatisfy { $0["contentStructureId"]?.int64Value == 20701 })
            #expect(Set(written.compactMap { $0["id"]?.int64Value }) == Set(outcomes.compactMap { $0["id"]?.int64Value }))
        }
    }

    @Test("a rerun sends nothing; a changed row is PUT again and reported updated, still one article")
    func rerunAndUpdate() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.webContentPipeline(server: harness.server.baseURL)
            let rows = try workspace.articles(12)
            let first = try await workspace.write(pipeline, ["--input", rows])
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let requests = harness.server.requestCount
            let second = try await workspace.write(pipeline, ["--input", rows])
            #expect(second.status == 0, "stderr: \(second.stderr)")
            #expect(try second.jsonLines().allSatisfy { $0["outcome"]?.stringValue == "unchanged" })
            #expect(harness.server.requestCount == requests, "the journal answered for every row")

            let changed = try workspace.save(
                "changed.jsonl",
                #"{"externalReferenceCode":"wc-5","title":"Renamed","contentFields":[{"name":"Body","contentFieldValue":{"data":"new"}}]}"# + "\n")
            let third = try await workspace.write(pipeline, ["--input", changed])
            #expect(third.status == 0, "stderr: \(third.stderr)")
            #expect(try third.jsonLines().map { $0["outcome"]?.stringValue } == ["updated"])
            let written = try await workspace.readBackWebContent(server: harness.server.baseURL)
            #expect(written.count == 12)
            #expect(written[4]["title"] == "Renamed")
            #expect(written[4]["contentFields"]?[0]?["contentFieldValue"]?["data"] == "new")
        }
    }

    @Test("rows the schema or the portal refuse are rejects with line numbers; the rest are written; exit 1")
    func rejects() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let lines = [
            #"{"externalReferenceCode":"wc-1","title":"good 1","contentFields":[{"name":"Body","contentFieldValue":{"data":"x"}}]}"#,
            #"{"externalReferenceCode":"wc-2","contentFields":[]}"#,
            #"{"externalReferenceCode":"wc-3","title":"bad fields","contentFields":{"Body":"x"}}"#,
            #"{"externalReferenceCode":"wc-4","title":"no data","contentFields":[{"name":"Body"}]}"#,
            "not json",
            #"{"externalReferenceCode":"wc-6","title":"unknown structure","contentStructureId":999}"#,
            #"{"externalReferenceCode":"wc-1","title":"same code again"}"#,
            #"{"externalReferenceCode":"wc-8","title":"\#(String(repeating: "t", count: 401))"}"#,
            #"{"externalReferenceCode":"wc-9","title":"good 9"}"#,
        ]
        let input = try workspace.save("hostile.jsonl", lines.joined(separator: "\n") + "\n")
        let rejectsPath = workspace.path("rejects.jsonl")
        try await withSandbox { harness in
            let result = try await workspace.write(
                try workspace.webContentPipeline(server: harness.server.baseURL), ["--input", input, "--rejects", rejectsPath])
            #expect(result.status == 1)
            #expect(result.stderr.contains("7 rows rejected; see \(rejectsPath)"), "stderr: \(result.stderr)")
            let rejects = try String(contentsOfFile: rejectsPath, encoding: .utf8).split(separator: "\n").map { try JSONValue(parsing: Array($0.utf8)) }
            #expect(rejects.map { $0["line"]?.int64Value } == [2, 3, 4, 5, 6, 7, 8])
            let byLine = Dictionary(uniqueKeysWithValues: rejects.map { ($0["line"]?.int64Value ?? 0, $0["reason"]?.stringValue ?? "") })
            #expect(byLine[2]?.contains("missing 'title'") == true)
            #expect(byLine[3]?.contains("'contentFields' must be a list") == true)
            #expect(byLine[4]?.contains("needs 'contentFieldValue'") == true)
            #expect(byLine[5]?.contains("not JSON") == true)
            #expect(byLine[6]?.contains("HTTP 400") == true && byLine[6]?.contains("No DDMStructure exists with the primary key 999") == true, "the portal's problem title: \(byLine[6] ?? "")")
            #expect(byLine[7]?.contains("as line 1") == true)
            #expect(byLine[8]?.contains("longer than the portal's 400") == true)
            let written = try await workspace.readBackWebContent(server: harness.server.baseURL)
            #expect(written.map { $0["title"]?.stringValue } == ["good 1", "good 9"])
        }
    }

    // The 4th data request (row 4's PUT) is stored and then its answer stalls: the kill
    // comes while the writer waits for it, row 4 pending in the journal.
    @Test("kill -9 while a stored PUT's answer is on its way, then a rerun: every article once, none missing")
    func killAndRerun() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox(faults: FaultPlan(stallEvery: 4, stallDuration: .seconds(8))) { harness in
            let pipeline = try workspace.webContentPipeline(server: harness.server.baseURL)
            let rows = try workspace.articles(10)
            let killed = try await CommandRunner.shell(
                """
                : > "$DIR/out.jsonl"
                "$SP" write "$PIPELINE" --input "$ROWS" --rejects "$DIR/rejects.jsonl" >> "$DIR/out.jsonl" 2> /dev/null &
                writer=$!
                while [ "$(wc -l < "$DIR/out.jsonl")" -lt 3 ]; do sleep 0.02; done
                kill -9 $writer
                wait $writer
                echo "status $?"
                """,
                environment: workspace.environment.merging(["PIPELINE": pipeline, "ROWS": rows, "DIR": workspace.directory.path]) { $1 })
            #expect(killed.stdoutText == "status 137\n", "the writer was killed by SIGKILL: \(killed.stdoutText) \(killed.stderr)")
            #expect(harness.server.requestCount == 4, "rows 1 to 4 were sent, and nothing else")

            let rerun = try await workspace.write(pipeline, ["--input", rows])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            let outcomes = try rerun.jsonLines()
            #expect(outcomes.filter { $0["outcome"] == "unchanged" }.count == 3, "rows 1 to 3: journaled as done")
            #expect(outcomes.filter { $0["outcome"] != "unchanged" }.count == 7, "row 4 PUT again, 5 to 10 sent")
            let written = try await workspace.readBackWebContent(server: harness.server.baseURL)
            #expect(written.map { $0["externalReferenceCode"]?.stringValue } == (1...10).map { "wc-\($0)" })
        }
    }

    @Test("a POST whose connection drops after it was stored is looked up by title, never created twice")
    func ambiguousPostIsLookedUp() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox(faults: FaultPlan(dropAfterProcessingEvery: 2)) { harness in
            let pipeline = try workspace.webContentPipeline(server: harness.server.baseURL)
            let result = try await workspace.write(pipeline, ["--input", try workspace.articles(8, externalReferenceCodes: false)])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("looking it up before sending again"))
            let outcomes = try result.jsonLines()
            #expect(outcomes.map { $0["outcome"]?.stringValue } == Array(repeating: "created", count: 8))
            let titles = try await workspace.readBackWebContent(server: harness.server.baseURL, newOnly: false)
                .compactMap { $0["title"]?.stringValue }.filter { $0.hasPrefix("Article ") }
            #expect(titles == (1...8).map { "Article \($0)" })
        }
    }

    @Test("a reader that stops after one result line (| head) ends the output, not the write: every row is still written")
    func closedStandardOutput() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.webContentPipeline(server: harness.server.baseURL)
            let result = try await CommandRunner.shell(
                #""$SP" write "$PIPELINE" --input "$ROWS" --rejects "$DIR/rejects.jsonl" 2> "$DIR/stderr" | head -n 1 > /dev/null; echo "status ${PIPESTATUS[0]}""#,
                environment: workspace.environment.merging(
                    ["PIPELINE": pipeline, "ROWS": try workspace.articles(40), "DIR": workspace.directory.path]) { $1 })
            #expect(result.stdoutText == "status 0\n", "stderr: \((try? String(contentsOfFile: workspace.path("stderr"), encoding: .utf8)) ?? "")")
            #expect(try await workspace.readBackWebContent(server: harness.server.baseURL).count == 40)
        }
    }

    @Test("bookmarks over headless: a configuration error that says Liferay has no such API, before any request")
    func bookmarksHaveNoHeadlessAPI() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL, extra: "  transport: headless")
            let result = try await workspace.write(pipeline, ["--input", try workspace.rows(2)])
            #expect(result.status != 0)
            #expect(result.stderr.contains("Liferay has no headless API for bookmarks"), "stderr: \(result.stderr)")
            #expect(harness.server.requestCount == 0)
        }
    }
}

extension WriteWorkspace {
    /// A pipeline writing web content to `server`'s site 20143, structure 20701 (NEWS-ARTICLE).
    func webContentPipeline(server: String) throws -> String {
        try save(
            "write-web-content.yaml",
            """
            name: write-web-content
            sink:
              type: liferay
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              service: web-content
              transport: headless
              group-id: 20143
              content-structure-id: 20701
              retry: { attempts: 4, backoff: 20ms, max-backoff: 200ms }
            """)
    }

    /// `count` web content rows as JSON lines, with codes `wc-N` unless told otherwise.
    func articles(_ count: Int, externalReferenceCodes: Bool = true) throws -> String {
        let lines = (1...count).map { number in
            let erc = externalReferenceCodes ? #""externalReferenceCode":"wc-\#(number)","# : ""
            return #"{\#(erc)"title":"Article \#(number)","contentFields":[{"name":"Body","contentFieldValue":{"data":"Body of article \#(number) of \#(count)"}}]}"#
        }
        return try save("articles.jsonl", lines.joined(separator: "\n") + "\n")
    }

    /// The site's structured contents read back through the binary; with `newOnly`, only
    /// those with the tests' `wc-` codes.
    func readBackWebContent(server: String, newOnly: Bool = true) async throws -> [JSONValue] {
        let pipeline = try save(
            "read-web-content.yaml",
            """
            name: read-web-content
            source:
              type: liferay-headless
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              path: /o/headless-delivery/v1.0/sites/20143/structured-contents
              query: { flatten: "true" }
              pagination: { page-size: 25 }
            cache: { policy: remote-only }
            """)
        let result = try await CommandRunner.run(["run", pipeline], environment: environment)
        guard result.status == 0 else { throw ReadBackFailed(stderr: result.stderr) }
        let rows = try result.jsonLines()
        return newOnly ? rows.filter { $0["externalReferenceCode"]?.stringValue?.hasPrefix("wc-") == true } : rows
    }
}
