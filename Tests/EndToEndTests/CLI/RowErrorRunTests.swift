import Foundation
import ScreensBus
import Testing

/// A list with thousands of rows that do not convert: stderr gets a few lines and one count
/// by kind, the summary and `finished` count every error, and `on-invalid: skip` counts the
/// rows it leaves out, in `finished`, on stderr and in the exit status.
@Suite("run: per-row errors are bounded on stderr and counted exactly")
struct RowErrorRunTests {
    /// 3,000 rows: every third has a valid integer id.
    private func pipeline(onInvalid: String) throws -> String {
        let directory = try CommandRunner.temporaryDirectory()
        let rows = (0..<3000).map { index in
            index % 3 == 0 ? #"{"id":\#(index),"name":"ok \#(index)"}"# : #"{"id":"bad \#(index)","name":"x"}"#
        }
        try ("[" + rows.joined(separator: ",") + "]").write(
            to: directory.appendingPathComponent("rows.json"), atomically: true, encoding: .utf8)
        let file = directory.appendingPathComponent("p.yaml").path
        try """
            name: ragged
            source: { type: file, path: \(directory.appendingPathComponent("rows.json").path), pagination: { first-page-size: 100, page-size: 100 } }
            convert:
              on-invalid: \(onInvalid)
              fields:
                id: { from: id, type: int, required: true }
                name: name
            """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func twoThousandBadRowsGiveAFewLinesAndOneCount() async throws {
        let run = try await CommandRunner.run(["run", try pipeline(onInvalid: "fail"), "--events"])
        #expect(run.status == 1)
        let errorLines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("screens-pipe: error:") }
        #expect(errorLines.count == 6, "stderr: \(run.stderr.prefix(2000))")
        #expect(errorLines.last?.contains("1995 more row errors not shown (1995 convert)") == true, "\(errorLines.last ?? "")")
        let events = try run.stdoutLines.map { try JSONValue(parsing: $0) }
        // The bus still carries every error, and `finished` counts them all.
        #expect(events.filter { $0["event"] == "error" }.count == 2000)
        let finished = try #require(events.last)
        #expect(finished["errors"] == .int(2000))
        #expect(finished["selected"] == .int(1000))
        #expect(finished["skipped"] == nil)
    }

    @Test func skippedRowsAreCountedEverywhere() async throws {
        let run = try await CommandRunner.run(["run", try pipeline(onInvalid: "skip"), "--events"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let events = try run.stdoutLines.map { try JSONValue(parsing: $0) }
        #expect(events.filter { $0["event"] == "error" }.isEmpty)
        let finished = try #require(events.last)
        #expect(finished["skipped"] == .int(2000))
        #expect(finished["errors"] == .int(0))
        #expect(finished["selected"] == .int(1000))
        #expect(run.stderr.contains("skipped 2000 rows that did not convert (convert.on-invalid: skip)"), "stderr: \(run.stderr)")
    }
}
