import Foundation
import Sandbox
import ScreensBus
import Testing

/// `screens-pipe write` with `service: comment, transport: headless`: headless-delivery's
/// comment POST, PUT and DELETE through the binary, each read back with a list pipeline of
/// the same portal.
@Suite("write: comments through headless-delivery")
struct HeadlessCommentWriteTests {
    static let article = "com.liferay.journal.model.JournalArticle"

    @Test("add (to an article, a document, a blog post), update and delete come back from the lists; a rerun sends nothing")
    func addUpdateDelete() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let input = try workspace.save(
            "comments.jsonl",
            [
                #"{"structuredContentId":40001,"text":"New 1"}"#,
                #"{"className":"\#(Self.article)","classPK":40001,"text":"New 2"}"#,
                #"{"commentId":80003,"text":"Edited"}"#,
                #"{"op":"delete","commentId":80004}"#,
                #"{"documentId":90001,"text":"Nice photo"}"#,
                #"{"blogPostingId":60004,"text":"Good read"}"#,
            ].joined(separator: "\n") + "\n")
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.headlessCommentPipeline(server: server)
            let result = try await workspace.write(pipeline, ["--input", input])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let results = try result.jsonLines()
            #expect(results.map { $0["outcome"]?.stringValue } == ["created", "created", "updated", "deleted", "created", "created"])
            #expect(results[0]["structuredContentId"] == .int(40001))
            #expect(results[3]["commentId"] == .int(80004))
            #expect(result.stderr.contains("4 created, 1 updated, 1 deleted"), "\(result.stderr)")

            let thread = try await workspace.readBackComments(server: server, classPK: 40001)
            #expect(thread.count == 61)
            #expect(thread.suffix(2).map { $0["body"]?.stringValue } == ["<p>New 1</p>", "<p>New 2</p>"], "the portal wraps the text in <p>")
            #expect(results[0]["commentId"] == thread[59]["commentId"])
            #expect(thread.first { $0["commentId"] == .int(80003) }?["body"] == "<p>Edited</p>")
            #expect(!thread.contains { $0["commentId"] == .int(80004) })
            let onDocument = try await workspace.readBackHeadlessComments(server: server, path: "documents/90001/comments")
            #expect(onDocument.map { $0["text"]?.stringValue } == ["<p>Nice photo</p>"])
            let onBlog = try await workspace.readBackHeadlessComments(server: server, path: "blog-postings/60004/comments")
            #expect(onBlog.map { $0["id"] } == [results[5]["commentId"]])

            let requests = harness.server.requestCount
            let rerun = try await workspace.write(pipeline, ["--input", input])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().allSatisfy { $0["outcome"] == "unchanged" })
            #expect(harness.server.requestCount == requests, "the journal answers a rerun: nothing is sent")

            let dry = try await workspace.write(pipeline, ["--input", try workspace.save("more.jsonl", #"{"structuredContentId":40001,"text":"Planned"}"# + "\n"), "--dry-run"])
            #expect(dry.status == 0, "stderr: \(dry.stderr)")
            let planned = try dry.jsonLines().first { $0["event"] == "custom" && $0["name"] == "request" }
            #expect(planned?["payload"]?["request"]?.stringValue?.hasPrefix("POST \(server)/o/headless-delivery/v1.0/structured-contents/40001/comments") == true)
            #expect(planned?["payload"]?["body"] == ["text": "Planned"])
            #expect(planned?["payload"]?["headers"]?["Authorization"]?.stringValue?.contains("dGVzdA") != true, "no credentials in a dry run")
            #expect(harness.server.requestCount == requests, "a dry run sends nothing")
        }
    }

    @Test("rows headless would not take are rejected before any request; the portal's refusals carry its status and title")
    func rejects() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let input = try workspace.save(
            "comments.jsonl",
            [
                #"{"structuredContentId":40001,"text":"   "}"#,
                #"{"structuredContentId":40001,"body":"<p>JSON-WS style</p>"}"#,
                #"{"text":"no parent"}"#,
                #"{"structuredContentId":40001,"documentId":90001,"text":"two parents"}"#,
                #"{"className":"com.liferay.bookmarks.model.BookmarksEntry","classPK":30001,"text":"bookmark"}"#,
                #"{"structuredContentId":40001,"text":"bell \u0007"}"#,
                #"{"commentId":80001,"text":"not mine"}"#,
                #"{"op":"delete","commentId":424242}"#,
                #"{"structuredContentId":99999,"text":"no such article"}"#,
                #"{"documentId":99999,"text":"no such document"}"#,
                #"{"structuredContentId":40001,"text":"the good one"}"#,
            ].joined(separator: "\n") + "\n")
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let result = try await workspace.write(try workspace.headlessCommentPipeline(server: server), ["--input", input])
            #expect(result.status == 1, "rows rejected: \(result.stderr)")
            #expect(try result.jsonLines().filter { $0["outcome"] == "created" }.count == 1)
            let rejects = try workspace.rejects().sorted { ($0["line"]?.int64Value ?? 0) < ($1["line"]?.int64Value ?? 0) }
            #expect(rejects.map { $0["line"]?.int64Value } == Array(1...10))
            let reasons = rejects.map { $0["reason"]?.stringValue ?? "" }
            #expect(reasons[0].contains("'text' is empty"))
            #expect(reasons[1].contains("over headless a row gives 'text'"))
            #expect(reasons[2].contains("missing the commented entry"))
            #expect(reasons[3].contains("names 2 entries"))
            #expect(reasons[4].contains("headless-delivery takes comments on"))
            #expect(reasons[5].contains("control character U+0007"))
            #expect(reasons[6].contains("HTTP 403"))
            #expect(reasons[7].contains("HTTP 404") && reasons[7].contains("No MBMessage exists with the primary key 424242"))
            #expect(reasons[8].contains("HTTP 404") && reasons[8].contains("No JournalArticle exists"))
            #expect(reasons[9].contains("HTTP 404") && reasons[9].contains("No DLFileEntry exists"))
            let thread = try await workspace.readBackComments(server: server, classPK: 40001)
            #expect(thread.count == 61)
            #expect(thread.last?["body"] == "<p>the good one</p>")
            #expect(thread.first { $0["commentId"] == .int(80001) }?["body"] == "<p>First!</p>")

            // Another journal (a second workspace) sends the same comment again: the
            // portal's DuplicateCommentException, 409, is the row's reason.
            let other = try WriteWorkspace()
            defer { other.remove() }
            let again = try await other.write(
                try other.headlessCommentPipeline(server: server),
                ["--input", try other.save("again.jsonl", #"{"structuredContentId":40001,"text":"the good one"}"# + "\n")])
            #expect(again.status == 1)
            #expect(try other.rejects().first?["reason"]?.stringValue?.contains("HTTP 409") == true)
        }
    }

    @Test("the connection drops after every 2nd request was carried out: adds are looked up, nothing is written twice")
    func ambiguousAnswers() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        var lines = (1...6).map { #"{"structuredContentId":40001,"text":"Reply \#($0)"}"# }
        lines += [#"{"commentId":80005,"text":"Edited"}"#, #"{"op":"delete","commentId":80009}"#, #"{"op":"delete","commentId":80010}"#]
        let input = try workspace.save("comments.jsonl", lines.joined(separator: "\n") + "\n")
        try await withSandbox(faults: FaultPlan(dropAfterProcessingEvery: 2)) { harness in
            let server = harness.server.baseURL
            let result = try await workspace.write(try workspace.headlessCommentPipeline(server: server), ["--input", input])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("looking its comment up before sending again"))
            #expect(try result.jsonLines().map { $0["outcome"]?.stringValue } == Array(repeating: "created", count: 6) + ["updated", "deleted", "deleted"])
            let thread = try await workspace.readBackComments(server: server, classPK: 40001)
            #expect(thread.count == 60 + 6 - 2)
            for number in 1...6 {
                #expect(thread.filter { $0["body"] == .string("<p>Reply \(number)</p>") }.count == 1, "reply \(number) once")
            }
            #expect(thread.first { $0["commentId"] == .int(80005) }?["body"] == "<p>Edited</p>")
            #expect(!thread.contains { [80009, 80010].contains($0["commentId"]?.int64Value ?? 0) })
        }
    }

    // The 2nd request (line 2's POST) is carried out and then stalls; the kill comes in that
    // stall, so the journal keeps line 2 pending. A shell loop in its own process watches
    // the results and kills (as CommentWriteTests.killAndRerun does).
    @Test("kill -9 while a carried-out POST's answer is on its way, then a rerun: the comment is looked up, not posted again")
    func killAndRerun() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let lines = (1...3).map { #"{"structuredContentId":40001,"text":"Kept \#($0)"}"# }
        let rows = try workspace.save("comments.jsonl", lines.joined(separator: "\n") + "\n")
        try await withSandbox(faults: FaultPlan(stallEvery: 2, stallDuration: .seconds(8))) { harness in
            let pipeline = try workspace.headlessCommentPipeline(server: harness.server.baseURL)
            let killed = try await CommandRunner.shell(
                """
                : > "$DIR/out.jsonl"
                "$SP" write "$PIPELINE" --input "$ROWS" --rejects "$DIR/rejects.jsonl" >> "$DIR/out.jsonl" 2> /dev/null &
                writer=$!
                while [ "$(wc -l < "$DIR/out.jsonl")" -lt 1 ]; do sleep 0.02; done
                sleep 1
                kill -9 $writer
                wait $writer
                echo "status $?"
                """,
                environment: workspace.environment.merging(["PIPELINE": pipeline, "ROWS": rows, "DIR": workspace.directory.path]) { $1 })
            #expect(killed.stdoutText == "status 137\n", "the writer was killed by SIGKILL: \(killed.stdoutText) \(killed.stderr)")
            #expect(harness.server.requestCount == 2, "lines 1 and 2 were posted, and nothing else")

            let rerun = try await workspace.write(pipeline, ["--input", rows])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().map { $0["outcome"]?.stringValue } == ["unchanged", "created", "created"])
            #expect(harness.server.requestCount == 4, "a lookup of the article's comments settles line 2, then line 3 is posted")
            let thread = try await workspace.readBackComments(server: harness.server.baseURL, classPK: 40001)
            for number in 1...3 {
                #expect(thread.filter { $0["body"] == .string("<p>Kept \(number)</p>") }.count == 1, "comment \(number) once")
            }
        }
    }

    @Test("the sample pipeline writes the sample rows over headless on the bundled sandbox")
    func sample() async throws {
        let root = CommandRunner.packageRoot
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let result = try await CommandRunner.run(
            [
                "write", root.appendingPathComponent("pipelines/import-comments-headless.yaml").path,
                "--input", root.appendingPathComponent("samples/offline/comments-headless.jsonl").path, "--rejects", workspace.path("rejects.jsonl"),
            ],
            environment: workspace.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.jsonLines().map { $0["outcome"]?.stringValue } == ["created", "created", "created", "updated", "deleted"])
    }
}

extension WriteWorkspace {
    func headlessCommentPipeline(server: String) throws -> String {
        try save(
            "write-headless-comments.yaml",
            """
            name: write-headless-comments
            sink:
              type: liferay
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              service: comment
              transport: headless
              retry: { attempts: 4, backoff: 20ms, max-backoff: 200ms }
            """)
    }

    /// A headless comment list (`path` under headless-delivery v1.0), read back through the binary.
    func readBackHeadlessComments(server: String, path: String) async throws -> [JSONValue] {
        let pipeline = try save(
            "read-headless-comments.yaml",
            """
            name: read-headless-comments
            source:
              type: liferay-headless
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              path: /o/headless-delivery/v1.0/\(path)
              pagination: { first-page-size: 25, page-size: 25 }
            cache: { policy: remote-only }
            """)
        let result = try await CommandRunner.run(["run", pipeline], environment: environment)
        guard result.status == 0 else { throw ReadBackFailed(stderr: result.stderr) }
        return try result.jsonLines()
    }
}
