import Foundation
import Testing

/// `screens-pipe init` writes a starter pipeline per source type that validates as written
/// and runs against the bundled sandbox; `run -` and `validate -` read a pipeline from
/// standard input; a file that is not a pipeline (`/dev/zero`) is refused, not read forever.
@Suite("init, pipelines on stdin, oversized pipeline files")
struct InitCommandTests {
    @Test("each starter pipeline validates, and the network ones run against the sandbox",
          arguments: ["liferay-jsonws", "liferay-headless", "rest", "file"])
    func starterPipelines(type: String) async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("\(type).yaml").path
        let written = try await CommandRunner.run(["init", "--type", type, file])
        #expect(written.status == 0, "stderr: \(written.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("type: \(type)"))
        let validated = try await CommandRunner.run(["validate", file])
        #expect(validated.status == 0, "stderr: \(validated.stderr)")
        guard type != "file" else { return }
        let run = try await CommandRunner.run(["run", file, "--limit", "3"], directory: directory)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdoutLines.count == 3)
    }

    @Test func anExistingFileIsKeptUnlessForced() async throws {
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("p.yaml").path
        try "keep me".write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try await CommandRunner.run(["init", file])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("exists; not replaced"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me")
        let forced = try await CommandRunner.run(["init", "--force", file])
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("name: p"))
    }

    @Test func toStandardOutputAndBackThroughStandardInput() async throws {
        let result = try await CommandRunner.shell(#""$SP" init --type rest - | "$SP" run - --limit 2"#)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutLines.count == 2)
        let invalid = try await CommandRunner.shell(#"echo 'source: { type: nope }' | "$SP" validate -"#)
        #expect(invalid.status == 2)
        #expect(invalid.stderr.contains("<stdin>:1:17:"), "stderr: \(invalid.stderr)")
    }

    @Test func aPipelineFileThatNeverEndsIsRefused() async throws {
        let result = try await CommandRunner.run(["validate", "/dev/zero"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("larger than 16 MiB"), "stderr: \(result.stderr)")
    }
}
