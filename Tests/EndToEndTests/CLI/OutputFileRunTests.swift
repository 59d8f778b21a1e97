import Foundation
import TestSupport
import Sandbox
import ScreensBus
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `run -o PATH` through the real binary: the final path changes only when the run
/// completed; signals, failures and cancellations keep complete lines as `PATH.partial`
/// and leave the previous file alone; write failures name the path and the cause; paths
/// that are not regular files are written in place or refused, never replaced.
@Suite("run -o: output files, signals and write failures")
struct OutputFileRunTests {
    /// The sandbox's generated list (its server given as `$SANDBOX_SERVER`) in pages of
    /// `pageSize`, written as a pipeline file named `name`.
    static func generatedPipeline(name: String, pageSize: Int, prefetch: Int) throws -> String {
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("\(name).yaml")
        try """
            name: \(name)
            source:
              type: liferay-jsonws
              server: ${SANDBOX_SERVER}
              auth: { basic: { username: test@liferay.com, password: test } }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 1000000 } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 1000000 } }
              pagination: { first-page-size: \(pageSize), page-size: \(pageSize), prefetch: \(prefetch) }
            """.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    /// The generated list in pages of 10 with 150 ms per page: long enough to interrupt.
    static func slowPipeline() throws -> String {
        try generatedPipeline(name: "slow", pageSize: 10, prefetch: 1)
    }

    struct Interrupted {
        var status: Int32
        var stderr: String
        var directory: URL
        var temporaryNames: [String]
        var temporaryMode: mode_t?
    }

    /// Starts a slow run writing to `<dir>/out.jsonl` (which holds an older file), waits
    /// until a few pages were served, sends `signal`, and waits for the exit.
    static func interrupt(with signalNumber: Int32) async throws -> Interrupted {
        try await withSandbox(faults: FaultPlan(latency: .milliseconds(150)), generatedRows: 2000) { harness in
            try await interrupt(with: signalNumber, harness: harness)
        }
    }

    private static func interrupt(with signalNumber: Int32, harness: SandboxHarness) async throws -> Interrupted {
        let directory = try CommandRunner.temporaryDirectory()
        let output = directory.appendingPathComponent("out.jsonl").path
        try "previous complete output\n".write(toFile: output, atomically: true, encoding: .utf8)

        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: CommandRunner.binary)
        process.arguments = ["run", try slowPipeline(), "--events", "-o", output]
        process.environment = CommandRunner.childEnvironment([
            "SANDBOX_SERVER": harness.server.baseURL, "SCREENS_PIPE_CACHE_DIR": directory.appendingPathComponent("cache").path,
        ])
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus); exited.continuation.finish() }
        try process.run()
        let deadline = ContinuousClock.now + .seconds(30)
        while harness.server.requestCount < 5, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        // The run writes under a temporary name: unpredictable, and readable by the owner only.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") }
        var mode: mode_t?
        if let name = names.first {
            var status = stat()
            if lstat(directory.appendingPathComponent(name).path, &status) == 0 { mode = status.st_mode & 0o777 }
        }
        kill(process.processIdentifier, signalNumber)
        let errorText = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        var status: Int32 = -1
        for await code in exited.stream { status = code }
        return Interrupted(status: status, stderr: errorText, directory: directory, temporaryNames: names, temporaryMode: mode)
    }

    @Test(
        "a signal stops the run: exit 128+n, a finished event with the reason, complete lines kept as .partial, the previous file untouched",
        arguments: [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")])
    func signal(number: Int32, name: String) async throws {
        let run = try await Self.interrupt(with: number)
        #expect(run.status == 128 + number, "stderr: \(run.stderr)")
        let output = run.directory.appendingPathComponent("out.jsonl").path
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "previous complete output\n")
        let partial = try Data(contentsOf: URL(fileURLWithPath: output + ".partial"))
        #expect(partial.last == UInt8(ascii: "\n"))
        let events = try String(decoding: partial, as: UTF8.self).split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        let finished = try #require(events.last)
        #expect(finished["event"] == "finished")
        #expect(finished["reason"] == "interrupted")
        #expect(finished["signal"] == .string(name))
        #expect(finished["succeeded"] == false)
        let rows = events.filter { $0["event"] == "selected" }.compactMap { $0["row"]?.int64Value }
        #expect(rows.count >= 10)
        #expect(rows == Array(0..<Int64(rows.count)))
        #expect(finished["selected"]?.int64Value == Int64(rows.count))
        #expect(run.stderr.contains("screens-pipe: interrupted by \(name) after \(rows.count) rows; kept what was written as \(output).partial"))
        // Nothing else is left behind.
        let left = try FileManager.default.contentsOfDirectory(atPath: run.directory.path).filter { $0 != "cache" }.sorted()
        #expect(left == ["out.jsonl", "out.jsonl.partial"])
    }

    @Test("the temporary file has an unpredictable name and mode 0600 until it is renamed")
    func temporaryFile() async throws {
        let run = try await Self.interrupt(with: SIGTERM)
        let name = try #require(run.temporaryNames.first)
        #expect(run.temporaryNames.count == 1)
        #expect(name.hasPrefix(".out.jsonl.") && name.count >= ".out.jsonl..tmp".count + 16)
        #expect(!name.contains(".\(getpid())."))
        #expect(run.temporaryMode == 0o600)
    }

    @Test("a completed run replaces the previous file; -o - writes to stdout")
    func completedRun() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let output = directory.appendingPathComponent("bookmarks.jsonl").path
        try "old\n".write(toFile: output, atomically: true, encoding: .utf8)
        let written = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml", "-o", output])
        #expect(written.status == 0, "stderr: \(written.stderr)")
        let stdout = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml", "-o", "-"])
        #expect(stdout.status == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == stdout.stdoutText)
        #expect(!stdout.stdoutText.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["bookmarks.jsonl"])
    }

    @Test("an output of many writeback rounds (8 MiB each) is the same bytes as standard output")
    func largeOutputStartsWritebackEarly() async throws {
        try await withSandbox(generatedRows: 40_000) { harness in
            let directory = try CommandRunner.temporaryDirectory()
            let pipeline = try Self.generatedPipeline(name: "large", pageSize: 1000, prefetch: 4)
            let output = directory.appendingPathComponent("large.jsonl").path
            let environment = [
                "SANDBOX_SERVER": harness.server.baseURL, "SCREENS_PIPE_CACHE_DIR": directory.appendingPathComponent("cache").path,
            ]
            let written = try await CommandRunner.run(["run", pipeline, "-o", output], environment: environment)
            #expect(written.status == 0, "stderr: \(written.stderr)")
            let stdout = try await CommandRunner.run(["run", pipeline], environment: environment)
            #expect(stdout.status == 0)
            let file = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(file.count > 16 << 20, "the output spans several writeback rounds: \(file.count) bytes")
            #expect(file == stdout.stdout)
        }
    }

    @Test("a write failure names the path and the system's reason: /dev/full")
    func deviceFull() async throws {
        let result = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml", "-o", "/dev/full"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot write /dev/full: No space left on device"))
    }

    @Test("past a file size limit, only complete lines are kept, and the previous file stays")
    func fileSizeLimit() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let output = directory.appendingPathComponent("out.jsonl").path
        try "previous\n".write(toFile: output, atomically: true, encoding: .utf8)
        // 2 KiB: the bookmarks' event lines (about 3 KiB) cross it in the middle of a line.
        let result = try await CommandRunner.shell("ulimit -f 2; \"$SP\" run pipelines/offline-bookmarks.yaml --events -o '\(output)'")
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("cannot write \(output): File too large"))
        #expect(result.stderr.contains("kept what was written as \(output).partial"))
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "previous\n")
        let partial = try Data(contentsOf: URL(fileURLWithPath: output + ".partial"))
        #expect(!partial.isEmpty && partial.count < 2048)
        #expect(partial.last == UInt8(ascii: "\n"))
        for line in String(decoding: partial, as: UTF8.self).split(separator: "\n") { _ = try JSONValue(parsing: String(line)) }
    }

    @Test("a directory, a symbolic link, a FIFO without a reader: refused with the reason, nothing replaced")
    func refusedPaths() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let target = directory.appendingPathComponent("target.txt").path
        try "target\n".write(toFile: target, atomically: true, encoding: .utf8)
        let link = directory.appendingPathComponent("link.jsonl").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let fifo = directory.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)

        let toDirectory = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml", "-o", directory.path])
        #expect(toDirectory.status == 2)
        #expect(toDirectory.stderr.contains("cannot write output \(directory.path): Is a directory"))

        let toLink = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml", "-o", link])
        #expect(toLink.status == 2)
        #expect(toLink.stderr.contains("\(link) is a symbolic link"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "target\n")

        let toFIFO = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml", "-o", fifo])
        #expect(toFIFO.status == 2)
        #expect(toFIFO.stderr.contains("cannot write output \(fifo): the FIFO has no reader"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["fifo", "link.jsonl", "target.txt"])
    }

    @Test("a FIFO with a reader and /dev/null are written in place, never replaced")
    func writtenInPlace() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let fifo = directory.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let reference = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml"])
        let result = try await CommandRunner.shell("cat '\(fifo)' & sleep 0.3; \"$SP\" run pipelines/offline-bookmarks.yaml -o '\(fifo)'; wait")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutText == reference.stdoutText)
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)

        let toNull = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml", "-o", "/dev/null"])
        #expect(toNull.status == 0, "stderr: \(toNull.stderr)")
        #expect(lstat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
    }
}
