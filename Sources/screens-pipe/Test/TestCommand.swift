import ArgumentParser
import Foundation
import Sandbox
import ScreensPipe

struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run pipeline tests: recorded pages in, expected rows, events or errors out.",
        discussion: """
            A test file (bookmarks.test.yaml) names a pipeline and its cases. Each case
            serves recorded rows or pages (or the bundled sandbox) through the pipeline's
            own cache, convert, filter and sink stages, offline, and checks the rows, the
            row count, the events or the error of the run. The format is in the article
            "Testing pipelines" (TestingPipelines.md).

            Exit status: 0 every case passed; 1 a case failed; 2 a test file (or the
            command line) has a problem.

            Examples:
              screens-pipe test pipelines/tests/*.yaml
              screens-pipe test pipelines/tests/bookmarks.test.yaml --quiet
            """
    )

    @Argument(help: "Test files (YAML).", completion: .file(extensions: ["yaml", "yml"]))
    var files: [String]

    @Flag(name: [.short, .long], help: "Print only failing cases and the totals.")
    var quiet = false

    func run() async throws {
        let runner = PipelineTestRunner(sandbox: BundledSandbox())
        var report = TestReport(quiet: quiet)
        for path in files {
            let file: PipelineTestFile
            do throws(ScreensPipeError) {
                file = try PipelineTestFile.load(path: path)
            } catch {
                report.badFile(path, errors: error.errors)
                continue
            }
            report.startFile(path)
            for testCase in file.cases {
                let started = ContinuousClock.now
                let result = await runner.run(testCase, of: file)
                report.record(result, took: ContinuousClock.now - started)
            }
        }
        report.finish()
        if report.badFiles > 0 { throw ExitCode(2) }
        if report.failed > 0 { throw ExitCode(1) }
    }
}

/// What `test` prints on stdout: each file, each case as `ok` or `FAIL` with its
/// differences indented under it, and the totals.
struct TestReport {
    let quiet: Bool
    private(set) var passed = 0
    private(set) var failed = 0
    private(set) var badFiles = 0
    private var files = 0
    private var pendingFile: String?

    init(quiet: Bool) { self.quiet = quiet }

    mutating func startFile(_ path: String) {
        files += 1
        if quiet { pendingFile = path } else { print(path) }
    }

    mutating func badFile(_ path: String, errors: [ScreensPipeError]) {
        files += 1
        badFiles += 1
        print("\(path): not a valid test file")
        for error in errors { print("  \(error)") }
    }

    mutating func record(_ result: PipelineTestResult, took duration: Duration) {
        if result.passed {
            passed += 1
            if !quiet { print("  ok    \(result.name) (\(DurationText.seconds(duration)))") }
            return
        }
        failed += 1
        if let pendingFile {
            print(pendingFile)
            self.pendingFile = nil
        }
        let place = result.location.map { " (\($0))" } ?? ""
        print("  FAIL  \(result.name)\(place)")
        for line in result.failures { print("        \(line)") }
    }

    func finish() {
        let cases = passed + failed
        var line = "\(cases) case\(cases == 1 ? "" : "s") in \(files) file\(files == 1 ? "" : "s"): \(passed) passed, \(failed) failed"
        if badFiles > 0 { line += ", \(badFiles) file\(badFiles == 1 ? "" : "s") not valid" }
        print(line)
    }
}

/// Durations for people: `0.25 s`, `12 ms`.
enum DurationText {
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        if milliseconds < 1000 { return "\(Int(milliseconds.rounded())) ms" }
        return String(format: "%.2f s", milliseconds / 1000)
    }
}
