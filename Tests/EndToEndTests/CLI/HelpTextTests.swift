import Foundation
import Testing

/// `--help` at 80 columns: no line is re-wrapped by the parser (so sentences break where
/// they were written), and every example command stays on one line, ready to copy.
@Suite("help text")
struct HelpTextTests {
    @Test(arguments: ["", "run", "validate", "test", "plan", "init", "cache", "sandbox", "schema"])
    func examplesStayWholeAndNothingIsRewrapped(subcommand: String) async throws {
        let arguments = (subcommand.isEmpty ? [] : [subcommand]) + ["--help"]
        let result = try await CommandRunner.run(arguments, environment: ["COLUMNS": "80"])
        #expect(result.status == 0)
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
        var inExamples = false
        for line in lines {
            if line.hasPrefix("Example") { inExamples = true; continue }
            if line.isEmpty { inExamples = false }
            if inExamples { #expect(line.hasPrefix("  screens-pipe "), "an example was split: '\(line)'") }
            if !line.hasPrefix("USAGE:") { #expect(line.count <= 80, "'\(line)' is \(line.count) columns") }
        }
        // Wider, the discussion must read the same: at 80 columns nothing was re-wrapped.
        let wide = try await CommandRunner.run(arguments, environment: ["COLUMNS": "300"])
        #expect(Self.discussion(result.stdoutText) == Self.discussion(wide.stdoutText))
        #expect(!Self.discussion(result.stdoutText).isEmpty)
        if subcommand == "" { #expect(result.stdoutText.contains("130, 143, 129 after SIGINT,")) }
    }

    /// The text between the overview and the usage line.
    static func discussion(_ help: String) -> [Substring] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: ""), let end = lines.firstIndex(where: { $0.hasPrefix("USAGE:") }), start < end else { return [] }
        return Array(lines[start..<end])
    }
}
