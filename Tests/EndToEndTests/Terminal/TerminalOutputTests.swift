import Foundation
import Sandbox
import ScreensBus
import Testing

/// The human face of `run`: the progress line, `--quiet`, `-v` request logging and table
/// output. Whatever stderr shows, stdout carries only data.
@Suite("Terminal output")
struct TerminalOutputTests {
    @Test("--progress always draws on stderr and never touches stdout")
    func progressNeverTouchesStdout() async throws {
        let result = try await CommandRunner.run(["run", "pipelines/bookmarks.yaml", "--progress", "always"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.jsonLines()
        #expect(lines.count == 73)
        #expect(lines.allSatisfy { $0.objectValue?["entryId"] != nil })
        #expect(!result.stdoutText.contains("\u{1B}"))
        #expect(result.stderr.contains("\r\u{1B}[2Kbookmarks: 2 pages, 73 of 73 rows, "))
        #expect(result.stderr.contains(" rows/s"))
    }

    @Test("the progress line counts retries")
    func progressCountsRetries() async throws {
        try await withSandbox(faults: FaultPlan(failEvery: 2, failStatus: 503)) { harness in
            let result = try await harness.run(
                "pipelines/bookmarks.yaml", ["--progress", "always", "--policy", "remote-only", "--set", "source.retry.backoff=10ms"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try result.jsonLines().count == 73)
            #expect(result.stderr.contains(", 1 retry"))
        }
    }

    @Test("--progress never and auto (stderr not a terminal) draw nothing; --quiet wins over always")
    func noProgressWhenNotWanted() async throws {
        for arguments in [["--progress", "never"], [], ["--progress", "always", "--quiet"]] {
            let result = try await CommandRunner.run(["run", "pipelines/bookmarks.yaml"] + arguments)
            #expect(result.status == 0)
            #expect(result.stderr.isEmpty, "\(arguments): \(result.stderr)")
            #expect(result.stdoutLines.count == 73)
        }
    }

    @Test("-v logs every request through swift-log on stderr, with credentials redacted")
    func verboseLogsRequestsWithoutSecrets() async throws {
        let result = try await CommandRunner.run(
            ["run", "pipelines/bookmarks.yaml", "-v", "--policy", "remote-only"],
            environment: ["LIFERAY_USER": "embed-user@liferay.com", "LIFERAY_PASSWORD": "n0t-f0r-l0gs"])
        // The sandbox does not know this account: the run fails, but the request is logged.
        #expect(result.status == 1)
        let requests = result.stderr.split(separator: "\n").filter { $0.contains("debug: page 0: POST http://127.0.0.1:") }
        #expect(requests.count == 1, "\(result.stderr)")
        #expect(requests.first?.contains("/api/jsonws/invoke -> 401") == true)
        let basic = Data("embed-user@liferay.com:n0t-f0r-l0gs".utf8).base64EncodedString()
        for secret in ["n0t-f0r-l0gs", basic, "Authorization", "Basic "] {
            #expect(!result.stderr.contains(secret), "stderr shows \(secret)")
        }
        #expect(result.stdout.isEmpty)
    }

    @Test("-v shows each page request and page, and stdout stays JSON lines")
    func verboseSuccessfulRun() async throws {
        let result = try await CommandRunner.run(["run", "pipelines/bookmarks.yaml", "-v", "--policy", "remote-only"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.jsonLines().count == 73)
        let stderr = result.stderr
        #expect(stderr.contains("debug: page 0: POST http://127.0.0.1:"))
        #expect(stderr.contains("debug: page 1: POST http://127.0.0.1:"))
        #expect(stderr.contains("bookmarks: page 1 rows 50..<75: 23 rows (remote)"))
        #expect(stderr.contains("bookmarks: 2 pages, 73 rows, 73 selected, 0 errors"))
    }
}
