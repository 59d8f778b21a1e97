import Foundation
import Sandbox
import ScreensBus
import Testing

/// `screens-pipe write` with `service: image`: Image Gallery's upload (multipart
/// `/dlapp/add-file-entry`, the file streamed from disk) and delete through the binary, each
/// read back from the folder's list as the Image Gallery reads it.
@Suite("write: image uploads over JSON-WS")
struct ImageUploadTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0x2A, count: 4088)

    /// A pipeline uploading into folder 20400 of site 20143 on `server`.
    static func pipeline(_ workspace: WriteWorkspace, server: String) throws -> String {
        try workspace.save("upload.yaml", "name: upload-test\n" + imageSink(server: server))
    }

    /// The `sink:` section that uploads into folder 20400 of site 20143 on `server`, with
    /// `extra` lines of its own (`  write-policy: ...`).
    static func imageSink(server: String, retry: String = "{ attempts: 4, backoff: 20ms, max-backoff: 200ms }", extra: String = "") -> String {
        """
        sink:
          type: liferay
          server: \(server)
          auth: { basic: { username: test@liferay.com, password: test } }
          service: image
          group-id: 20143
          folder-id: 20400
          retry: \(retry)
        \(extra)
        """
    }

    /// The folder's file entries, read back through the binary with a list pipeline of the
    /// same portal (the calls Image Gallery Screenlet's page connector makes).
    static func folder(_ server: String, _ workspace: WriteWorkspace) async throws -> [JSONValue] {
        let pipeline = try workspace.save(
            "read-images.yaml",
            """
            name: read-images
            source:
              type: liferay-jsonws
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              rows: { service: /dlapp/get-file-entries, params: { repositoryId: 20143, folderId: 20400 } }
              count: { service: /dlapp/get-file-entries-count, params: { repositoryId: 20143, folderId: 20400 } }
              pagination: { first-page-size: 50, page-size: 50 }
            cache: { policy: remote-only }
            """)
        let result = try await CommandRunner.run(["run", pipeline], environment: workspace.environment)
        guard result.status == 0 else { throw WriteWorkspace.ReadBackFailed(stderr: result.stderr) }
        return try result.jsonLines()
    }

    static func save(_ workspace: WriteWorkspace, _ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: workspace.directory.appendingPathComponent(name))
    }

    @Test("uploads and a delete come back from the folder's list with their size and type; a rerun sends nothing")
    func uploadAndDelete() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try FileManager.default.createDirectory(at: workspace.directory.appendingPathComponent("photos"), withIntermediateDirectories: true)
        try Self.save(workspace, "photos/sunset.png", Self.png)
        try Self.save(workspace, "dawn.png", Self.png + Self.png)
        let input = try workspace.save(
            "images.jsonl",
            [
                #"{"file":"photos/sunset.png","title":"Sunset","description":"Evening","mimeType":"image/png"}"#,
                #"{"file":"dawn.png","mimeType":"image/png"}"#,
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
            #expect(results[1]["title"] == "dawn.png", "a row without a title takes the file's name")
            let progress = lines.filter { $0["name"] == "progress" }.map { $0["payload"] ?? .null }
            #expect(progress.contains { $0["line"] == 1 && $0["sent"] == $0["total"] }, "each upload reports its last byte")

            let entries = try await Self.folder(server, workspace)
            #expect(entries.count == 31)
            let sunset = try #require(entries.first { $0["title"] == "Sunset" })
            #expect(sunset["size"] == .int(Int64(Self.png.count)))
            #expect(sunset["mimeType"] == "image/png")
            #expect(sunset["description"] == "Evening")
            #expect(sunset["fileName"] == "sunset.png")
            #expect(sunset["fileEntryId"] == results[0]["fileEntryId"])
            #expect(entries.first { $0["title"] == "dawn.png" }?["size"] == .int(Int64(2 * Self.png.count)))
            #expect(!entries.contains { $0["fileEntryId"] == .int(90001) })

            let requests = harness.server.requestCount
            let rerun = try await workspace.write(pipeline, ["--input", input])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().allSatisfy { $0["outcome"] == "unchanged" })
            #expect(harness.server.requestCount == requests, "the journal answers a rerun: nothing is sent")
        }
    }

    /// The files directory `in/` of hostile rows: `ok.png`, a directory `dir`, and
    /// `link.png`, a symbolic link to `secret.png` outside it; answers `in/`.
    static func hostileFiles(_ workspace: WriteWorkspace) throws -> URL {
        let inside = workspace.directory.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inside.appendingPathComponent("dir"), withIntermediateDirectories: true)
        try Data(Self.png).write(to: workspace.directory.appendingPathComponent("secret.png"))
        try Data(Self.png).write(to: inside.appendingPathComponent("ok.png"))
        try FileManager.default.createSymbolicLink(atPath: inside.appendingPathComponent("link.png").path, withDestinationPath: "../secret.png")
        return inside
    }

    @Test("hostile rows and refused uploads are rejected with their reason; nothing is stored for them")
    func rejects() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let inside = try Self.hostileFiles(workspace)
        try Data(Self.png + Array(repeating: 1, count: 8192)).write(to: inside.appendingPathComponent("big.png"))
        #expect(mkfifo(inside.appendingPathComponent("fifo.png").path, 0o600) == 0)
        let huge = String(repeating: "t", count: 300)
        let rows = [
            #"{"file":"../secret.png","mimeType":"image/png"}"#,
            #"{"file":"link.png","mimeType":"image/png"}"#,
            #"{"file":"\#(workspace.directory.path)/secret.png","mimeType":"image/png"}"#,
            #"{"file":"dir","mimeType":"image/png"}"#,
            #"{"file":"fifo.png","mimeType":"image/png"}"#,
            #"{"file":"ok.png","title":"\#(huge)","mimeType":"image/png"}"#,
            #"{"file":"ok.png","title":"a/b","mimeType":"image/png"}"#,
            #"{"file":"ok.png","mimeType":"png"}"#,
            #"{"file":"missing.png","mimeType":"image/png"}"#,
            #"{"file":"big.png","mimeType":"image/png"}"#,
            #"{"file":"ok.png","title":"Wrong type","mimeType":"image/jpeg"}"#,
            #"{"file":"ok.png","title":"Not allowed","mimeType":"application/x-msdownload"}"#,
            #"{"file":"ok.png","title":"Elsewhere","mimeType":"image/png","folderId":424242}"#,
            #"{"file":"ok.png","title":"Playa de Málaga 01.jpg","mimeType":"image/png"}"#,
            #"{"op":"delete","fileEntryId":424242}"#,
            #"{"file":"ok.png","title":"The good one","mimeType":"image/png"}"#,
        ]
        let input = try workspace.save("in/images.jsonl", rows.joined(separator: "\n") + "\n")
        try await withConfiguredSandbox({ $0.fileMaxSize = 8192 }) { harness in
            let server = harness.server.baseURL
            let result = try await workspace.write(try Self.pipeline(workspace, server: server), ["--input", input])
            #expect(result.status == 1, "rows rejected: \(result.stderr)")
            #expect(try result.jsonLines().filter { $0["outcome"] == "created" }.map { $0["title"] } == ["The good one"])
            let rejects = try workspace.rejects().sorted { ($0["line"]?.int64Value ?? 0) < ($1["line"]?.int64Value ?? 0) }
            #expect(rejects.map { $0["line"]?.int64Value } == Array(1...15))
            let reasons = rejects.map { $0["reason"]?.stringValue ?? "" }
            #expect(reasons[0].contains("outside the files directory"), "\(reasons[0])")
            #expect(reasons[1].contains("outside the files directory"), "\(reasons[1])")
            #expect(reasons[2].contains("must be relative"), "\(reasons[2])")
            #expect(reasons[3].contains("is a directory"), "\(reasons[3])")
            #expect(reasons[4].contains("is a FIFO"), "\(reasons[4])")
            #expect(reasons[5].contains("longer than the portal's 255"), "\(reasons[5])")
            #expect(reasons[6].contains("FileNameException"), "\(reasons[6])")
            #expect(reasons[7].contains("'mimeType' must be a MIME type"), "\(reasons[7])")
            #expect(reasons[8].contains("cannot find the file"), "\(reasons[8])")
            #expect(reasons[9].contains("FileSizeException"), "\(reasons[9])")
            #expect(reasons[10].contains("FileMimeTypeException"), "\(reasons[10])")
            #expect(reasons[11].contains("FileMimeTypeException"), "\(reasons[11])")
            #expect(reasons[12].contains("NoSuchFolderException"), "\(reasons[12])")
            #expect(reasons[13].contains("DuplicateFileEntryException"), "\(reasons[13])")
            #expect(reasons[14].contains("NoSuchFileEntryException"), "\(reasons[14])")
            let entries = try await Self.folder(server, workspace)
            #expect(entries.count == 31)
            #expect(entries.last?["title"] == "The good one")
        }
    }

    @Test("the connection drops after every 2nd request was carried out: each upload is looked up, none is stored twice")
    func lostAnswers() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        var lines: [String] = []
        for number in 1...4 {
            try Self.save(workspace, "img\(number).png", Self.png)
            lines.append(#"{"file":"img\#(number).png","title":"Image \#(number)","mimeType":"image/png"}"#)
        }
        let input = try workspace.save("images.jsonl", lines.joined(separator: "\n") + "\n")
        try await withSandbox(faults: FaultPlan(dropAfterProcessingEvery: 2)) { harness in
            let server = harness.server.baseURL
            let result = try await workspace.write(try Self.pipeline(workspace, server: server), ["--input", input])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("looking it up before uploading again"))
            #expect(try result.jsonLines().map { $0["outcome"]?.stringValue } == Array(repeating: "created", count: 4))
            let entries = try await Self.folder(server, workspace)
            for number in 1...4 {
                #expect(entries.filter { $0["title"] == .string("Image \(number)") }.count == 1, "image \(number) once")
            }
        }
    }

    /// Runs the binary under a small Python parent that reports its peak RSS (KiB) from
    /// wait4 (a child's ru_maxrss starts from its parent's peak at fork, so this large test
    /// process must not be the direct parent), its stdout to `output`.
    static func peakRSS(_ arguments: [String], output: String, environment: [String: String]) async throws -> (status: Int32, kib: Int, stderr: String) {
        let measure = """
            import os, sys
            out = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            pid = os.fork()
            if pid == 0:
                os.dup2(out, 1)
                os.execv(sys.argv[2], sys.argv[2:])
            _, status, usage = os.wait4(pid, 0)
            print(usage.ru_maxrss)
            sys.exit(os.waitstatus_to_exitcode(status) & 0xff)
            """
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let result = try await CommandRunner.shell(
            #"exec python3 -c "$MEASURE" "$OUTPUT" "$SP" "# + quoted,
            environment: environment.merging(["MEASURE": measure, "OUTPUT": output]) { $1 })
        return (result.status, Int(result.stdoutLines.last ?? "") ?? -1, result.stderr)
    }

    /// The binary's own peak RSS (a debug build's is over 50 MB before it reads a row) is
    /// no measure of an upload: the 50 MB upload's peak is compared with a 100-byte one's.
    @Test("a 50 MB upload streams from disk: peak RSS within 8 MB of a 100-byte upload's, progress monotonic up to every byte, the size stored")
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
        try Self.save(workspace, "small.png", Array(Self.png.prefix(100)))
        let small = try workspace.save("small.jsonl", #"{"file":"small.png","title":"Small","mimeType":"image/png"}"# + "\n")
        let input = try workspace.save("images.jsonl", #"{"file":"large.png","title":"Large","mimeType":"image/png"}"# + "\n")
        try await withSandbox { harness in
            let server = harness.server.baseURL
            let pipeline = try Self.pipeline(workspace, server: server)
            let baseline = try await Self.peakRSS(
                ["write", pipeline, "--input", small, "--rejects", workspace.path("rejects.jsonl")],
                output: workspace.path("small-events.jsonl"), environment: workspace.environment)
            #expect(baseline.status == 0, "stderr: \(baseline.stderr)")
            let output = workspace.path("events.jsonl")
            let measured = try await Self.peakRSS(
                ["write", pipeline, "--input", input, "--events", "--rejects", workspace.path("rejects.jsonl")],
                output: output, environment: workspace.environment)
            #expect(measured.status == 0, "stderr: \(measured.stderr)")
            #expect(baseline.kib > 0 && measured.kib > 0)
            #expect(measured.kib - baseline.kib < 8 * 1024, "peak RSS \(measured.kib) KiB for 50 MB, \(baseline.kib) KiB for 100 bytes")
            let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map { try JSONValue(parsing: Array($0.utf8)) }
            let progress = lines.filter { $0["name"] == "progress" }.compactMap { $0["payload"]?["sent"]?.int64Value }
            let total = lines.first { $0["name"] == "progress" }?["payload"]?["total"]?.int64Value ?? 0
            #expect(total > Int64(size) && total < Int64(size) + 4096, "the body: the file and the form around it")
            #expect(progress.count >= 10, "\(progress.count) progress events")
            #expect(progress == progress.sorted() && Set(progress).count == progress.count, "strictly increasing")
            #expect(progress.last == total)
            let result = lines.first { $0["name"] == "result" }?["payload"]
            #expect(result?["outcome"] == "created")
            let stored = try await Self.folder(server, workspace)
            #expect(stored.first { $0["title"] == "Large" }?["size"] == .int(Int64(size)))
        }
    }

    @Test("SIGINT while an upload waits for its answer: the run stops, and a rerun finds the stored entry instead of sending it again")
    func cancelAndRerun() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try Self.save(workspace, "slow.png", Self.png)
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
            // The sandbox makes its answer when the latency has passed: the entry exists.
            try await Task.sleep(for: .seconds(4))
            let rerun = try await workspace.write(pipeline, ["--input", input])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().map { $0["outcome"]?.stringValue } == ["created"])
            let stored = try await Self.folder(harness.server.baseURL, workspace)
            #expect(stored.filter { $0["title"] == "Slow" }.count == 1)
        }
    }
}
