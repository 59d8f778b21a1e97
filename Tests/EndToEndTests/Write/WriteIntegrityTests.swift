import Foundation
import Sandbox
import ScreensBus
import Testing

/// `screens-pipe write` where rows could be lost or land twice: a source list that fails
/// half-way, inputs that cannot be read, an update the portal refuses, and keys whose
/// values differ only in where a separator character sits.
@Suite("write: failed sources and inputs, refused updates, keys that look alike")
struct WriteIntegrityTests {
    // MARK: - A source that fails

    @Test("copying a file source with a bad line 81: exit 1 naming the page, no row after it written, a rerun completes")
    func copyStopsAtABadSourceRow() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        var lines = (1...120).map { #"{"name":"row \#($0)","url":"https://example.com/row/\#($0)","description":"line \#($0)"}"# }
        let good = lines
        lines[80] = #"{"name":"row 81","url":"#
        let file = try workspace.save("source.jsonl", lines.joined(separator: "\n") + "\n")
        let source = "source:\n  type: file\n  path: \(file)\n  pagination: { page-size: 40 }"
        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL, batchSize: 25, source: source)
            let result = try await workspace.write(pipeline, [])
            #expect(result.status == 1, "stderr: \(result.stderr)")
            // The file is read in pages of its own size: the page holding line 81 is named.
            #expect(result.stderr.contains(/error: page \d+: the source list failed after \d+ rows, so the write stopped there/), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("invalid JSON"), "stderr: \(result.stderr)")
            let written = try await workspace.readBack(server: harness.server.baseURL)
            #expect(written.count <= 80)
            #expect(written.map { $0["name"]?.stringValue } == (0..<written.count).map { "row \($0 + 1)" })
            #expect(try result.jsonLines().filter { $0["outcome"] == "created" }.count == written.count)

            // Fixed, the rerun writes the rest: every row once, in order.
            _ = try workspace.save("source.jsonl", good.joined(separator: "\n") + "\n")
            let rerun = try await workspace.write(pipeline, [])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            let entries = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entries.map { $0["name"]?.stringValue } == (1...120).map { "row \($0)" })
        }
    }

    @Test("copying a REST list whose page 2 fails: exit 1 naming the page and the status, the 20 rows before it written")
    func copyStopsAtAFailedSourcePage() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withConfiguredSandbox({ $0.faults.failMatching = "offset=20" }) { harness in
            let source = """
                source:
                  type: rest
                  server: \(harness.server.baseURL)
                  url: /rest/bookmarks/offset
                  records: data.records
                  total: meta.total
                  paginate: offset
                  pagination: { first-page-size: 10, page-size: 10 }
                  retry: { attempts: 1 }
                cache: { policy: remote-only }
                """
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL, batchSize: 10, source: source)
            let result = try await workspace.write(pipeline, [])
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("page 2"), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("503"), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("the source list failed after 20 rows"), "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("0 rejected in"), "no success summary: \(result.stderr)")
            #expect(try await workspace.readBack(server: harness.server.baseURL).count == 20)
        }
    }

    // MARK: - Inputs that cannot be read

    @Test("--input naming a directory: exit 1 saying so, nothing sent")
    func inputDirectoryIsAnError() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL)
            let result = try await workspace.write(pipeline, ["--input", workspace.directory.path])
            #expect(result.status == 1)
            #expect(result.stderr.contains("cannot read the input \(workspace.directory.path): it is a directory"), "stderr: \(result.stderr)")
            #expect(harness.server.requestCount == 0)
        }
    }

    @Test("an input whose read fails (EIO from /proc/self/mem): exit 1 naming the error, not an empty input")
    func inputReadErrorIsAnError() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL)
            let result = try await workspace.write(pipeline, ["--input", "/proc/self/mem"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("cannot read the input /proc/self/mem after line 0: Input/output error"), "stderr: \(result.stderr)")
            #expect(harness.server.requestCount == 0)
        }
    }

    @Test("the pipeline and the rows both on standard input: exit 2 saying so")
    func pipelineAndRowsOnStandardInput() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL)
            for arguments in [#"write - --input -"#, #"write -"#] {
                let result = try await CommandRunner.shell(
                    #"cat "$PIPELINE" | "$SP" \#(arguments) --rejects "$DIR/rejects.jsonl""#,
                    environment: workspace.environment.merging(["PIPELINE": pipeline, "DIR": workspace.directory.path]) { $1 })
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("the pipeline file is read from standard input, so the rows cannot be"), "\(arguments): \(result.stderr)")
            }
            #expect(harness.server.requestCount == 0)
        }
    }

    // MARK: - The journal

    @Test("an update the portal refuses keeps the entry: the next run updates it, never creates a second one")
    func refusedUpdateKeepsTheEntry() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL, folderId: nil, extra: "  key: [url]")
            let url = "https://example.com/kept"
            let first = try await workspace.write(pipeline, ["--input", try workspace.save("1.jsonl", #"{"name":"first","url":"\#(url)","folderId":0}"#)])
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let entryId = try #require(try first.jsonLines().first?["entryId"]?.int64Value)

            let moved = try await workspace.write(pipeline, ["--input", try workspace.save("2.jsonl", #"{"name":"moved","url":"\#(url)","folderId":987654}"#)])
            #expect(moved.status == 1)
            #expect(try moved.jsonLines().first?["reason"]?.stringValue?.contains("NoSuchFolderException") == true)

            let renamed = try await workspace.write(pipeline, ["--input", try workspace.save("3.jsonl", #"{"name":"renamed","url":"\#(url)","folderId":0}"#)])
            #expect(renamed.status == 0, "stderr: \(renamed.stderr)")
            let outcome = try #require(try renamed.jsonLines().first)
            #expect(outcome["outcome"] == "updated")
            #expect(outcome["entryId"]?.int64Value == entryId)
            let entries = try await workspace.readBack(server: harness.server.baseURL, folderId: 0)
            #expect(entries.urlCounts[url] == 1)
            #expect(entries.first { $0["url"]?.stringValue == url }?["name"] == "renamed")
        }
    }

    @Test("keys that differ only in where U+001F sits are two entries, not one")
    func separatorInKeyValues() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL, extra: "  key: [name, url]")
            // name + U+001F + url is the same text for both rows.
            let input = try workspace.save(
                "keys.jsonl",
                [
                    #"{"name":"p","url":"https://example.com/1\u001fhttps://example.com/2"}"#,
                    #"{"name":"p\u001fhttps://example.com/1","url":"https://example.com/2"}"#,
                ].joined(separator: "\n") + "\n")
            let result = try await workspace.write(pipeline, ["--input", input])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try result.jsonLines().map { $0["outcome"]?.stringValue } == ["created", "created"])
            #expect(try await workspace.readBack(server: harness.server.baseURL).count == 2)
        }
    }

    @Test("values that differ only in where U+001F sits are a change: updated, not judged unchanged")
    func separatorInContentValues() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL, extra: "  key: [url]")
            let url = "https://example.com/c"
            let first = try await workspace.write(
                pipeline, ["--input", try workspace.save("1.jsonl", #"{"name":"x\u001f\#(url)","url":"\#(url)","description":"y"}"#)])
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let second = try await workspace.write(
                pipeline, ["--input", try workspace.save("2.jsonl", #"{"name":"x","url":"\#(url)","description":"\#(url)\u001fy"}"#)])
            #expect(second.status == 0, "stderr: \(second.stderr)")
            #expect(try second.jsonLines().first?["outcome"] == "updated")
            let entries = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entries.map { $0["name"]?.stringValue } == ["x"])
            #expect(entries.map { $0["description"]?.stringValue } == ["\(url)\u{1F}y"])
        }
    }

    @Test("a journal the previous version wrote (keys joined with U+001F) still answers: nothing sent twice, a change updated")
    func legacyJournalKeepsWorking() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL)
            let rows = try workspace.rows(3)
            let first = try await workspace.write(pipeline, ["--input", rows])
            #expect(first.status == 0, "stderr: \(first.stderr)")
            // The journal as the previous version wrote it: table write_journal, key and
            // content the values joined with U+001F.
            let convert = try await CommandRunner.shell(
                #"python3 -c "$SCRIPT" "$DB""#,
                environment: [
                    "DB": workspace.directory.appendingPathComponent("cache/cache.sqlite").path,
                    "SCRIPT": """
                        import sqlite3, sys, json
                        c = sqlite3.connect(sys.argv[1])
                        c.execute('''CREATE TABLE write_journal (
                            pipeline TEXT NOT NULL, target TEXT NOT NULL, row_key TEXT NOT NULL,
                            line INTEGER NOT NULL, state TEXT NOT NULL, content TEXT NOT NULL,
                            entry_id INTEGER, recorded_at REAL NOT NULL,
                            PRIMARY KEY (pipeline, target, row_key))''')
                        rows = c.execute('SELECT pipeline, target, row_key, line, state, content, entry_id, recorded_at FROM write_journal_rows').fetchall()
                        for p, t, k, l, s, content, e, r in rows:
                            c.execute('INSERT INTO write_journal VALUES (?,?,?,?,?,?,?,?)',
                                      (p, t, '\\x1f'.join(json.loads(k)), l, s, '\\x1f'.join(json.loads(content)), e, r))
                        c.execute('DROP TABLE write_journal_rows')
                        # That version made the table when a write opened the journal: no migration.
                        c.execute("DELETE FROM grdb_migrations WHERE identifier = 'write journal'")
                        c.commit()
                        print(len(rows))
                        """,
                ])
            #expect(convert.status == 0, "stderr: \(convert.stderr)")
            #expect(convert.stdoutText == "3\n")
            let requests = harness.server.requestCount

            let rerun = try await workspace.write(pipeline, ["--input", rows])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().map { $0["outcome"]?.stringValue } == ["unchanged", "unchanged", "unchanged"])
            #expect(harness.server.requestCount == requests, "nothing sent")

            let changed = try workspace.save(
                "changed.jsonl", #"{"name":"renamed","url":"https://example.com/row/2","description":"line 2 of 3"}"# + "\n")
            let update = try await workspace.write(pipeline, ["--input", changed])
            #expect(update.status == 0, "stderr: \(update.stderr)")
            #expect(try update.jsonLines().map { $0["outcome"]?.stringValue } == ["updated"])
            let entries = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entries.map { $0["name"]?.stringValue } == ["row 1", "renamed", "row 3"])
        }
    }

    // MARK: - A service without a lookup

    @Test("service: custom after a refused connection: nothing pending, the next run writes every row once")
    func customAfterARefusedConnection() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        // A port nothing listens on, then a portal on that same port (the journal's target).
        let port = try await withSandbox { $0.server.port }
        let pipeline = try workspace.servicePipeline(
            server: "http://127.0.0.1:\(port)", service: "custom",
            extra: """
              command: /bookmarks.bookmarksentry/add-entry
              fields: { groupId: 20143, folderId: 20201, name: row.name, url: row.url, description: row.description }
            """)
        let rows = try workspace.rows(3)
        let refused = try await workspace.write(pipeline, ["--input", rows])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("could not be sent"), "stderr: \(refused.stderr)")
        #expect(refused.stderr.contains("nothing of it was written"), "stderr: \(refused.stderr)")
        try await withConfiguredSandbox({ $0.port = port }) { harness in
            let rerun = try await workspace.write(pipeline, ["--input", rows])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().map { $0["outcome"]?.stringValue } == ["created", "created", "created"])
            #expect(try await workspace.readBack(server: harness.server.baseURL).map { $0["name"]?.stringValue } == ["row 1", "row 2", "row 3"])
        }
    }

    @Test("service: custom rows left pending by a lost answer: --forget-pending sends them again, once")
    func forgetPendingClearsAWedgedWrite() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let port = try await withSandbox { $0.server.port }
        let pipeline = try workspace.servicePipeline(
            server: "http://127.0.0.1:\(port)", service: "custom",
            extra: """
              command: /bookmarks.bookmarksentry/add-entry
              fields: { groupId: 20143, folderId: 20201, name: row.name, url: row.url, description: row.description }
            """)
        let rows = try workspace.rows(3)
        // A portal that never answers (every connection reset): the rows stay pending.
        try await withConfiguredSandbox({ $0.port = port; $0.faults.down = true }) { _ in
            let lost = try await workspace.write(pipeline, ["--input", rows])
            #expect(lost.status == 1)
            #expect(lost.stderr.contains("pending"), "stderr: \(lost.stderr)")
        }
        try await withConfiguredSandbox({ $0.port = port }) { harness in
            let wedged = try await workspace.write(pipeline, ["--input", rows])
            #expect(wedged.status == 1)
            #expect(wedged.stderr.contains("--forget-pending"), "stderr: \(wedged.stderr)")
            #expect(harness.server.requestCount == 0, "nothing sent blindly")

            let cleared = try await workspace.write(pipeline, ["--input", rows, "--forget-pending"])
            #expect(cleared.status == 0, "stderr: \(cleared.stderr)")
            #expect(cleared.stderr.contains("forgot 3 pending rows"), "stderr: \(cleared.stderr)")
            #expect(try cleared.jsonLines().map { $0["outcome"]?.stringValue } == ["created", "created", "created"])
            #expect(try await workspace.readBack(server: harness.server.baseURL).count == 3)
        }
    }
}
