import Foundation
import Sandbox
import ScreensBus
import Testing

/// `service: ddl-record` with a document field: the file is uploaded first
/// (`/dlapp/add-file-entry` into the sink's folder, as DDL Form Screenlet's
/// `DDLFormUploadDocumentInteractor` does), then the record holds the document's value,
/// `{"groupId":G,"uuid":"U","version":"V"}`, read back from `get-ddl-records`. Record set
/// 20501 "Contacts" has the document field `photo`.
@Suite("write: DDL records with their documents uploaded first")
struct DDLRecordDocumentTests {
    static let png = ImageUploadTests.png

    static func pipeline(_ workspace: WriteWorkspace, server: String, batchSize: Int = 25) throws -> String {
        try workspace.servicePipeline(
            server: server, service: "ddl-record",
            extra: "  liferay-version: \"7.0\"\n  record-set-id: 20501\n  folder-id: 20400\n  key: [email]\n  batch-size: \(batchSize)")
    }

    /// The record's `photo` value, parsed.
    static func photo(_ records: [JSONValue], email: String) throws -> JSONValue {
        let record = try #require(records.first { $0["modelValues"]?["email"] == .string(email) }, "no record \(email)")
        let text = try #require(record["modelValues"]?["photo"]?.stringValue, "the photo value is JSON text")
        return try JSONValue(parsing: Array(text.utf8))
    }

    static func setUp(_ workspace: WriteWorkspace) throws {
        try FileManager.default.createDirectory(at: workspace.directory.appendingPathComponent("photos"), withIntermediateDirectories: true)
        try ImageUploadTests.save(workspace, "photos/ana.png", Self.png)
        try ImageUploadTests.save(workspace, "bea.png", Self.png + Self.png)
        try ImageUploadTests.save(workspace, "photos/ana2.png", Self.png + [1, 2, 3])
    }

    @Test("records with documents are added and updated; each document is in the folder once and the record names its uuid, group and version; a rerun sends nothing")
    func addAndUpdate() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try Self.setUp(workspace)
        let input = try workspace.save(
            "records.jsonl",
            [
                #"{"name":"Ana Doc","email":"ana.doc@example.com","photo":{"file":"photos/ana.png","mimeType":"image/png","title":"Ana","description":"Badge"}}"#,
                #"{"name":"Bea Doc","email":"bea.doc@example.com","photo":{"file":"bea.png","mimeType":"image/png"}}"#,
            ].joined(separator: "\n") + "\n")
        try await withConfiguredSandbox({ $0.liferayVersion = .v7_0 }) { harness in
            let server = harness.server.baseURL
            let pipeline = try Self.pipeline(workspace, server: server)
            let result = try await workspace.write(pipeline, ["--input", input, "--events"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let lines = try result.jsonLines()
            let results = lines.filter { $0["name"] == "result" }.map { $0["payload"] ?? .null }
            #expect(results.map { $0["outcome"]?.stringValue } == ["created", "created"])
            let documents = lines.filter { $0["name"] == "document" }.map { $0["payload"] ?? .null }
            #expect(documents.map { $0["outcome"]?.stringValue } == ["uploaded", "uploaded"])
            #expect(documents.map { $0["field"]?.stringValue } == ["photo", "photo"])
            let progress = lines.filter { $0["name"] == "progress" }.map { $0["payload"] ?? .null }
            #expect(Set(progress.compactMap { $0["line"]?.int64Value }) == [1, 2], "progress for each document")
            #expect(progress.contains { $0["line"] == 2 && $0["sent"] == $0["total"] })
            let firstRecord = try #require(lines.firstIndex { $0["name"] == "result" })
            #expect(lines.lastIndex { $0["name"] == "document" }! < firstRecord, "the documents before the records that need them")

            let folder = try await ImageUploadTests.folder(server, workspace)
            let ana = try #require(folder.first { $0["title"] == "Ana" })
            let bea = try #require(folder.first { $0["title"] == "bea.png" })
            #expect(folder.filter { $0["title"] == "Ana" }.count == 1)
            #expect(ana["description"] == "Badge")
            #expect(ana["fileEntryId"] == documents[0]["fileEntryId"])
            let records = try await workspace.readBackRecords(server: server)
            let anaPhoto = try Self.photo(records, email: "ana.doc@example.com")
            #expect(anaPhoto["uuid"] == ana["uuid"])
            #expect(anaPhoto["groupId"] == .int(20143))
            #expect(anaPhoto["version"] == "1.0")
            #expect(try Self.photo(records, email: "bea.doc@example.com")["uuid"] == bea["uuid"])

            let requests = harness.server.requestCount
            let rerun = try await workspace.write(pipeline, ["--input", input])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().map { $0["outcome"]?.stringValue } == ["unchanged", "unchanged"])
            #expect(harness.server.requestCount == requests, "the journal answers a rerun: nothing is sent")

            // Update by recordId with another document: uploaded once, the record names it.
            let recordId = try #require(results[0]["recordId"]?.int64Value)
            let update = try workspace.save(
                "update.jsonl",
                #"{"recordId":\#(recordId),"name":"Ana Doc","email":"ana.doc@example.com","photo":{"file":"photos/ana2.png","mimeType":"image/png","title":"Ana 2"}}"#
                    + "\n")
            let updated = try await workspace.write(pipeline, ["--input", update])
            #expect(updated.status == 0, "stderr: \(updated.stderr)")
            #expect(try updated.jsonLines().map { $0["outcome"]?.stringValue } == ["updated"])
            let after = try await ImageUploadTests.folder(server, workspace)
            let ana2 = try #require(after.first { $0["title"] == "Ana 2" })
            #expect(after.filter { $0["title"] == "Ana 2" }.count == 1)
            #expect(after.filter { $0["title"] == "Ana" }.count == 1)
            let renamed = try await workspace.readBackRecords(server: server)
            #expect(renamed.filter { $0["modelValues"]?["email"] == "ana.doc@example.com" }.count == 1, "updated in place")
            #expect(try Self.photo(renamed, email: "ana.doc@example.com")["uuid"] == ana2["uuid"])
        }
    }

    @Test("kill -9 after the upload, before the record: the rerun uploads nothing and writes the record once")
    func killBetweenUploadAndRecord() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try Self.setUp(workspace)
        let row = #"{"name":"Killed Doc","email":"killed.doc@example.com","photo":{"file":"photos/ana.png","mimeType":"image/png","title":"Killed"}}"#
        let input = try workspace.save("records.jsonl", row + "\n")
        try await withConfiguredSandbox({ $0.liferayVersion = .v7_0 }) { harness in
            let server = harness.server.baseURL
            let pipeline = try Self.pipeline(workspace, server: server)
            // The row arrives through a FIFO kept open: the record waits in its batch, and
            // the writer is killed once the document's upload is journaled.
            let killed = try await CommandRunner.shell(
                """
                cd "$DIR"
                mkfifo "$DIR/rows"
                : > "$DIR/out.jsonl"
                "$SP" write "$PIPELINE" --events --rejects "$DIR/rejects.jsonl" < "$DIR/rows" >> "$DIR/out.jsonl" 2> "$DIR/err.txt" &
                writer=$!
                exec 3> "$DIR/rows"
                cat "$ROWS" >&3
                tries=0
                until grep -q '"uploaded"' "$DIR/out.jsonl" || [ $tries -ge 1500 ]; do sleep 0.02; tries=$((tries + 1)); done
                kill -9 $writer
                wait $writer
                echo "status $?"
                exec 3>&-
                """,
                environment: workspace.environment.merging(["PIPELINE": pipeline, "ROWS": input, "DIR": workspace.directory.path]) { $1 })
            #expect(killed.stdoutText == "status 137\n", "\(killed.stdoutText) \((try? String(contentsOfFile: workspace.path("err.txt"), encoding: .utf8)) ?? "")")
            #expect(try await workspace.readBackRecords(server: server).filter { $0["modelValues"]?["email"] == "killed.doc@example.com" }.isEmpty)

            let rerun = try await workspace.write(pipeline, ["--input", input, "--events"])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            let lines = try rerun.jsonLines()
            #expect(lines.filter { $0["name"] == "document" }.map { $0["payload"]?["outcome"]?.stringValue } == ["unchanged"])
            #expect(!lines.contains { $0["name"] == "progress" }, "nothing uploaded again")
            #expect(lines.filter { $0["name"] == "result" }.map { $0["payload"]?["outcome"]?.stringValue } == ["created"])
            let folder = try await ImageUploadTests.folder(server, workspace)
            let entry = try #require(folder.first { $0["title"] == "Killed" })
            #expect(folder.filter { $0["title"] == "Killed" }.count == 1, "one upload")
            let records = try await workspace.readBackRecords(server: server)
            #expect(records.filter { $0["modelValues"]?["email"] == "killed.doc@example.com" }.count == 1, "one record")
            #expect(try Self.photo(records, email: "killed.doc@example.com")["uuid"] == entry["uuid"])
        }
    }

    @Test("the connection drops after every 2nd request was carried out: each upload is looked up, each document and record stored once")
    func lostAnswers() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        var rows: [String] = []
        for number in 1...3 {
            try ImageUploadTests.save(workspace, "p\(number).png", Self.png)
            rows.append(#"{"name":"Lost \#(number)","email":"lost\#(number)@example.com","photo":{"file":"p\#(number).png","mimeType":"image/png"}}"#)
        }
        let input = try workspace.save("records.jsonl", rows.joined(separator: "\n") + "\n")
        try await withConfiguredSandbox({
            $0.liferayVersion = .v7_0
            $0.faults = FaultPlan(dropAfterProcessingEvery: 2)
        }) { harness in
            let server = harness.server.baseURL
            let result = try await workspace.write(try Self.pipeline(workspace, server: server, batchSize: 1), ["--input", input])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try result.jsonLines().map { $0["outcome"]?.stringValue } == ["created", "created", "created"])
            let folder = try await ImageUploadTests.folder(server, workspace)
            let records = try await workspace.readBackRecords(server: server)
            for number in 1...3 {
                let entries = folder.filter { $0["title"] == .string("p\(number).png") }
                #expect(entries.count == 1, "document \(number) once")
                #expect(records.filter { $0["modelValues"]?["email"] == .string("lost\(number)@example.com") }.count == 1, "record \(number) once")
                #expect(try Self.photo(records, email: "lost\(number)@example.com")["uuid"] == entries.first?["uuid"])
            }
        }
    }

    @Test("a refused upload (too large, wrong type) rejects its record, named by field and the portal's reason; the record is not written")
    func refusedUpload() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try ImageUploadTests.save(workspace, "big.png", Self.png + Array(repeating: 1, count: 8192))
        try ImageUploadTests.save(workspace, "ok.png", Self.png)
        let input = try workspace.save(
            "records.jsonl",
            [
                #"{"name":"Big","email":"big@example.com","photo":{"file":"big.png","mimeType":"image/png"}}"#,
                #"{"name":"Wrong","email":"wrong@example.com","photo":{"file":"ok.png","title":"Wrong type","mimeType":"image/jpeg"}}"#,
                #"{"name":"Fine","email":"fine@example.com","photo":{"file":"ok.png","title":"Fine","mimeType":"image/png"}}"#,
            ].joined(separator: "\n") + "\n")
        try await withConfiguredSandbox({
            $0.liferayVersion = .v7_0
            $0.fileMaxSize = 8192
        }) { harness in
            let server = harness.server.baseURL
            let result = try await workspace.write(try Self.pipeline(workspace, server: server), ["--input", input])
            #expect(result.status == 1, "two rows rejected: \(result.stderr)")
            #expect(try result.jsonLines().filter { $0["outcome"] != "rejected" }.map { $0["outcome"]?.stringValue } == ["created"])
            let rejects = try workspace.rejects().sorted { ($0["line"]?.int64Value ?? 0) < ($1["line"]?.int64Value ?? 0) }
            #expect(rejects.map { $0["line"]?.int64Value } == [1, 2])
            let reasons = rejects.map { $0["reason"]?.stringValue ?? "" }
            #expect(reasons[0].hasPrefix("field 'photo' (big.png): the portal refused it") && reasons[0].contains("FileSizeException"), "\(reasons[0])")
            #expect(reasons[1].hasPrefix("field 'photo' (ok.png): the portal refused it") && reasons[1].contains("FileMimeTypeException"), "\(reasons[1])")
            let records = try await workspace.readBackRecords(server: server)
            let refused = records.filter { ["big@example.com", "wrong@example.com"].contains($0["modelValues"]?["email"]?.stringValue ?? "") }
            #expect(refused.isEmpty, "no record whose upload was refused")
            #expect(records.filter { $0["modelValues"]?["email"] == "fine@example.com" }.count == 1)
            let folder = try await ImageUploadTests.folder(server, workspace)
            #expect(!folder.contains { $0["title"] == "big.png" || $0["title"] == "Wrong type" })
        }
    }

    @Test("hostile document objects are rejected without a request: absolute path, .., a symlink out, a directory, a huge title, a non-string file, an unknown key")
    func hostileDocuments() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        _ = try ImageUploadTests.hostileFiles(workspace)
        let huge = String(repeating: "t", count: 300)
        let documents = [
            #"{"file":"\#(workspace.directory.path)/secret.png","mimeType":"image/png"}"#,
            #"{"file":"../secret.png","mimeType":"image/png"}"#,
            #"{"file":"link.png","mimeType":"image/png"}"#,
            #"{"file":"dir","mimeType":"image/png"}"#,
            #"{"file":"ok.png","title":"\#(huge)","mimeType":"image/png"}"#,
            #"{"file":42,"mimeType":"image/png"}"#,
            #"{"file":"ok.png","mimeType":"image/png","folderId":20201}"#,
            #"{"file":"ok.png","mimeType":"png"}"#,
            #"{"path":"ok.png"}"#,
        ]
        let rows = documents.enumerated().map { #"{"name":"H\#($0.offset)","email":"h\#($0.offset)@example.com","photo":\#($0.element)}"# }
        let input = try workspace.save("in/records.jsonl", rows.joined(separator: "\n") + "\n")
        try await withConfiguredSandbox({ $0.liferayVersion = .v7_0 }) { harness in
            let requests = harness.server.requestCount
            let result = try await workspace.write(try Self.pipeline(workspace, server: harness.server.baseURL), ["--input", input])
            #expect(result.status == 1, "every row rejected: \(result.stderr)")
            #expect(harness.server.requestCount == requests, "no request for a hostile document")
            let rejects = try workspace.rejects().sorted { ($0["line"]?.int64Value ?? 0) < ($1["line"]?.int64Value ?? 0) }
            #expect(rejects.map { $0["line"]?.int64Value } == Array(1...9))
            let reasons = rejects.map { $0["reason"]?.stringValue ?? "" }
            #expect(reasons.allSatisfy { $0.hasPrefix("field 'photo'") }, "\(reasons)")
            #expect(reasons[0].contains("absolute path"), "\(reasons[0])")
            #expect(reasons[1].contains("outside the files directory"), "\(reasons[1])")
            #expect(reasons[2].contains("outside the files directory"), "\(reasons[2])")
            #expect(reasons[3].contains("is a directory"), "\(reasons[3])")
            #expect(reasons[4].contains("longer than the portal's 255"), "\(reasons[4])")
            #expect(reasons[5].contains("'file' must be text"), "\(reasons[5])")
            #expect(reasons[6].contains("found 'folderId'"), "\(reasons[6])")
            #expect(reasons[7].contains("MIME type"), "\(reasons[7])")
            #expect(reasons[8].contains("must be text, a number, a boolean or a document to upload"), "\(reasons[8])")
        }
    }

    @Test("a dry run shows the planned upload and the record with a placeholder for the value, sends nothing and makes up no uuid")
    func dryRun() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try Self.setUp(workspace)
        let input = try workspace.save(
            "records.jsonl", #"{"name":"Dry Doc","email":"dry.doc@example.com","photo":{"file":"photos/ana.png","mimeType":"image/png","title":"Dry"}}"# + "\n")
        try await withConfiguredSandbox({ $0.liferayVersion = .v7_0 }) { harness in
            let requests = harness.server.requestCount
            let result = try await workspace.write(try Self.pipeline(workspace, server: harness.server.baseURL), ["--input", input, "--dry-run", "--events"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(harness.server.requestCount == requests, "a dry run sends nothing")
            let plans = try result.jsonLines().filter { $0["name"] == "request" }.map { $0["payload"] ?? .null }
            #expect(plans.count == 2)
            #expect(plans.first?["request"]?.stringValue?.contains("/dlapp/add-file-entry") == true)
            #expect(plans.first?["body"]?["title"] == "Dry")
            let record = plans.last?.jsonString ?? ""
            #expect(record.contains("/ddl.ddlrecord/add-record"))
            #expect(record.contains("the uuid, groupId and version of the upload of photos/ana.png"), "\(record)")
            #expect(!record.contains("00000000-0000-4000"), "no made-up uuid")
        }
    }

    @Test("kept in the outbox while the portal is down: the sync uploads each document's copy once, before its record; the copies go")
    func keptInTheOutbox() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try Self.setUp(workspace)
        let input = try workspace.save(
            "records.jsonl",
            [
                #"{"name":"Ana Kept","email":"ana.kept@example.com","photo":{"file":"photos/ana.png","mimeType":"image/png","title":"Ana kept"}}"#,
                #"{"name":"No Photo","email":"no.photo@example.com"}"#,
            ].joined(separator: "\n") + "\n")
        let spool = workspace.directory.appendingPathComponent("cache/outbox-files")
        func copies() -> Int { FileManager.default.enumerator(atPath: spool.path)?.allObjects.compactMap { $0 as? String }.filter { $0.hasSuffix(".png") }.count ?? 0 }
        try await withConfiguredSandbox({ $0.liferayVersion = .v7_0 }) { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.servicePipeline(
                server: server, service: "ddl-record",
                extra: "  liferay-version: \"7.0\"\n  record-set-id: 20501\n  folder-id: 20400\n  key: [email]\n  write-policy: remote-first")
            harness.server.setAvailable(false)
            let kept = try await workspace.write(pipeline, ["--input", input])
            #expect(kept.status == 0, "\(kept.stderr)")
            #expect(try kept.jsonLines().filter { $0["outcome"] != nil }.compactMap { $0["outcome"]?.stringValue } == ["pending", "pending"])
            #expect(copies() == 1, "the document's file is copied; the record without one has none")
            // The original goes away: the kept copy is what is uploaded.
            let original = workspace.directory.appendingPathComponent("photos/ana.png")
            let aside = workspace.directory.appendingPathComponent("ana-aside.png")
            try FileManager.default.moveItem(at: original, to: aside)

            harness.server.setAvailable(true)
            let synced = try await CommandRunner.run(["outbox", "sync", pipeline], environment: workspace.environment)
            #expect(synced.status == 0, "\(synced.stderr)")
            #expect(try synced.jsonLines().filter { $0["state"] == "completed" }.compactMap { $0["outcome"]?.stringValue } == ["created", "created"])
            let folder = try await ImageUploadTests.folder(server, workspace)
            let ana = try #require(folder.first { $0["title"] == "Ana kept" })
            #expect(folder.filter { $0["title"] == "Ana kept" }.count == 1 && ana["size"] == .int(Int64(Self.png.count)))
            let records = try await workspace.readBackRecords(server: server)
            #expect(try Self.photo(records, email: "ana.kept@example.com")["uuid"] == ana["uuid"])
            #expect(copies() == 0)

            // The same rows again, the original back in place: no upload, no change.
            try FileManager.default.moveItem(at: aside, to: original)
            let before = try await ImageUploadTests.folder(server, workspace).count
            let requests = harness.server.requestCount
            let rerun = try await workspace.write(pipeline, ["--input", input])
            #expect(rerun.status == 0, "\(rerun.stderr)")
            #expect(rerun.stderr.contains("0 created, 0 updated, 2 unchanged"), "\(rerun.stderr)")
            #expect(try rerun.jsonLines().compactMap { $0["outcome"]?.stringValue } == ["unchanged", "unchanged"], "nothing kept: \(rerun.stdoutText)")
            #expect(harness.server.requestCount == requests, "the journal answers for the document and the record")
            #expect(try await ImageUploadTests.folder(server, workspace).count == before)
            #expect(copies() == 0)
        }
    }

    @Test("records without documents kept and synced: the sync needs no upload copies and finds none")
    func keptWithoutDocuments() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let input = try workspace.save("records.jsonl", #"{"name":"Plain Kept","email":"plain.kept@example.com"}"# + "\n")
        try await withConfiguredSandbox({ $0.liferayVersion = .v7_0 }) { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.servicePipeline(
                server: server, service: "ddl-record",
                extra: "  liferay-version: \"7.0\"\n  record-set-id: 20501\n  key: [email]\n  write-policy: cache-only")
            let kept = try await workspace.write(pipeline, ["--input", input])
            #expect(kept.status == 0, "\(kept.stderr)")
            let synced = try await CommandRunner.run(["outbox", "sync", pipeline], environment: workspace.environment)
            #expect(synced.status == 0, "\(synced.stderr)")
            #expect(try synced.jsonLines().filter { $0["state"] == "completed" }.compactMap { $0["outcome"]?.stringValue } == ["created"])
            #expect(try await workspace.readBackRecords(server: server).contains { $0["modelValues"]?["email"] == "plain.kept@example.com" })
        }
    }
}
