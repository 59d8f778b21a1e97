import Foundation
import Testing

/// `matches` through the real binary on the pattern that made the filter run for ever:
/// `name matches "(a+)+$"` over names of 30 to 5,000 `a`s followed by `!`.
@Suite("hostile rows: catastrophic regular expressions")
struct RegexRunTests {
    @Test func catastrophicPatternOverHostileRows() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        var rows: [String] = []
        for (index, length) in [30, 31, 100, 5000].enumerated() {
            rows.append(#"{"id":\#(index),"name":"\#(String(repeating: "a", count: length))!"}"#)
            rows.append(#"{"id":\#(index + 100),"name":"\#(String(repeating: "a", count: length))"}"#)
        }
        try ("[" + rows.joined(separator: ",") + "]").write(
            to: directory.appendingPathComponent("rows.json"), atomically: true, encoding: .utf8)
        let file = directory.appendingPathComponent("p.yaml").path
        try """
            name: redos
            source: { type: file, path: \(directory.appendingPathComponent("rows.json").path) }
            filter: { where: 'name matches "^(a+)+$"' }
            sink: { fields: [id] }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try await CommandRunner.run(["run", file])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdoutLines == [#"{"id":100}"#, #"{"id":101}"#, #"{"id":102}"#, #"{"id":103}"#])
    }

    @Test func refusedPatternsAreConfigErrorsAtValidate() async throws {
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("p.yaml").path
        try """
            name: backref
            source: { type: file, path: rows.json }
            filter: { where: 'name matches "(a)\\\\1"' }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try await CommandRunner.run(["validate", file])
        #expect(run.status == 2)
        #expect(run.stderr.contains("backreferences are not supported"), "stderr: \(run.stderr)")
    }
}
