import Foundation
import Sandbox
import ScreensBus
import Testing

/// `screens-pipe write` with `service: image, transport: headless`: headless-delivery's
/// multipart document upload (a `document` part and the `file` part, streamed from disk)
/// and its delete through the binary, each read back from the folder's headless list.
@Suite("write: image uploads through headless-delivery")
struct HeadlessDocumentUploadTests {
    static let png = ImageUploadTests.png

    static func pipeline(_ workspace: WriteWorkspace, server: String) throws -> String {
        try workspace.save(
            "upload-headless.yaml",
            """
            name: upload-headless-test
            sink:
              type: liferay
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              service: image
              transport: headless
              group-id: 20143
              folder-id: 20400
              retry: { attempts: 4, backoff: 20ms, max-backoff: 200ms }
            """)
    }

    /// A folder's documents (`document-folders/{id}/documents`, or `sites/20143/documents`
    /// for the root), read back through the binary.
    static func documents(_ server: String, _ workspace: WriteWorkspace, path: String = "document-folders/20400/documents") async throws -> [JSONValue] {
        let pipeline = try workspace.save(
            "read-documents.yaml",
            """
            name: read-documents
            source:
              type: liferay-headless
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              path: /o/headless-delivery/v1.0/\(path)
              pagination: { first-page-size: 50, page-size: 50 }
            cache: { policy: remote-only }
            """)
        let result = try await CommandRunner.run(["run", pipeline], environment: workspace.environment)
        guard result.status == 0 else { throw WriteWorkspace.ReadBackFailed(stderr: result.stderr) }
        return try result.jsonLines()
    }

    @Test("uploads (into a folder and the site's root) and a delete come back from the documents lists; progress only grows; a rerun sends nothing")
    func uploadAndDelete() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try ImageUploadTests.save(workspace, "sunset.png", Self.png)
        try ImageUploadTests.save(workspace, "dawn.png", Self.png + Self.png)
        let input = try workspace.save(
            "images.jsonl",
            [
                #"{"file":"sunset.png","title":"Sunset","description":"Evening","mimeType":"image/png"}"#,
                #"{"file":"dawn.png","mimeType":"image/png","folderId":0}"#,
                #"{"op":"delete","fileEntryId":90001}"#,
            ].joined(separator: "\n") + "\n")
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try Self.pipeline(workspace, server: server)
            let result = try await workspace.write(pipeline, ["--input", input, "--events"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let lines = try result.jsonLines()
            let results = lines.filter { $0["name"] == "result" }.map { $0["payload"] ?? .null }
            #expect(results.map { $0["outcome"]?.stringValue } == ["created", "created", "deleted"])
            let progress = lines.filter { $0["name"] == "progress" && $0["payload"]?["line"] == 1 }.compactMap { $0["payload"]?["sent"]?.int64Value }
            #expect(!progress.isEmpty && progress == progress.sorted(), "progress of line 1 never goes back: \(progress)")
            #expect(lines.contains { $0["name"] == "progress" && $0["payload"]?["line"] == 1 && $0["payload"]?["sent"] == $0["payload"]?["total"] })

            let folder = try await Self.documents(server, workspace)
            #expect(folder.count == 30, "30 stored, 1 added, 1 deleted")
            let sunset = try #require(folder.first { $0["title"] == "Sunset" })
            #expect(sunset["sizeInBytes"] == .int(Int64(Self.png.count)))
            #expect(sunset["encodingFormat"] == "image/png")
            #expect(sunset["description"] == "Evening")
            #expect(sunset["fileName"] == "sunset.png")
            #expect(sunset["id"] == results[0]["fileEntryId"])
            #expect(!folder.contains { $0["id"] == .int(90001) })
            let root = try await Self.documents(server, workspace, path: "sites/20143/documents")
            #expect(root.filter { $0["title"] == "dawn.png" }.map { $0["sizeInBytes"] } == [.int(Int64(2 * Self.png.count))])

            let requests = harness.server.requestCount
            let rerun = try await workspace.write(pipeline, ["--input", input])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().allSatisfy { $0["outcome"] == "unchanged" })
            #expect(harness.server.requestCount == requests, "the journal answers a rerun: nothing is sent")

            let dry = try await workspace.write(
                pipeline, ["--input", try workspace.save("more.jsonl", #"{"file":"sunset.png","title":"Again","mimeType":"image/png"}"# + "\n"), "--dry-run"])
            #expect(dry.status == 0, "stderr: \(dry.stderr)")
            let planned = try #require(try dry.jsonLines().first { $0["event"] == "custom" && $0["name"] == "request" })
            #expect(planned["payload"]?["request"]?.stringValue?.hasPrefix("POST \(server)/o/headless-delivery/v1.0/document-folders/20400/documents") == true)
            #expect(planned["payload"]?["body"]?["document"] == ["title": "Again"])
        }
    }

    @Test("refused uploads and deletes are rejects with the portal's status: too large 413, unknown folder 404, same title 409, wrong type 400")
    func refusedUploads() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try ImageUploadTests.save(workspace, "ok.png", Self.png)
        try ImageUploadTests.save(workspace, "big.png", Self.png + Array(repeating: 1, count: 8192))
        let rows = [
            #"{"file":"big.png","mimeType":"image/png"}"#,
            #"{"file":"ok.png","title":"Elsewhere","mimeType":"image/png","folderId":424242}"#,
            #"{"file":"ok.png","title":"Playa de Málaga 01.jpg","mimeType":"image/png"}"#,
            #"{"file":"ok.png","title":"Wrong type","mimeType":"image/jpeg"}"#,
            #"{"op":"delete","fileEntryId":424242}"#,
            #"{"file":"ok.png","title":"The good one","mimeType":"image/png"}"#,
        ]
        let input = try workspace.save("images.jsonl", rows.joined(separator: "\n") + "\n")
        try await withConfiguredSandbox({ $0.fileMaxSize = 8192 }) { harness in
            let server = harness.server.baseURL
            let result = try await workspace.write(try Self.pipeline(workspace, server: server), ["--input", input])
            #expect(result.status == 1, "rows rejected: \(result.stderr)")
            #expect(try result.jsonLines().filter { $0["outcome"] == "created" }.map { $0["title"] } == ["The good one"])
            let rejects = try workspace.rejects().sorted { ($0["line"]?.int64Value ?? 0) < ($1["line"]?.int64Value ?? 0) }
            #expect(rejects.map { $0["line"]?.int64Value } == Array(1...5))
            let reasons = rejects.map { $0["reason"]?.stringValue ?? "" }
            #expect(reasons[0].contains("HTTP 413") && reasons[0].contains("exceeds the maximum permitted size"), "\(reasons[0])")
            #expect(reasons[1].contains("HTTP 404") && reasons[1].contains("No DLFolder exists"), "\(reasons[1])")
            #expect(reasons[2].contains("HTTP 409") && reasons[2].contains("A document with the title"), "\(reasons[2])")
            #expect(reasons[3].contains("HTTP 400") && reasons[3].contains("FileMimeTypeException"), "\(reasons[3])")
            #expect(reasons[4].contains("HTTP 404") && reasons[4].contains("No DLFileEntry exists"), "\(reasons[4])")
            let folder = try await Self.documents(server, workspace)
            #expect(folder.count == 31)
            #expect(folder.last?["title"] == "The good one")
        }
    }

    @Test("the connection drops after every 2nd request was carried out: each upload is looked up, none is stored twice")
    func lostAnswers() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        var lines: [String] = []
        for number in 1...4 {
            try ImageUploadTests.save(workspace, "img\(number).png", Self.png)
            lines.append(#"{"file":"img\#(number).png","title":"Image \#(number)","mimeType":"image/png"}"#)
        }
        lines.append(#"{"op":"delete","fileEntryId":90002}"#)
        let input = try workspace.save("images.jsonl", lines.joined(separator: "\n") + "\n")
        try await withSandbox(faults: FaultPlan(dropAfterProcessingEvery: 2)) { harness in
            let server = harness.server.baseURL
            let result = try await workspace.write(try Self.pipeline(workspace, server: server), ["--input", input])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("looking it up before uploading again"))
            #expect(try result.jsonLines().map { $0["outcome"]?.stringValue } == Array(repeating: "created", count: 4) + ["deleted"])
            let folder = try await Self.documents(server, workspace)
            for number in 1...4 {
                #expect(folder.filter { $0["title"] == .string("Image \(number)") }.count == 1, "image \(number) once")
            }
            #expect(!folder.contains { $0["id"] == .int(90002) })
        }
    }

    /// As ImageUploadTests.largeUploadFlatMemory, over headless: the 50 MB upload's peak RSS
    /// is compared with a 100-byte one's, and the sandbox parses the body as it arrives (a
    /// body it kept would be refused over its 8 MB request limit).
    @Test("a 50 MB upload over headless streams from disk: peak RSS within 8 MB of a 100-byte upload's, progress strictly increasing, the size stored")
    func largeUploadFlatMemory() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let size = 50 << 20
        let path = workspace.directory.appendingPathComponent("large.png").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(Self.png)))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        let chunk = Data(repeating: 0x5A, count: 1 << 20)
        var written = Self.png.count
        while written < size {
            let part = chunk.prefix(min(chunk.count, size - written))
            try handle.write(contentsOf: part)
            written += part.count
        }
        try handle.close()
        try ImageUploadTests.save(workspace, "small.png", Array(Self.png.prefix(100)))
        let small = try workspace.save("small.jsonl", #"{"file":"small.png","title":"Small","mimeType":"image/png"}"# + "\n")
        let input = try workspace.save("images.jsonl", #"{"file":"large.png","title":"Large","mimeType":"image/png"}"# + "\n")
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try Self.pipeline(workspace, server: server)
            let baseline = try await ImageUploadTests.peakRSS(
                ["write", pipeline, "--input", small, "--rejects", workspace.path("rejects.jsonl")],
                output: workspace.path("small-events.jsonl"), environment: workspace.environment)
            #expect(baseline.status == 0, "stderr: \(baseline.stderr)")
            let output = workspace.path("events.jsonl")
            let measured = try await ImageUploadTests.peakRSS(
                ["write", pipeline, "--input", input, "--events", "--rejects", workspace.path("rejects.jsonl")],
                output: output, environment: workspace.environment)
            #expect(measured.status == 0, "stderr: \(measured.stderr)")
            #expect(baseline.kib > 0 && measured.kib > 0)
            #expect(measured.kib - baseline.kib < 8 * 1024, "peak RSS \(measured.kib) KiB for 50 MB, \(baseline.kib) KiB for 100 bytes")
            let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map { try JSONValue(parsing: Array($0.utf8)) }
            let progress = lines.filter { $0["name"] == "progress" }.compactMap { $0["payload"]?["sent"]?.int64Value }
            let total = lines.first { $0["name"] == "progress" }?["payload"]?["total"]?.int64Value ?? 0
            #expect(total > Int64(size) && total < Int64(size) + 4096, "the body: the file and the parts around it")
            #expect(progress.count >= 10, "\(progress.count) progress events")
            #expect(progress == progress.sorted() && Set(progress).count == progress.count, "strictly increasing")
            #expect(progress.last == total)
            #expect(lines.first { $0["name"] == "result" }?["payload"]?["outcome"] == "created")
            let stored = try await Self.documents(server, workspace)
            #expect(stored.first { $0["title"] == "Large" }?["sizeInBytes"] == .int(Int64(size)))
        }
    }

    @Test("SIGINT while a headless upload waits for its answer: the run stops, and a rerun finds the stored document instead of sending it again")
    func cancelAndRerun() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try ImageUploadTests.save(workspace, "slow.png", Self.png)
        let input = try workspace.save("images.jsonl", #"{"file":"slow.png","title":"Slow","mimeType":"image/png"}"# + "\n")
        try await withSandbox(faults: FaultPlan(latency: .seconds(3))) { harness in
            let pipeline = try Self.pipeline(workspace, server: harness.server.baseURL)
            let interrupted = try await CommandRunner.shell(
                """
                : > "$DIR/out.jsonl"
                "$SP" write "$PIPELINE" --input "$ROWS" --events --rejects "$DIR/rejects.jsonl" >> "$DIR/out.jsonl" 2> "$DIR/err.txt" &
                writer=$!
                # At most 30 s: a writer that never reports progress fails the test, never hangs it.
                tries=0
                until grep -q '"progress"' "$DIR/out.jsonl" || [ $tries -ge 1500 ]; do sleep 0.02; tries=$((tries + 1)); done
                kill -INT $writer
                wait $writer
                echo "status $?"
                """,
                environment: workspace.environment.merging(["PIPELINE": pipeline, "ROWS": input, "DIR": workspace.directory.path]) { $1 })
            #expect(interrupted.stdoutText == "status 130\n", "\(interrupted.stdoutText) \((try? String(contentsOfFile: workspace.path("err.txt"), encoding: .utf8)) ?? "")")
            let out = try String(contentsOfFile: workspace.path("out.jsonl"), encoding: .utf8)
            #expect(!out.contains(#""outcome":"created""#))
            // The sandbox makes its answer when the latency has passed: the document exists.
            try await Task.sleep(for: .seconds(4))
            let rerun = try await workspace.write(pipeline, ["--input", input])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().map { $0["outcome"]?.stringValue } == ["created"])
            let stored = try await Self.documents(harness.server.baseURL, workspace)
            #expect(stored.filter { $0["title"] == "Slow" }.count == 1)
        }
    }

    @Test("the sample pipeline uploads the sample images over headless on the bundled sandbox")
    func sample() async throws {
        let root = CommandRunner.packageRoot
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let result = try await CommandRunner.run(
            ["write", root.appendingPathComponent("pipelines/upload-images-headless.yaml").path, "--rejects", workspace.path("rejects.jsonl")],
            environment: workspace.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.jsonLines().map { $0["outcome"]?.stringValue } == ["created", "created"])
    }
}
