import Foundation
import ScreensBus
import Testing

@Suite("validate and usage errors end to end")
struct ValidateCommandTests {
    private func write(_ yaml: String) throws -> String {
        let path = try CommandRunner.temporaryDirectory().appendingPathComponent("pipeline.yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("every bundled pipeline validates")
    func bundledPipelines() async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: CommandRunner.packageRoot.appendingPathComponent("pipelines").path)
            .filter { $0.hasSuffix(".yaml") }.sorted().map { "pipelines/\($0)" }
        #expect(files.count >= 6)
        let result = try await CommandRunner.run(["validate"] + files)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("field names in the filter and sink.fields are checked against the model's fields")
    func fieldNamesAgainstTheModel() async throws {
        let path = try write("""
            source: { type: file, path: x.json }
            convert: { model: bookmark }
            filter: { where: 'name starts-with "L" and urll contains "liferay"' }
            sink: { fields: [entryId, nmae] }
            """)
        let result = try await CommandRunner.run(["validate", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path):3:44: 'urll' is not a field of the bookmark model; did you mean 'url'?"), "\(result.stderr)")
        #expect(result.stderr.contains("sink.fields: 'nmae' is not a field of the bookmark model; did you mean 'name'?"), "\(result.stderr)")
        let mapped = try write("""
            source: { type: file, path: x.json }
            convert: { fields: { id: entryId, title: name } }
            filter: { where: 'title != "x"' }
            """)
        #expect(try await CommandRunner.run(["validate", mapped]).status == 0)
    }

    @Test("a file source's path is relative to the pipeline file; validate warns when no file is there")
    func fileSourcePaths() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let pipeline = directory.appendingPathComponent("local.yaml").path
        try "source: { type: file, path: rows.json }\n".write(toFile: pipeline, atomically: true, encoding: .utf8)
        let missing = try await CommandRunner.run(["validate", pipeline])
        #expect(missing.status == 0)
        #expect(missing.stderr.contains("screens-pipe: warning: \(pipeline): source.path: no file at \(directory.path)/rows.json"), "\(missing.stderr)")
        let json = try await CommandRunner.run(["validate", "--format", "json", pipeline])
        #expect(json.stdoutText.contains(#""warnings":["source.path: no file at "#), "\(json.stdoutText)")

        try #"[{"id": 1}, {"id": 2}]"#.write(toFile: directory.appendingPathComponent("rows.json").path, atomically: true, encoding: .utf8)
        // Run from the package root: the file is found beside the pipeline, not in the working directory.
        let run = try await CommandRunner.run(["run", pipeline])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdoutLines == [#"{"id":1}"#, #"{"id":2}"#])
        let present = try await CommandRunner.run(["validate", pipeline])
        #expect(!present.stderr.contains("warning"))
    }

    @Test("a key indented one level too little names the section it belongs in")
    func misindentedKey() async throws {
        let path = try write("source:\n  type: file\n  path: x.json\nretry: { attempts: 2 }\npath: out.jsonl\n")
        let result = try await CommandRunner.run(["validate", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path):4:1: unknown key 'retry' in the top level; did you mean 'source.retry'?"), "\(result.stderr)")
        #expect(result.stderr.contains("\(path):5:1: unknown key 'path' in the top level; did you mean 'source.path' or 'cache.path' or 'sink.path'?"), "\(result.stderr)")
    }

    @Test("an unknown key: exit 2, file:line:column and a suggestion, nothing on stdout")
    func unknownKey() async throws {
        let path = try write("source:\n  type: file\n  path: x.json\n  pagenation: { page-size: 5 }\n")
        let result = try await CommandRunner.run(["validate", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path):4:3: unknown key 'pagenation' in source; did you mean 'pagination'?"))
        #expect(result.stdout.isEmpty)
    }

    @Test("a broken field mapping is reported together with the file's other mistakes")
    func mappingErrorsWithTheOthers() async throws {
        let path = try write(
            "source:\n  type: file\n  path: x.json\n  pagenation: { page-size: 5 }\nconvert:\n  fields:\n    title: { from: \"a[\", type: string }\n")
        let result = try await CommandRunner.run(["validate", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path):4:3: unknown key 'pagenation' in source"), "\(result.stderr)")
        #expect(result.stderr.contains("\(path):7:5: convert field 'title': invalid field path 'a['"), "\(result.stderr)")
    }

    @Test("a broken filter expression points at its column in the file")
    func badExpression() async throws {
        let path = try write("source:\n  type: file\n  path: x.json\nfilter:\n  where: name contians \"x\"\n")
        let result = try await CommandRunner.run(["validate", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path):5:15:"))
        #expect(result.stderr.contains("^"))
    }

    @Test("a YAML syntax error is reported with its position")
    func syntaxError() async throws {
        let path = try write("source:\n  type: file\n   path: [unclosed\n")
        let result = try await CommandRunner.run(["validate", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path):"))
    }

    @Test("run refuses a broken file with exit 2 before sending anything")
    func runRefusesBrokenFile() async throws {
        let path = try write("source:\n  type: liferay-jsonws\n  server: http://127.0.0.1:9\n  rows: { service: /x }\n  timeout: soon\n")
        let result = try await CommandRunner.run(["run", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path):5:12:"))
    }

    @Test("an unset required variable names the variable and its position (validate: with --require-env)")
    func interpolation() async throws {
        let path = try write("source:\n  type: file\n  path: ${SCREENS_PIPE_TEST_UNSET:?set it to the input file}\n")
        for arguments in [["validate", "--require-env", path], ["run", path]] {
            let result = try await CommandRunner.run(arguments)
            #expect(result.status == 2)
            #expect(result.stderr.contains("\(path):3:9: SCREENS_PIPE_TEST_UNSET: set it to the input file"), "\(result.stderr)")
        }
        // Without the flag, validate checks the rest and warns.
        let result = try await CommandRunner.run(["validate", path])
        #expect(result.status == 0)
        #expect(result.stderr.contains("environment variable SCREENS_PIPE_TEST_UNSET (line 3) is not set"), "\(result.stderr)")
    }

    @Test("credentials to a remote plain-http server are refused unless allowed")
    func insecureAuth() async throws {
        let path = try write("""
            source:
              type: liferay-jsonws
              server: http://portal.example.com
              auth: { bearer: abc }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
            """)
        let outputDirectory = try CommandRunner.temporaryDirectory()
        let result = try await CommandRunner.run(["run", path, "-o", outputDirectory.appendingPathComponent("out.jsonl").path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("allow-insecure-auth"))
        #expect(!result.stderr.contains("abc"))
        // Refused before anything was opened: no temporary output file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: outputDirectory.path).isEmpty)
    }

    @Test("--version and --help work")
    func versionAndHelp() async throws {
        let version = try await CommandRunner.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdoutText.contains("."))
        let help = try await CommandRunner.run(["run", "--help"])
        #expect(help.status == 0)
        #expect(help.stdoutText.contains("--policy"))
        #expect(help.stdoutText.contains("Examples"))
    }
}

/// `validate --format json`: one object per file on stdout, for CI annotations.
@Suite("validate --format json")
struct ValidateJSONTests {
    @Test func oneObjectPerFileWithPositions() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let bad = directory.appendingPathComponent("bad.yaml").path
        try "source:\n  type: resty\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["validate", "--format", "json", "pipelines/bookmarks.yaml", bad])
        #expect(result.status == 2)
        let reports = try result.stdoutLines.map { try JSONValue(parsing: $0) }
        #expect(reports.count == 2)
        #expect(reports[0] == ["file": "pipelines/bookmarks.yaml", "ok": true, "errors": []])
        #expect(reports[1]["ok"] == false)
        let error = try #require(reports[1]["errors"]?[0])
        #expect(error["line"] == 2)
        #expect(error["column"] == 9)
        #expect(error["file"]?.stringValue == bad)
        #expect(error["message"]?.stringValue?.contains("did you mean 'rest'") == true)
    }
}

/// The command line refuses what it cannot mean, with exit 2 and a hint.
@Suite("command line hygiene")
struct CommandLineHygieneTests {
    @Test(arguments: [
        (["runn", "x.yaml"], "unknown subcommand 'runn'; did you mean 'run'?"),
        (["help", "nosuch"], "unknown subcommand 'nosuch'"),
        (["run", "x.yaml", "--quiet", "--verbose"], "--quiet and --verbose disagree"),
        (["validate", "--format", "xml", "x.yaml"], "xml"),
    ])
    func refused(arguments: [String], message: String) async throws {
        let result = try await CommandRunner.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
    }

    @Test func helpForARealSubcommandStillWorks() async throws {
        let result = try await CommandRunner.run(["help", "run"])
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("OVERVIEW: Run a pipeline"))
    }
}
