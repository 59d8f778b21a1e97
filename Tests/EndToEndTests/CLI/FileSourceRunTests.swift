import Foundation
import ScreensBus
import Testing

/// The binary end to end on the file source: no network, real process, real pipes.
@Suite("run: file source end to end")
struct FileSourceRunTests {
    static let pipeline = "pipelines/offline-bookmarks.yaml"

    @Test("rows come out as JSON lines that jq reads, in list order, filtered")
    func pipedIntoJQ() async throws {
        let result = try await CommandRunner.shell(#""$SP" run \#(Self.pipeline) | jq -r .name"#)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutLines.first == "Liferay")
        #expect(result.stdoutLines.count == 9)  // 10 rows, "tmp scratch" filtered out
        #expect(!result.stdoutLines.contains("tmp scratch"))
        #expect(result.stdoutLines.contains("中文书签"))
    }

    @Test("64-bit ids and hostile strings survive byte for byte")
    func exactValues() async throws {
        let result = try await CommandRunner.run(["run", Self.pipeline])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let rows = try result.stdoutLines.map { try JSONValue(parsing: $0) }
        #expect(rows.first?["entryId"] == .int(9_007_199_254_740_993))
        #expect(result.stdoutText.contains(#""entryId":9007199254740993"#))
        #expect(rows.contains { $0["name"] == #"quote " and backslash \ "# })
        #expect(rows.contains { $0["description"]?.stringValue?.unicodeScalars.contains("\u{1}") == true })
    }

    @Test("--events writes started, one response per page, selected rows and finished")
    func eventsFormat() async throws {
        let result = try await CommandRunner.run(["run", Self.pipeline, "--events"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let events = try result.stdoutLines.map { try JSONValue(parsing: $0) }
        let kinds = events.compactMap { $0["event"]?.stringValue }
        #expect(kinds.first == "started")
        #expect(kinds.last == "finished")
        let responses = events.filter { $0["event"] == "response" }
        // 10 rows with first-page-size 4 and page-size 3: pages [0,4) [4,7) [7,10).
        #expect(responses.map { $0["startRow"] } == [.int(0), .int(4), .int(7)])
        #expect(responses.map { $0["endRow"] } == [.int(4), .int(7), .int(10)])
        #expect(responses.first?["rowCount"] == .int(10))
        #expect(responses.allSatisfy { $0["origin"] == "file" })
        #expect(kinds.filter { $0 == "selected" }.count == 9)
        #expect(events.last?["succeeded"] == .bool(true))
    }

    @Test("--limit stops after N selected rows")
    func limit() async throws {
        let result = try await CommandRunner.run(["run", Self.pipeline, "--limit", "2"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutLines.count == 2)
    }

    @Test("| head -n 1 ends the run at once and quietly")
    func closedStdout() async throws {
        let result = try await CommandRunner.shell(
            #""$SP" run \#(Self.pipeline) --set source.pagination.page-size=1 --set source.pagination.first-page-size=1 | head -n 1; echo "status=${PIPESTATUS[0]}" >&2"#)
        #expect(result.stdoutLines.count == 1)
        #expect(result.stderr.contains("status=0"), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("error"))
    }

    @Test("--output writes the file atomically and reports it on stderr only")
    func outputFile() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let path = directory.appendingPathComponent("out.jsonl").path
        let result = try await CommandRunner.run(["run", Self.pipeline, "--output", path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.split(separator: "\n").count == 9)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers == ["out.jsonl"])
    }

    @Test("an output that cannot be created is a usage error: exit 2 before any request")
    func uncreatableOutput() async throws {
        let result = try await CommandRunner.run(["run", Self.pipeline, "-o", "/nonexistent-screens-pipe-dir/out.jsonl"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("cannot create output file /nonexistent-screens-pipe-dir/out.jsonl"))
    }

    @Test("a missing input file fails the run with exit 1 and names the file")
    func missingFile() async throws {
        let result = try await CommandRunner.run(["run", Self.pipeline, "--set", "source.path=samples/offline/nope.json"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("samples/offline/nope.json"))
        #expect(result.stdout.isEmpty)
    }
}
