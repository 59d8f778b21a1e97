import Foundation
import Sandbox
import ScreensBus
import Testing

/// `screens-pipe write` with `service: comment`: Screens' add-comment and update-comment and
/// the portal's delete-comment through the binary, each read back with a list pipeline of
/// the same portal (`get-comments`, as Comment List Screenlet reads them).
@Suite("write: comments over JSON-WS")
struct CommentWriteTests {
    static let article = "com.liferay.journal.model.JournalArticle"

    @Test("add, update and delete come back from get-comments; a rerun sends nothing; a new body is an update")
    func addUpdateDelete() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let input = try workspace.save(
            "comments.jsonl",
            [
                #"{"className":"\#(Self.article)","classPK":40001,"body":"<p>New 1</p>"}"#,
                #"{"className":"\#(Self.article)","classPK":40001,"body":"<p>New 2</p>"}"#,
                #"{"commentId":80003,"body":"<p>Edited</p>"}"#,
                #"{"op":"delete","commentId":80004}"#,
                #"{"className":"com.liferay.bookmarks.model.BookmarksEntry","classPK":30001,"body":"<p>On a bookmark</p>"}"#,
            ].joined(separator: "\n") + "\n")
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.commentPipeline(server: server, batchSize: 2)
            let result = try await workspace.write(pipeline, ["--input", input])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let results = try result.jsonLines()
            #expect(results.map { $0["outcome"]?.stringValue } == ["created", "created", "updated", "deleted", "created"])
            #expect(results[2]["commentId"] == .int(80003))
            #expect(results[3]["commentId"] == .int(80004))
            #expect(results[3]["op"] == "delete")
            #expect(result.stderr.contains("3 created, 1 updated, 1 deleted"), "\(result.stderr)")

            let thread = try await workspace.readBackComments(server: server, classPK: 40001)
            #expect(thread.count == 61)
            #expect(thread.suffix(2).map { $0["body"]?.stringValue } == ["<p>New 1</p>", "<p>New 2</p>"])
            #expect(thread.first { $0["commentId"] == .int(80003) }?["body"] == "<p>Edited</p>")
            #expect(!thread.contains { $0["commentId"] == .int(80004) })
            #expect(results[0]["commentId"] == thread[59]["commentId"])
            let onBookmark = try await workspace.readBackComments(server: server, className: "com.liferay.bookmarks.model.BookmarksEntry", classPK: 30001)
            #expect(onBookmark.filter { $0["body"] == "<p>On a bookmark</p>" }.count == 1)

            let requests = harness.server.requestCount
            let rerun = try await workspace.write(pipeline, ["--input", input])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().allSatisfy { $0["outcome"] == "unchanged" })
            #expect(harness.server.requestCount == requests, "the journal answers a rerun: nothing is sent")

            let changed = try workspace.save("changed.jsonl", #"{"commentId":80003,"body":"<p>Edited again</p>"}"# + "\n")
            let update = try await workspace.write(pipeline, ["--input", changed])
            #expect(update.status == 0, "stderr: \(update.stderr)")
            #expect(try update.jsonLines().map { $0["outcome"]?.stringValue } == ["updated"])
            let after = try await workspace.readBackComments(server: server, classPK: 40001)
            #expect(after.count == 61)
            #expect(after.first { $0["commentId"] == .int(80003) }?["body"] == "<p>Edited again</p>")
        }
    }

    @Test("rows the interactors would not send are rejected before any request; the portal's refusals name its exception")
    func rejects() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let huge = String(repeating: "x", count: 2 << 20)
        let input = try workspace.save(
            "comments.jsonl",
            [
                #"{"className":"\#(Self.article)","classPK":40001,"body":"   "}"#,
                #"{"className":"\#(Self.article)&classPK=1","classPK":40001,"body":"<p>x</p>"}"#,
                #"{"className":"\#(Self.article)\",\"classPK\":\"1","classPK":40001,"body":"<p>x</p>"}"#,
                #"{"className":"\#(Self.article)","classPK":40001,"body":"<p>bell \u0007</p>"}"#,
                #"{"className":"\#(Self.article)","classPK":40001,"body":"\#(huge)"}"#,
                #"{"classPK":40001,"body":"<p>x</p>"}"#,
                #"{"className":"\#(Self.article)","classPK":-4,"body":"<p>x</p>"}"#,
                #"{"op":"remove","commentId":80003}"#,
                #"{"op":"add","commentId":80003,"body":"<p>x</p>"}"#,
                #"{"commentId":80001,"body":"<p>not mine</p>"}"#,
                #"{"op":"delete","commentId":424242}"#,
                #"{"className":"\#(Self.article)","classPK":99999,"body":"<p>no such article</p>"}"#,
                #"{"className":"\#(Self.article)","classPK":40001,"body":"<p>the good one</p>"}"#,
            ].joined(separator: "\n") + "\n")
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let result = try await workspace.write(try workspace.commentPipeline(server: server, batchSize: 25), ["--input", input])
            #expect(result.status == 1, "rows rejected: \(result.stderr)")
            #expect(try result.jsonLines().filter { $0["outcome"] == "created" }.count == 1)
            let rejects = try workspace.rejects().sorted { ($0["line"]?.int64Value ?? 0) < ($1["line"]?.int64Value ?? 0) }
            #expect(rejects.map { $0["line"]?.int64Value } == Array(1...12))
            let reasons = rejects.map { $0["reason"]?.stringValue ?? "" }
            #expect(reasons[0].contains("'body' is empty"))
            #expect(reasons[1].contains("'className' must be a Java class name"))
            #expect(reasons[2].contains("'className' must be a Java class name"))
            #expect(reasons[3].contains("control character U+0007"))
            #expect(reasons[4].contains("longer than"))
            #expect(reasons[5].contains("missing 'className'"))
            #expect(reasons[6].contains("'classPK' must be a positive whole number"))
            #expect(reasons[7].contains("'op' is add, update or delete"))
            #expect(reasons[8].contains("'commentId' names a comment to update or delete"))
            #expect(reasons[9].contains("PrincipalException"))
            #expect(reasons[10].contains("NoSuchMessageException"))
            #expect(reasons[11].contains("NoSuchEntryException"))
            let thread = try await workspace.readBackComments(server: server, classPK: 40001)
            #expect(thread.count == 61)
            #expect(thread.last?["body"] == "<p>the good one</p>")
            #expect(thread.first { $0["commentId"] == .int(80001) }?["body"] == "<p>First!</p>")
        }
    }

    @Test("the connection drops after every 2nd request was carried out: adds and deletes are looked up, nothing is written twice")
    func ambiguousBatches() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        var lines = (1...8).map { #"{"className":"\#(Self.article)","classPK":40001,"body":"<p>Reply \#($0)</p>"}"# }
        lines += [#"{"commentId":80005,"body":"<p>Edited</p>"}"#, #"{"op":"delete","commentId":80009}"#, #"{"op":"delete","commentId":80010}"#]
        let input = try workspace.save("comments.jsonl", lines.joined(separator: "\n") + "\n")
        try await withSandbox(faults: FaultPlan(dropAfterProcessingEvery: 2)) { harness in
            let server = harness.server.baseURL
            let result = try await workspace.write(try workspace.commentPipeline(server: server, batchSize: 3), ["--input", input])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("looking its entries up before sending again"))
            #expect(try result.jsonLines().map { $0["outcome"]?.stringValue } == Array(repeating: "created", count: 8) + ["updated", "deleted", "deleted"])
            let thread = try await workspace.readBackComments(server: server, classPK: 40001)
            #expect(thread.count == 66)
            for number in 1...8 {
                #expect(thread.filter { $0["body"] == .string("<p>Reply \(number)</p>") }.count == 1, "reply \(number) once")
            }
            #expect(thread.first { $0["commentId"] == .int(80005) }?["body"] == "<p>Edited</p>")
            #expect(!thread.contains { [80009, 80010].contains($0["commentId"]?.int64Value ?? 0) })
        }
    }

    // The 3rd data request (batch 3: the 5th add, alone, as the delete after it goes in a
    // request of its own) is carried out and then stalls;
    // the kill comes in that stall, so the journal keeps batch 3 pending. A shell loop in
    // its own process watches the results and kills (as WriteRunTests.killAndRerun does).
    @Test("kill -9 while a carried-out batch's answer is on its way, then a rerun: every add once, the delete done, nothing lost")
    func killAndRerun() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        var lines = (1...5).map { #"{"className":"\#(Self.article)","classPK":40001,"body":"<p>Kept \#($0)</p>"}"# }
        lines += [
            #"{"op":"delete","commentId":80009}"#, #"{"commentId":80010,"body":"<p>Edited</p>"}"#,
            #"{"className":"\#(Self.article)","classPK":40001,"body":"<p>Kept 6</p>"}"#,
        ]
        let rows = try workspace.save("comments.jsonl", lines.joined(separator: "\n") + "\n")
        try await withSandbox(faults: FaultPlan(stallEvery: 3, stallDuration: .seconds(8))) { harness in
            let pipeline = try workspace.commentPipeline(server: harness.server.baseURL, batchSize: 2)
            let killed = try await CommandRunner.shell(
                """
                : > "$DIR/out.jsonl"
                "$SP" write "$PIPELINE" --input "$ROWS" --rejects "$DIR/rejects.jsonl" >> "$DIR/out.jsonl" 2> /dev/null &
                writer=$!
                while [ "$(wc -l < "$DIR/out.jsonl")" -lt 4 ]; do sleep 0.02; done
                sleep 1
                kill -9 $writer
                wait $writer
                echo "status $?"
                """,
                environment: workspace.environment.merging(["PIPELINE": pipeline, "ROWS": rows, "DIR": workspace.directory.path]) { $1 })
            #expect(killed.stdoutText == "status 137\n", "the writer was killed by SIGKILL: \(killed.stdoutText) \(killed.stderr)")
            #expect(harness.server.requestCount == 3, "batches 1 to 3 were sent, and nothing else")

            let rerun = try await workspace.write(pipeline, ["--input", rows])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().map { $0["outcome"]?.stringValue } == ["unchanged", "unchanged", "unchanged", "unchanged", "created", "deleted", "updated", "created"])
            #expect(harness.server.requestCount == 6, "a lookup (get-comments), the delete, then the last batch")
            let thread = try await workspace.readBackComments(server: harness.server.baseURL, classPK: 40001)
            #expect(thread.count == 60 + 6 - 1)
            for number in 1...6 {
                #expect(thread.filter { $0["body"] == .string("<p>Kept \(number)</p>") }.count == 1, "comment \(number) once")
            }
            #expect(!thread.contains { $0["commentId"] == .int(80009) })
            #expect(thread.first { $0["commentId"] == .int(80010) }?["body"] == "<p>Edited</p>")
        }
    }

    /// The parameters Liferay declares for each comment command, the same on every 7.x:
    /// `ScreensCommentServiceImpl.addComment(className, classPK, body)` and
    /// `updateComment(commentId, body)` (liferay-portal `modules/apps/screens/screens-service`),
    /// and the Mobile SDK's `CommentmanagerjsonwsService.deleteComment(commentId)` (v7-v73).
    static let liferaySignatures: [String: Set<String>] = [
        "/screens.screenscomment/add-comment": ["className", "classPK", "body"],
        "/screens.screenscomment/update-comment": ["commentId", "body"],
        "/comment.commentmanagerjsonws/delete-comment": ["commentId"],
    ]

    @Test("the sample pipeline's requests name exactly the parameters Liferay declares, and every version's portal takes them")
    func sample() async throws {
        let root = CommandRunner.packageRoot
        for version in LiferayVersion.allCases {
            let workspace = try WriteWorkspace()
            defer { workspace.remove() }
            try await withConfiguredSandbox({ $0.liferayVersion = version }) { harness in
                var environment = workspace.environment
                environment["LIFERAY_SERVER"] = harness.server.baseURL
                let arguments = [
                    "write", root.appendingPathComponent("pipelines/import-comments.yaml").path,
                    "--input", root.appendingPathComponent("samples/offline/comments.jsonl").path,
                ]
                let dry = try await CommandRunner.run(arguments + ["--dry-run", "--rejects", workspace.path("dry.jsonl")], environment: environment)
                #expect(dry.status == 0, "\(version): \(dry.stderr)")
                #expect(dry.stderr.contains("3 to create, 1 to update, 1 to delete"), "\(version): \(dry.stderr)")
                let commands = try dry.jsonLines().filter { $0["event"] == "custom" && $0["name"] == "request" }
                    .flatMap { $0["payload"]?["body"]?.arrayValue ?? [] }
                #expect(commands.count == 5)
                for command in commands {
                    let (path, params) = try #require(command.objectValue?.first)
                    #expect(Set(params.objectValue?.keys ?? []) == Self.liferaySignatures[path], "\(version): \(path)")
                }
                #expect(harness.server.requestCount == 0, "a dry run sends nothing")
                let written = try await CommandRunner.run(arguments + ["--rejects", workspace.path("rejects.jsonl")], environment: environment)
                #expect(written.status == 0, "\(version): \(written.stderr)")
                #expect(try written.jsonLines().map { $0["outcome"]?.stringValue } == ["created", "created", "created", "updated", "deleted"])
            }
        }
    }
}

extension WriteWorkspace {
    /// A pipeline writing comments to `server` (no group: a comment goes to its asset's site).
    func commentPipeline(server: String, batchSize: Int) throws -> String {
        try save(
            "write-comments.yaml",
            """
            name: write-comments
            sink:
              type: liferay
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              service: comment
              batch-size: \(batchSize)
              retry: { attempts: 4, backoff: 20ms, max-backoff: 200ms }
            """)
    }

    /// The comments of an asset, oldest first, read back through the binary.
    func readBackComments(server: String, className: String = "com.liferay.journal.model.JournalArticle", classPK: Int64) async throws -> [JSONValue] {
        let pipeline = try save(
            "read-comments.yaml",
            """
            name: read-comments
            source:
              type: liferay-jsonws
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              rows: { service: /screens.screenscomment/get-comments, params: { className: \(className), classPK: \(classPK) } }
              count: { service: /screens.screenscomment/get-comments-count, params: { className: \(className), classPK: \(classPK) } }
              pagination: { first-page-size: 20, page-size: 15 }
            cache: { policy: remote-only }
            """)
        let result = try await CommandRunner.run(["run", pipeline], environment: environment)
        guard result.status == 0 else { throw ReadBackFailed(stderr: result.stderr) }
        return try result.jsonLines()
    }
}
