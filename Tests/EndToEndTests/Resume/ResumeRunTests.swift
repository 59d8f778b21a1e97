import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `run --resume` through the real binary against the real sandbox: after a fault or a
/// `kill -9`, the resumed output is byte for byte the output of one clean run, and no page
/// delivered before the checkpoint is asked of the server again.
@Suite(.serialized) struct ResumeRunTests {
    /// A REST list of the sandbox's 73 bookmarks, 10 per page (8 pages), one page in flight
    /// at a time, no retries: every injected failure fails the run at a known page.
    static func pipeline(in workspace: IncrementalWorkspace, name: String, pageSize: Int = 10, incremental: Bool = false) throws -> String {
        var text = """
            name: \(name)
            source:
              type: rest
              server: ${LIFERAY_SERVER}
              url: /rest/bookmarks/offset
              records: data.records
              total: meta.total
              paginate: offset
              pagination: { first-page-size: \(pageSize), page-size: \(pageSize), prefetch: 1 }
              retry: { attempts: 1 }
            cache: { path: \(workspace.cachePath) }

            """
        if incremental { text += "incremental: { cursor: modifiedDate, type: date }\n" }
        let file = workspace.path("\(name).yaml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The output of one clean run of `name`'s pipeline, on a sandbox of its own, and the
    /// state it committed (`state show`).
    static func cleanRun(name: String, pageSize: Int = 10, incremental: Bool = false) async throws -> (output: Data, state: JSONValue?) {
        try await withSandbox { sandbox in
            let workspace = try IncrementalWorkspace()
            let file = try pipeline(in: workspace, name: name, pageSize: pageSize, incremental: incremental)
            let output = workspace.path("clean.jsonl")
            let result = try await sandbox.run(file, ["-o", output])
            #expect(result.status == 0, "\(result.stderr)")
            let shown = try await CommandRunner.run(["state", "show", file], environment: ["LIFERAY_SERVER": sandbox.server.baseURL])
            let state = incremental ? try JSONValue(parsing: shown.stdoutText)["state"] : nil
            return (try Data(contentsOf: URL(fileURLWithPath: output)), state)
        }
    }

    @Test func resumingAfterFaultsGivesTheCleanOutputAndAsksNoDeliveredPageAgain() async throws {
        let clean = try await Self.cleanRun(name: "resume-faults").output
        // Every 4th data request fails: the first run dies at page 3, the first resume at page 6.
        try await withSandbox(faults: FaultPlan(failEvery: 4, failStatus: 503)) { sandbox in
            let workspace = try IncrementalWorkspace()
            let file = try Self.pipeline(in: workspace, name: "resume-faults")
            let output = workspace.path("out.jsonl")

            let first = try await sandbox.run(file, ["-o", output])
            #expect(first.status == 1, "\(first.stderr)")
            #expect(first.stderr.contains("page 3"), "\(first.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
            let kept = try Data(contentsOf: URL(fileURLWithPath: output + ".partial"))
            #expect(kept == clean.prefix(kept.count))
            #expect(kept.split(separator: UInt8(ascii: "\n")).count == 30)

            let second = try await sandbox.run(file, ["-o", output, "--resume"])
            #expect(second.status == 1, "\(second.stderr)")
            #expect(second.stderr.contains("page 6"), "\(second.stderr)")

            let third = try await sandbox.run(file, ["-o", output, "--resume"])
            #expect(third.status == 0, "\(third.stderr)")
            #expect(third.stderr.contains("wrote \(output) (73 rows)"), "\(third.stderr)")
            let resumed = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(resumed == clean)
            #expect(!FileManager.default.fileExists(atPath: output + ".partial"))
            // 8 pages, each answered once, plus the two injected failures: no page was fetched twice.
            #expect(sandbox.server.requestCount == 10)

            // The checkpoint went with the completed run: nothing is left to resume.
            let again = try await sandbox.run(file, ["-o", output, "--resume"])
            #expect(again.status == 2)
            #expect(again.stderr.contains("nothing to resume"), "\(again.stderr)")
        }
    }

    @Test func startedSaysFromWhichPageTheRunResumed() async throws {
        try await withSandbox(faults: FaultPlan(failEvery: 4, failStatus: 503)) { sandbox in
            let workspace = try IncrementalWorkspace()
            let file = try Self.pipeline(in: workspace, name: "resume-started")
            let output = workspace.path("out.jsonl")
            #expect(try await sandbox.run(file, ["-o", output]).status == 1)
            let resumed = try await sandbox.run(file, ["-o", output, "--resume", "--verbose"])
            #expect(resumed.status == 1)
            #expect(resumed.stderr.contains("resume-started: loading from rest "), "\(resumed.stderr)")
            #expect(resumed.stderr.contains(", resuming at page 3"), "\(resumed.stderr)")
            let partial = try String(contentsOfFile: output + ".partial", encoding: .utf8)
            #expect(partial.split(separator: "\n").count == 60)
        }
    }

    @Test func killNineAtRandomPointsThenResumeGivesTheCleanOutput() async throws {
        let clean = try await Self.cleanRun(name: "resume-kill", pageSize: 4).output
        var generator = SystemRandomNumberGenerator()
        // 19 pages at 200 ms each: a run takes about four seconds, and is killed anywhere in it.
        try await withSandbox(faults: FaultPlan(latency: .milliseconds(200))) { sandbox in
            let workspace = try IncrementalWorkspace()
            let file = try Self.pipeline(in: workspace, name: "resume-kill", pageSize: 4)
            let output = workspace.path("out.jsonl")
            let environment = ["LIFERAY_SERVER": sandbox.server.baseURL]
            let fresh = ["run", file, "-o", output]
            let resume = fresh + ["--resume"]
            var arguments = fresh
            var resumedRuns = 0
            var completed = false
            var log: [String] = []
            for _ in 0..<8 {
                let earlier = Set(try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path))
                let running = try RunningCommand(arguments, environment: environment)
                if arguments == fresh {
                    // A fresh run is killed after it wrote page 0 (its first checkpoint follows
                    // it), anywhere in the next 0.9 s: a loaded machine may take longer than a
                    // random delay to start a run, and a kill before any checkpoint leaves
                    // nothing to resume.
                    try await Self.waitForWrittenOutput(in: workspace.directory, besides: earlier)
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0...900, using: &generator)))
                } else {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 200...2000, using: &generator)))
                }
                running.send(SIGKILL)
                let (status, stderr) = await running.wait()
                log.append("\(arguments == resume ? "resume" : "fresh") -> \(status): \(stderr.prefix(200))")
                let refused = stderr.contains("nothing to resume")
                if arguments == resume, !refused { resumedRuns += 1 }
                if status == 0, arguments == fresh {
                    // The kill came after the run had ended: the test process was starved (the
                    // suite runs in parallel on two cores) past the run's last page. Nothing was
                    // interrupted, so nothing is tested yet: start again from nothing.
                    try FileManager.default.removeItem(atPath: output)
                    continue
                }
                if status == 0 {
                    completed = true
                    break
                }
                // Killed before its first checkpoint: there is nothing to resume yet.
                arguments = refused ? fresh : resume
            }
            if !completed {
                var finish = try await CommandRunner.run(resume, environment: environment)
                if finish.status == 2, finish.stderr.contains("nothing to resume") {
                    finish = try await CommandRunner.run(fresh, environment: environment)
                } else {
                    resumedRuns += 1
                }
                #expect(finish.status == 0, "\(log) then \(finish.stderr)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == clean, "\(log)")
            #expect(!FileManager.default.fileExists(atPath: output + ".partial"))
            // Resumed runs went on from checkpoints (the first one follows page 0).
            #expect(resumedRuns >= 1, "\(log)")
        }
    }

    /// Waits (up to 30 s) until a run's temporary output in `directory`, one not among
    /// `earlier` (a killed run leaves its own behind), holds bytes.
    private static func waitForWrittenOutput(in directory: URL, besides earlier: Set<String>) async throws {
        for _ in 0..<1500 {
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            for name in names where name.hasPrefix(".out.jsonl.") && name.hasSuffix(".tmp") && !earlier.contains(name) {
                let size = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.size] as? Int
                if (size ?? 0) > 0 { return }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func aResumedIncrementalRunCommitsTheCursorOfTheWholeList() async throws {
        let (clean, cleanState) = try await Self.cleanRun(name: "resume-inc", incremental: true)
        try await withSandbox(faults: FaultPlan(failEvery: 4, failStatus: 503)) { sandbox in
            let workspace = try IncrementalWorkspace()
            let file = try Self.pipeline(in: workspace, name: "resume-inc", incremental: true)
            let output = workspace.path("out.jsonl")
            #expect(try await sandbox.run(file, ["-o", output]).status == 1)
            // Nothing is committed by a failed run.
            let environment = ["LIFERAY_SERVER": sandbox.server.baseURL]
            #expect(try JSONValue(parsing: try await CommandRunner.run(["state", "show", file], environment: environment).stdoutText)["state"] == .null)
            #expect(try await sandbox.run(file, ["-o", output, "--resume"]).status == 1)
            let done = try await sandbox.run(file, ["-o", output, "--resume"])
            #expect(done.status == 0, "\(done.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == clean)
            // The cursor (and its boundary) is the clean run's: pages before the resume count too.
            let state = try JSONValue(parsing: try await CommandRunner.run(["state", "show", file], environment: environment).stdoutText)["state"]
            #expect(cleanState?["cursor"]?.stringValue != nil)
            #expect(state == cleanState)
        }
    }

    @Test func refusalsAreClearAndExitTwo() async throws {
        try await withSandbox(faults: FaultPlan(failEvery: 4, failStatus: 503)) { sandbox in
            let workspace = try IncrementalWorkspace()
            let file = try Self.pipeline(in: workspace, name: "resume-refusals")
            let output = workspace.path("out.jsonl")

            let nothing = try await sandbox.run(file, ["-o", output, "--resume"])
            #expect(nothing.status == 2)
            #expect(nothing.stderr.contains("cannot resume pipeline resume-refusals: there is nothing to resume"), "\(nothing.stderr)")

            let toStdout = try await sandbox.run(file, ["--resume"])
            #expect(toStdout.status == 2)
            #expect(toStdout.stderr.contains("its output is not a file"), "\(toStdout.stderr)")
            #expect(toStdout.stdout.isEmpty)

            let both = try await sandbox.run(file, ["-o", output, "--resume", "--full-refresh"])
            #expect(both.status == 2)
            #expect(both.stderr.contains("--full-refresh starts over"), "\(both.stderr)")

            let csv = try await sandbox.run(file, ["-o", output, "--resume", "--format", "csv"])
            #expect(csv.status == 2)
            #expect(csv.stderr.contains("only JSON lines of rows"), "\(csv.stderr)")

            #expect(try await sandbox.run(file, ["-o", output]).status == 1)
            let partial = output + ".partial"
            let kept = try Data(contentsOf: URL(fileURLWithPath: partial))

            let changed = try await sandbox.run(file, ["-o", output, "--resume", "--limit", "50"])
            #expect(changed.status == 2)
            #expect(changed.stderr.contains("changed since the interrupted run"), "\(changed.stderr)")

            // Rows of another shape appended to the kept ones would be a file no run writes.
            let reshaped = try await sandbox.run(file, ["-o", output, "--resume", "--fields", "entryId,name"])
            #expect(reshaped.status == 2)
            #expect(reshaped.stderr.contains("changed since the interrupted run"), "\(reshaped.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: partial)) == kept)

            let elsewhere = try await sandbox.run(file, ["-o", workspace.path("other.jsonl"), "--resume"])
            #expect(elsewhere.status == 2)
            #expect(elsewhere.stderr.contains("not \(workspace.path("other.jsonl"))"), "\(elsewhere.stderr)")

            // A .partial shorter than the checkpoint (cut by hand) is refused, and left alone.
            let cutting = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
            try cutting.truncate(atOffset: UInt64(kept.count - 10))
            try cutting.close()
            let shorter = try await sandbox.run(file, ["-o", output, "--resume"])
            #expect(shorter.status == 2)
            #expect(shorter.stderr.contains("fewer than the \(kept.count) the checkpoint counted"), "\(shorter.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: partial)).count == kept.count - 10)

            try FileManager.default.removeItem(atPath: partial)
            let missing = try await sandbox.run(file, ["-o", output, "--resume"])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("the kept output \(partial) of the interrupted run is missing"), "\(missing.stderr)")
            // Every refusal came before any request of its own.
            #expect(sandbox.server.requestCount == 4)
        }
    }

    @Test func aCheckpointLongerThanWhatFollowsItIsCutBack() async throws {
        let clean = try await Self.cleanRun(name: "resume-cut").output
        try await withSandbox(faults: FaultPlan(failEvery: 4, failStatus: 503)) { sandbox in
            let workspace = try IncrementalWorkspace()
            let file = try Self.pipeline(in: workspace, name: "resume-cut")
            let output = workspace.path("out.jsonl")
            #expect(try await sandbox.run(file, ["-o", output]).status == 1)
            // What a crash after the checkpoint leaves: bytes past it, even half a line.
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output + ".partial"))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(#"{"entryId":1,"name":"half"#.utf8))
            try handle.close()
            #expect(try await sandbox.run(file, ["-o", output, "--resume"]).status == 1)
            #expect(try await sandbox.run(file, ["-o", output, "--resume"]).status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == clean)
        }
    }
}
