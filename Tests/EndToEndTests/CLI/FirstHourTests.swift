import Foundation
import ScreensBus
import Testing

/// What a new user meets in the first hour, through the real binary: the README's own
/// pipeline and commands, `--fields` typos, validating without the secrets, what a dry run
/// would write, the init template's schema line and the embedding guide's dependency.
@Suite("the first hour: README, --fields, validate without secrets, dry runs, init, embedding")
struct FirstHourTests {
    /// The README section "Your own pipeline": its YAML block saved under the name its
    /// first comment gives, then each `$ command` run in order in that directory, printing
    /// (stdout and stderr) exactly the lines shown under it.
    @Test func theReadmePipelineAndItsCommandsWorkAsWritten() async throws {
        let readme = try String(contentsOf: CommandRunner.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(Self.section("Your own pipeline", of: readme))
        let yaml = try #require(Self.blocks("yaml", in: section).first)
        let fileName = try #require(yaml.split(separator: "\n").first.map { String($0.dropFirst(2)) })
        #expect(fileName.hasSuffix(".yaml"))
        let directory = try HelpTextTests.repositoryLikeDirectory()
        try yaml.write(to: directory.appendingPathComponent(fileName), atomically: true, encoding: .utf8)
        let session = try #require(Self.blocks("console", in: section).last)
        var commands: [(String, [String])] = []
        for line in session.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("$ ") {
                commands.append((String(line.dropFirst(2)), []))
            } else if !line.isEmpty, !commands.isEmpty {
                commands[commands.count - 1].1.append(String(line))
            }
        }
        #expect(commands.count >= 4)
        let expectedCommands = ["screens-pipe validate", "screens-pipe run", "screens-pipe init", "screens-pipe schema"]
        for name in expectedCommands { #expect(commands.contains { $0.0.hasPrefix(name) }, "the README shows no '\(name)'") }
        for (command, shown) in commands {
            let result = try await CommandRunner.shell(
                "(\n\(command)\n) 2>&1",
                environment: [
                    "PATH": "\(directory.path)/bin:\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")",
                    "SCREENS_PIPE_CACHE_DIR": directory.appendingPathComponent("cache").path,
                ],
                directory: directory)
            #expect(result.status == (command.contains("nmae") ? 2 : 0), "'\(command)': \(result.stdoutText)")
            #expect(Self.lines(result.stdoutText) == shown, "'\(command)' printed:\n\(result.stdoutText)")
        }
    }

    @Test("--fields naming no field of the model is a usage error with a suggestion, not a column of nulls")
    func fieldsTypo() async throws {
        let result = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml", "--format", "csv", "--fields", "entryId,nmae"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr.contains(
                "screens-pipe: error: --fields: 'nmae' is not a field of the bookmark model; did you mean 'name'? (its fields: entryId, name, url,"),
            "\(result.stderr)")
        // Known fields (nested paths start with one) still work.
        let good = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml", "--format", "csv", "--fields", "entryId,name", "--limit", "1"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(Self.lines(good.stdoutText).first == "entryId,name")
    }

    @Test("rows whose fields are not known (no model) may have any field: --fields is taken as given")
    func fieldsOfOpenRows() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("open.yaml").path
        try "source: { type: file, path: \(CommandRunner.packageRoot.path)/samples/offline/links.jsonl }\n".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", file, "--format", "csv", "--fields", "title,meta.summary", "--limit", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.lines(result.stdoutText) == ["title,meta.summary", "Liferay,The portal"])
    }

    /// A pipeline that needs two secrets and has a typo in its filter.
    static let secretPipeline = """
        source:
          type: liferay-jsonws
          server: ${PORTAL_URL}
          auth: { basic: { username: "${PORTAL_USER}", password: "${PORTAL_PASSWORD}" } }
          rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
        convert: { model: bookmark }
        filter: { where: 'urll contains "liferay"' }
        """

    @Test("validate without the secrets: one warning for the unset variables, and the other errors still reported")
    func validateWithoutSecrets() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("secret.yaml").path
        try Self.secretPipeline.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["validate", file])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(file):7:19: 'urll' is not a field of the bookmark model; did you mean 'url'?"), "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "screens-pipe: warning: \(file): environment variables PORTAL_URL (line 3), PORTAL_USER (line 4), PORTAL_PASSWORD (line 4) are not set: checked the rest without their values; run needs them (--require-env makes this an error)"),
            "\(result.stderr)")
        #expect(!result.stderr.contains("is not set\n"), "the unset variables are one warning: \(result.stderr)")

        // With the typo fixed, the file validates though the secrets are absent.
        try Self.secretPipeline.replacingOccurrences(of: "urll", with: "url").write(toFile: file, atomically: true, encoding: .utf8)
        let fixed = try await CommandRunner.run(["validate", file])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(fixed.stderr.contains("\(file): ok"))
        let json = try await CommandRunner.run(["validate", "--format", "json", file])
        #expect(json.status == 0)
        let report = try JSONValue(parsing: json.stdoutText)
        #expect(report["ok"] == .bool(true))
        #expect(report["warnings"]?.arrayValue?.first?.stringValue?.hasPrefix("environment variables PORTAL_URL (line 3)") == true, "\(json.stdoutText)")

        // --require-env, and run, refuse the file, naming each variable where it is used.
        let strict = try await CommandRunner.run(["validate", "--require-env", file])
        #expect(strict.status == 2)
        #expect(strict.stderr.contains("\(file):3:11: environment variable 'PORTAL_URL' is not set"), "\(strict.stderr)")
        let run = try await CommandRunner.run(["run", file])
        #expect(run.status == 2)
        #expect(run.stderr.contains("\(file):4:58: environment variable 'PORTAL_PASSWORD' is not set"), "\(run.stderr)")
        // Set, it validates with no warning.
        let set = try await CommandRunner.run(
            ["validate", file], environment: ["PORTAL_URL": "https://portal.example.com", "PORTAL_USER": "u", "PORTAL_PASSWORD": "p"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(!set.stderr.contains("warning"), "\(set.stderr)")
    }

    @Test("write --dry-run says what it would write: 73 rows to create in 3 requests, nothing sent")
    func dryRunSummary() async throws {
        let result = try await CommandRunner.shell(
            #""$SP" run pipelines/bookmarks.yaml | "$SP" write pipelines/import-bookmarks.yaml --input - --dry-run > /dev/null"#)
        #expect(result.status == 0, "\(result.stderr)")
        // Batches of 25 (batch-size in the pipeline): 25, 25, 23.
        #expect(
            result.stderr.contains(
                "screens-pipe: dry run, nothing sent: 73 to create, 0 to update, 0 unchanged (0 from the journal), 0 rejected in 3 requests"),
            "\(result.stderr)")
    }

    @Test("init's file points editors at the schema that 'screens-pipe schema' writes beside it")
    func initSchemaComment() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("api.yaml").path
        #expect(try await CommandRunner.run(["init", "--type", "rest", file]).status == 0)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix("# yaml-language-server: $schema=pipeline.schema.json\n"), "\(text)")
        #expect(text.contains("screens-pipe schema > pipeline.schema.json"))
        let samples = try String(contentsOf: CommandRunner.packageRoot.appendingPathComponent("pipelines/bookmarks.yaml"), encoding: .utf8)
        #expect(samples.hasPrefix("# yaml-language-server: $schema="))
    }

    @Test("the embedding guide depends on the package by URL and the version the binary reports")
    func embeddingDependency() async throws {
        let version = try await CommandRunner.run(["--version"]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let guide = try String(
            contentsOf: CommandRunner.packageRoot.appendingPathComponent("Sources/ScreensPipeCore/ScreensPipe.docc/Embedding.md"), encoding: .utf8)
        let dependency = try #require(guide.firstMatch(of: /\.package\(url: "([^"]+)", from: "([^"]+)"\)/))
        #expect(dependency.1.hasSuffix("/screens-pipe.git"), "the package name the products name is the URL's last component")
        #expect(String(dependency.2) == version)
    }

    /// Lines of output, CSV's CRLF ends included.
    static func lines(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
    }

    /// The text of a `## title` section, up to the next `## `.
    static func section(_ title: String, of markdown: String) -> String? {
        guard let start = markdown.range(of: "\n## \(title)\n") else { return nil }
        let rest = markdown[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    /// The fenced code blocks of a language in `markdown`.
    static func blocks(_ language: String, in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```\(language)" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n") + "\n")
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }
}
