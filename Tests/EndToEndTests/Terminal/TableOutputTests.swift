import Foundation
import Testing

/// `--format table` / `sink.format: table`: aligned columns for people, in terminal
/// columns (wide characters take two), colours only on a terminal and never with NO_COLOR.
@Suite("Table output")
struct TableOutputTests {
    /// A small list with ASCII, CJK, emoji and a value too wide for its column.
    private static let rows = """
        [
          {"id": 1, "name": "Liferay", "city": "Madrid", "tags": ["portal"]},
          {"id": 22, "name": "東京タワー", "city": "東京", "tags": []},
          {"id": 333, "name": "🚀 Launch 👩‍👩‍👧", "city": "Diamond Bar", "tags": null},
          {"id": 4, "name": "A very long name that is wider than the forty columns of a table cell", "city": "Recife"}
        ]
        """

    private static let pipeline = """
        name: places
        source:
          type: file
          path: rows.json
        sink:
          format: table
        """

    private func directory() throws -> URL {
        let directory = try CommandRunner.temporaryDirectory()
        try Self.rows.write(to: directory.appendingPathComponent("rows.json"), atomically: true, encoding: .utf8)
        try Self.pipeline.write(to: directory.appendingPathComponent("places.yaml"), atomically: true, encoding: .utf8)
        return directory
    }

    @Test("sample data as exact text, aligned in terminal columns")
    func exactTable() async throws {
        let directory = try directory()
        let result = try await CommandRunner.run(["run", "places.yaml"], directory: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let expected = """
            id   name                                      city         tags
            ───  ────────────────────────────────────────  ───────────  ──────────
            1    Liferay                                   Madrid       ["portal"]
            22   東京タワー                                東京         []
            333  🚀 Launch 👩‍👩‍👧                              Diamond Bar
            4    A very long name that is wider than the…  Recife

            """
        #expect(result.stdoutText == expected)
    }

    @Test("COLUMNS=40 narrows the widest column, COLUMNS=24 also leaves out the last ones; every line fits")
    func fitsTheTerminalWidth() async throws {
        let directory = try directory()
        let result = try await CommandRunner.run(["run", "places.yaml"], environment: ["COLUMNS": "40"], directory: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let expected = """
            id   name          city
            ───  ────────────  ───────────
            1    Liferay       Madrid
            22   東京タワー    東京
            333  🚀 Launch 👩‍👩‍👧  Diamond Bar
            4    A very long…  Recife

            """
        #expect(result.stdoutText == expected)
        let narrow = try await CommandRunner.run(["run", "places.yaml"], environment: ["COLUMNS": "24"], directory: directory)
        #expect(narrow.status == 0, "\(narrow.stderr)")
        #expect(narrow.stdoutLines.first == "id   name")
        #expect(narrow.stdoutLines.dropFirst(2).first == "1    Liferay")
        let wide = try await CommandRunner.run(["run", "pipelines/bookmarks.yaml", "--format", "table", "--limit", "3"], environment: ["COLUMNS": "80"])
        #expect(wide.status == 0, "\(wide.stderr)")
        #expect(wide.stdoutLines.count == 5)
        #expect(wide.stdoutLines.allSatisfy { $0.count <= 80 }, "\(wide.stdoutLines)")
        #expect(wide.stdoutLines.first?.hasPrefix("entryId") == true)
    }

    @Test("--format table overrides the file's format")
    func formatFlag() async throws {
        let result = try await CommandRunner.run(["run", "pipelines/bookmarks.yaml", "--format", "table", "--limit", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutLines
        #expect(lines.count == 4)
        #expect(lines.first?.hasPrefix("entryId  name") == true)
        #expect(!result.stdoutText.contains("\u{1B}"))
    }

    @Test("colours on a terminal, and none with NO_COLOR")
    func coloursOnlyOnATerminal() async throws {
        let directory = try directory()
        // script(1) gives the command a pseudo-terminal as stdout. `swift test` itself may
        // export NO_COLOR, so the coloured run removes it.
        let coloured = try await CommandRunner.shell(
            #"script -qec 'env -u NO_COLOR "$SP" run places.yaml --progress never' /dev/null"#, directory: directory)
        #expect(coloured.status == 0, "\(coloured.stderr)")
        #expect(coloured.stdoutText.contains("\u{1B}[1mid   name"))
        let plain = try await CommandRunner.shell(
            #"script -qec '"$SP" run places.yaml --progress never' /dev/null"#, environment: ["NO_COLOR": "1"], directory: directory)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdoutText.contains("id   name"))
        #expect(!plain.stdoutText.contains("\u{1B}"))
    }
}
