import Foundation
import ScreensBus
import Testing

/// `--format csv|tsv` and `--fields` through the real binary, read back by Python's `csv`
/// module (a parser we did not write), so the quoting is checked against RFC 4180 as a
/// well-known reader applies it, not against our own reading of it.
@Suite("run: CSV, TSV and --fields end to end")
struct DelimitedOutputRunTests {
    /// Rows with every value RFC 4180 makes interesting.
    static let rows = #"""
        [
          {"id": 9007199254740993, "name": "comma, inside", "note": "say \"hi\"", "n": 1.0e-400, "ok": true},
          {"id": 2, "name": "line1\nline2\r\nline3", "note": "tab\there back\\slash", "n": 0.10, "ok": false},
          {"id": 3, "name": "中文 ✓", "note": null, "n": -0, "ok": null, "tags": ["a", "b"]},
          {"id": 4, "name": "", "note": "plain", "n": 12345678901234567890123}
        ]
        """#

    private func pipeline(_ extra: String = "") throws -> String {
        let directory = try CommandRunner.temporaryDirectory()
        try Self.rows.write(to: directory.appendingPathComponent("rows.json"), atomically: true, encoding: .utf8)
        let file = directory.appendingPathComponent("p.yaml").path
        try """
            name: delimited
            source: { type: file, path: \(directory.appendingPathComponent("rows.json").path) }
            \(extra)
            """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Python's csv reader on `bytes` (CSV, or TSV as a tab-delimited dialect): the records.
    private func pythonRecords(_ output: Data, delimiter: String) async throws -> [[String]] {
        let directory = try CommandRunner.temporaryDirectory()
        let path = directory.appendingPathComponent("out").path
        try output.write(to: URL(fileURLWithPath: path))
        let script = #"import csv, json, sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline=""), delimiter=sys.argv[2]))))"#
        let result = try await CommandRunner.shell("python3 -c '\(script)' \(path) '\(delimiter)'")
        #expect(result.status == 0, "python: \(result.stderr)")
        let parsed = try JSONValue(parsing: result.stdoutText)
        return parsed.arrayValue?.map { $0.arrayValue?.compactMap(\.stringValue) ?? [] } ?? []
    }

    @Test("CSV: header from the first row, RFC 4180 quoting, CRLF records; Python reads back every value")
    func csvRoundTrip() async throws {
        let run = try await CommandRunner.run(["run", try pipeline(), "--format", "csv", "--fields", "id,name,note,n,ok,tags"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let text = run.stdoutText
        #expect(text.hasPrefix("id,name,note,n,ok,tags\r\n"))
        #expect(text.contains("9007199254740993,\"comma, inside\",\"say \"\"hi\"\"\",1.0e-400,true,\r\n"))
        let records = try await pythonRecords(run.stdout, delimiter: ",")
        #expect(records.count == 5)
        #expect(records[1] == ["9007199254740993", "comma, inside", "say \"hi\"", "1.0e-400", "true", ""])
        #expect(records[2] == ["2", "line1\nline2\r\nline3", "tab\there back\\slash", "0.10", "false", ""])
        #expect(records[3] == ["3", "中文 ✓", "", "-0", "", #"["a","b"]"#])
        #expect(records[4] == ["4", "", "plain", "12345678901234567890123", "", ""])
    }

    @Test("TSV: tabs, line breaks and backslashes escaped, so every record is one line")
    func tsv() async throws {
        let run = try await CommandRunner.run(["run", try pipeline(), "--format", "tsv", "--fields", "id, name, note"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdoutLines == [
            "id\tname\tnote",
            "9007199254740993\tcomma, inside\tsay \"hi\"",
            "2\tline1\\nline2\\r\\nline3\ttab\\there back\\\\slash",
            "3\t中文 ✓\t",
            "4\t\tplain",
        ])
    }

    @Test("CSV without fields: a later row with a key outside the first row's columns fails the run, naming it")
    func raggedRowsFailLoudly() async throws {
        let run = try await CommandRunner.run(["run", try pipeline(), "--format", "csv"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("row 2 has the key 'tags'"), "stderr: \(run.stderr)")
        #expect(run.stderr.contains("--fields"))
    }

    @Test("--fields projects items and events; missing fields are null; nested paths keep their text as the key")
    func fieldsOnJSONLines() async throws {
        let items = try await CommandRunner.run(["run", try pipeline(), "--fields", "name,tags[0],missing"])
        #expect(items.status == 0, "stderr: \(items.stderr)")
        #expect(items.stdoutLines.last == #"{"name":"","tags[0]":null,"missing":null}"#)
        #expect(items.stdoutLines[2] == #"{"name":"中文 ✓","tags[0]":"a","missing":null}"#)
        let events = try await CommandRunner.run(["run", try pipeline(), "--events", "--fields", "id"])
        let selected = events.stdoutLines.filter { $0.contains(#""event":"selected""#) }
        #expect(selected.first?.hasSuffix(#""item":{"id":9007199254740993}}"#) == true)
    }

    @Test("sink.fields in the pipeline file, as a list")
    func sinkFieldsInTheFile() async throws {
        let file = try pipeline("sink: { format: csv, fields: [id, note] }")
        let run = try await CommandRunner.run(["run", file])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdoutText.hasPrefix("id,note\r\n9007199254740993,\"say \"\"hi\"\"\"\r\n"))
        let bad = try await CommandRunner.run(["validate", try pipeline("sink: { fields: [\"a..b\"] }")])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("invalid field path 'a..b'"), "stderr: \(bad.stderr)")
    }

    @Test("usage errors exit 2, as documented", arguments: [["run", "x.yaml", "--bogus"], ["nosuch"], ["run", "x.yaml", "--fields", "a..b"], ["run"]])
    func usageErrorsExit2(arguments: [String]) async throws {
        let run = try await CommandRunner.run(arguments)
        #expect(run.status == 2, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("Usage") || run.stderr.contains("Error") || run.stderr.contains("unknown subcommand"))
    }
}
