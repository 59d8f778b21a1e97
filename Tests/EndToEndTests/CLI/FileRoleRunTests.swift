import Foundation
import ScreensBus
import Testing

/// One file in two roles (`-o` and `--metrics-file`, `--rejects` and `--input`, the output
/// and the source it reads) is refused before anything is read or written, however the two
/// paths are spelled; and file errors say the system's reason, once prefixed.
@Suite("run and write: files named twice, file error messages")
struct FileRoleRunTests {
    /// A directory with `rows.json` (10 rows) and `list.yaml` reading it.
    private static func workspace() throws -> URL {
        let directory = try CommandRunner.temporaryDirectory()
        let rows = (0..<10).map { #"{"id":\#($0)}"# }.joined(separator: ",")
        try Data("[\(rows)]".utf8).write(to: directory.appendingPathComponent("rows.json"))
        try "name: list\nsource: { type: file, path: rows.json }\n".write(
            to: directory.appendingPathComponent("list.yaml"), atomically: true, encoding: .utf8)
        return directory
    }

    private static func contents(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }

    @Test(
        "run: -o and --metrics-file or --trace naming one file, also through '..' and a hard link, are refused with exit 2, nothing written",
        arguments: [
            (["-o", "same.txt", "--metrics-file", "same.txt"], "-o and --metrics-file both name 'same.txt'"),
            (["-o", "same.txt", "--trace", "./sub/../same.txt"], "-o and --trace both name 'same.txt' and './sub/../same.txt' (the same file)"),
            (["-o", "hard.txt", "--metrics-file", "same.txt"], "-o and --metrics-file both name 'hard.txt' and 'same.txt' (the same file)"),
            (["-o", "rows.json"], "the source file and -o both name"),
            (["-o", "list.yaml"], "the pipeline file and -o both name"),
        ])
    func runCollisions(arguments: [String], message: String) async throws {
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let same = directory.appendingPathComponent("same.txt")
        try "kept\n".write(to: same, atomically: true, encoding: .utf8)
        try FileManager.default.linkItem(at: same, to: directory.appendingPathComponent("hard.txt"))
        let before = (Self.contents(directory.appendingPathComponent("rows.json")), Self.contents(directory.appendingPathComponent("list.yaml")))
        let result = try await CommandRunner.run(["run", "list.yaml"] + arguments, directory: directory)
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("screens-pipe: error: "), "stderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(Self.contents(same) == "kept\n")
        #expect(Self.contents(directory.appendingPathComponent("rows.json")) == before.0)
        #expect(Self.contents(directory.appendingPathComponent("list.yaml")) == before.1)
        #expect(!result.stderr.contains("wrote"))
    }

    @Test("run: -o and --metrics-file on different files both hold what they should")
    func distinctFiles() async throws {
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CommandRunner.run(["run", "list.yaml", "-o", "out.jsonl", "--metrics-file", "m.prom", "--trace", "t.json"], directory: directory)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(Self.contents(directory.appendingPathComponent("out.jsonl"))?.split(separator: "\n").count == 10)
        #expect(Self.contents(directory.appendingPathComponent("m.prom"))?.contains("# TYPE") == true)
    }

    @Test("write: --rejects naming the --input file is refused before the input is read; the input is unchanged")
    func rejectsOverInput() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try """
            name: w
            sink:
              type: liferay
              server: http://127.0.0.1:9
              auth: { basic: { username: a, password: b } }
              service: bookmark
              group-id: 20143
              folder-id: 0
            """.write(to: directory.appendingPathComponent("w.yaml"), atomically: true, encoding: .utf8)
        let input = #"{"name":"n","url":"notaurl"}"# + "\n"
        try input.write(to: directory.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["write", "w.yaml", "--input", "in.jsonl", "--rejects", "./in.jsonl"], directory: directory)
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("--input and --rejects both name 'in.jsonl' and './in.jsonl' (the same file)"), "stderr: \(result.stderr)")
        #expect(Self.contents(directory.appendingPathComponent("in.jsonl")) == input)
    }

    @Test("a metrics file, a trace or a starter pipeline that cannot be written says the system's reason, with one prefix")
    func unwritablePaths() async throws {
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CommandRunner.run(["run", "list.yaml", "-o", "out.jsonl", "--metrics-file", "missing/m.prom"], directory: directory)
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("screens-pipe: error: cannot write the metrics to missing/m.prom: No such file or directory\n"), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("screens-pipe: error: screens-pipe"))
        #expect(!result.stderr.contains("NSCocoaErrorDomain"))

        let initResult = try await CommandRunner.run(["init", "missing/new.yaml"], directory: directory)
        #expect(initResult.status == 1)
        #expect(initResult.stderr == "screens-pipe: error: cannot write missing/new.yaml: No such file or directory\n", "stderr: \(initResult.stderr)")
    }

    @Test("a pipeline file that cannot be read is an error line with the prefix, for run, plan and validate")
    func unreadablePipeline() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for command in ["run", "plan", "validate"] {
            let result = try await CommandRunner.run([command, "nope.yaml"], directory: directory)
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(result.stderr.hasPrefix("screens-pipe: error: cannot read nope.yaml"), "\(command): \(result.stderr)")
        }
    }
}
