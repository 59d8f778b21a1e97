import Foundation
import Sandbox
import ScreensBus
import Testing

/// Log lines on stderr: timestamped text or JSON, the level from `-v` or
/// `SCREENS_PIPE_LOG_LEVEL`, retry waits in seconds; `--color` for table output.
@Suite("run: logging and colour")
struct LoggingRunTests {

    @Test func verboseLinesStartWithATimestamp() async throws {
        let result = try await CommandRunner.run(["run", "pipelines/bookmarks.yaml", "-v", "--progress", "never", "--policy", "remote-only"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let debug = result.stderr.split(separator: "\n").filter { $0.contains("debug:") }
        #expect(debug.count >= 2)
        let timestamped = #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z screens-pipe: debug: page \d+: /#
        for line in debug { #expect(line.prefixMatch(of: timestamped) != nil, "\(line)") }
    }

    @Test func jsonLogLines() async throws {
        let result = try await CommandRunner.run(
            ["run", "pipelines/bookmarks.yaml", "-v", "--log-format", "json", "--progress", "never", "--policy", "remote-only"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
        var pages = 0
        for line in lines {
            let object = try JSONValue(parsing: String(line)).objectValue
            // Besides the page lines, -v may tell of a wait for another test's load of the
            // same list into the shared cache (info).
            #expect(object?["level"] == "debug" || object?["level"] == "info")
            if object?["level"] == "debug",
                object?["message"].flatMap({ if case .string(let text) = $0 { text.hasPrefix("page ") } else { false } }) == true
            {
                pages += 1
            }
            #expect(object?["time"].flatMap { if case .string(let text) = $0 { text.hasSuffix("Z") } else { false } } == true)
        }
        #expect(pages >= 2)
    }

    @Test func levelFromTheEnvironmentAndRetryWaitsInSeconds() async throws {
        try await withSandbox(faults: FaultPlan(failEvery: 2, failStatus: 503)) { harness in
            let result = try await harness.run(
                "pipelines/bookmarks.yaml",
                ["--policy", "remote-only", "--progress", "never", "--set", "source.pagination.prefetch=1", "--set", "source.retry.backoff=250ms",
                 "--set", "source.retry.max-backoff=250ms"],
                environment: ["SCREENS_PIPE_LOG_LEVEL": "info"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let retries = result.stderr.split(separator: "\n").filter { $0.contains("retrying in") }
            #expect(!retries.isEmpty, "\(result.stderr)")
            for line in retries {
                #expect(line.contains(#/retrying in \d+\.\d\d s after attempt 1 of 4: HTTP 503/#), "\(line)")
                #expect(line.contains(" screens-pipe: info: "))
            }
            #expect(!result.stderr.contains("debug:"))
        }
    }

    @Test func anUnknownLevelIsAUsageError() async throws {
        let result = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml"], environment: ["SCREENS_PIPE_LOG_LEVEL": "loud"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("SCREENS_PIPE_LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical, not 'loud'"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func colorAlwaysAndNever() async throws {
        let always = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml", "--format", "table", "--color", "always"])
        #expect(always.status == 0)
        #expect(always.stdoutText.contains("\u{1B}["))
        let never = try await CommandRunner.run(
            ["run", "pipelines/offline-bookmarks.yaml", "--format", "table", "--color", "never"], environment: ["TERM": "xterm"])
        #expect(never.status == 0)
        #expect(!never.stdoutText.contains("\u{1B}["))
        let invalid = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml", "--color", "sometimes"])
        #expect(invalid.status == 2)
    }
}
