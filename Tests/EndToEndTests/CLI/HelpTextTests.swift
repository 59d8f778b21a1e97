import Foundation
import Testing

/// `--help` at 80 columns: no line is re-wrapped by the parser (so sentences break where
/// they were written), and every example command stays on one line, ready to copy.
@Suite("help text")
struct HelpTextTests {
    /// The root command and every subcommand.
    static let commands = ["", "run", "validate", "test", "plan", "init", "schema", "session", "cache", "sandbox", "write", "state", "outbox"]

    @Test(arguments: commands)
    func examplesStayWholeAndNothingIsRewrapped(subcommand: String) async throws {
        let arguments = (subcommand.isEmpty ? [] : [subcommand]) + ["--help"]
        let result = try await CommandRunner.run(arguments, environment: ["COLUMNS": "80"])
        #expect(result.status == 0)
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
        var inExamples = false
        for line in lines {
            if line.hasPrefix("Example") { inExamples = true; continue }
            if line.isEmpty { inExamples = false }
            if inExamples { #expect(line.hasPrefix("  ") && line.contains("screens-pipe "), "an example was split: '\(line)'") }
            if !line.hasPrefix("USAGE:") { #expect(line.count <= 80, "'\(line)' is \(line.count) columns") }
        }
        // Wider, the discussion must read the same: at 80 columns nothing was re-wrapped.
        let wide = try await CommandRunner.run(arguments, environment: ["COLUMNS": "300"])
        #expect(Self.discussion(result.stdoutText) == Self.discussion(wide.stdoutText))
        #expect(!Self.discussion(result.stdoutText).isEmpty)
        if subcommand == "" { #expect(result.stdoutText.contains("130, 143, 129 after SIGINT,")) }
    }

    /// Every example command line of every `--help` runs as written, in order, from a
    /// directory laid out as the repository (its pipelines and samples): each pipeline file
    /// it names exists, and it exits 0. A server that runs until stopped (`sandbox`) is
    /// given a free port and SIGTERM after it said it listens.
    @Test(arguments: commands)
    func everyExampleRunsAsWritten(subcommand: String) async throws {
        let help = try await CommandRunner.run((subcommand.isEmpty ? [] : [subcommand]) + ["--help"], environment: ["COLUMNS": "300"])
        let examples = Self.exampleCommands(help.stdoutText)
        #expect(!examples.isEmpty || ["cache"].contains(subcommand), "no example in \(subcommand) --help")
        let directory = try Self.repositoryLikeDirectory()
        for (example, comment) in examples {
            let files = Self.pipelineFiles(in: example)
            for file in files {
                let matches = try Self.expand(file, in: directory)
                #expect(!matches.isEmpty, "'\(example)' names \(file), which does not exist")
            }
            // `# if failed`: a state the test cannot make in one line; its pipeline is checked.
            if comment.hasPrefix("# if ") {
                #expect(!files.isEmpty)
                let validated = try await CommandRunner.run(["validate"] + files, directory: directory)
                #expect(validated.status == 0, "'\(example)': \(validated.stderr)")
                continue
            }
            var script = example
            if example.hasPrefix("screens-pipe sandbox") {
                // Port 8080 may be taken on a shared machine: the same command on a free port.
                script = example.replacingOccurrences(of: "--port 8080", with: "--port 0") + " 2> sandbox.log & pid=$!; "
                    + "for _ in $(seq 100); do grep -q listening sandbox.log && break; sleep 0.1; done; "
                    + "grep -q listening sandbox.log && kill -TERM $pid && wait $pid"
            }
            let result = try await CommandRunner.shell(
                script,
                environment: [
                    "PATH": "\(directory.path)/bin:\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")",
                    "SCREENS_PIPE_CACHE_DIR": directory.appendingPathComponent("cache").path,
                ],
                directory: directory)
            #expect(result.status == 0, "'\(example)' exited \(result.status): \(result.stderr)")
        }
    }

    /// Every guide, file and section a help text or a sample pipeline's comments point to
    /// is there: `see "Faults" in .../SandboxPortal.md` names a heading of that file.
    @Test func pointersToDocumentationLeadSomewhere() async throws {
        var texts: [(String, String)] = []
        for command in Self.commands {
            let help = try await CommandRunner.run((command.isEmpty ? [] : [command]) + ["--help"], environment: ["COLUMNS": "300"])
            texts.append(("\(command) --help", help.stdoutText))
        }
        let pipelines = CommandRunner.packageRoot.appendingPathComponent("pipelines")
        for name in try FileManager.default.contentsOfDirectory(atPath: pipelines.path) where name.hasSuffix(".yaml") {
            texts.append((name, try String(contentsOf: pipelines.appendingPathComponent(name), encoding: .utf8)))
        }
        var pointers = 0
        for (origin, text) in texts {
            #expect(!text.contains("README \""), "\(origin) points to a README section by name only")
            for match in text.matches(of: /"([^"\n]+)" in ([A-Za-z0-9_.\/-]+\.md)/) {
                pointers += 1
                let (section, file) = (String(match.1), String(match.2))
                let path = CommandRunner.packageRoot.appendingPathComponent(file).path
                guard let guide = try? String(contentsOfFile: path, encoding: .utf8) else {
                    Issue.record("\(origin) points to \(file), which does not exist")
                    continue
                }
                let headings = guide.split(separator: "\n").filter { $0.hasPrefix("#") }.map { $0.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces) }
                #expect(headings.contains(section), "\(origin) points to \"\(section)\" in \(file), which has no such section")
            }
        }
        #expect(pointers >= 2)
    }

    /// The text between the overview and the usage line.
    static func discussion(_ help: String) -> [Substring] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: ""), let end = lines.firstIndex(where: { $0.hasPrefix("USAGE:") }), start < end else { return [] }
        return Array(lines[start..<end])
    }

    /// The example command lines of a help text: each indented discussion line that runs
    /// `screens-pipe` (alone or in a shell pipeline), and its trailing `# comment`, if any.
    static func exampleCommands(_ help: String) -> [(command: String, comment: String)] {
        discussion(help).compactMap { line -> (String, String)? in
            guard line.hasPrefix("  ") else { return nil }
            var command = line.trimmingCharacters(in: .whitespaces)
            guard command.hasPrefix("screens-pipe ") || command.contains("| screens-pipe ") else { return nil }
            var comment = ""
            if let start = command.range(of: "  #") {
                comment = command[start.lowerBound...].trimmingCharacters(in: .whitespaces)
                command = String(command[..<start.lowerBound]).trimmingCharacters(in: .whitespaces)
            }
            return (command, comment)
        }
    }

    /// The pipeline files a command line reads (`init` writes its file, so not its).
    static func pipelineFiles(in example: String) -> [String] {
        example.split(separator: "|").flatMap { part -> [String] in
            let words = part.split(separator: " ").map(String.init)
            guard let start = words.firstIndex(of: "screens-pipe"), words.dropFirst(start + 1).first != "init" else { return [] }
            return words.dropFirst(start + 1).filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
        }
    }

    /// The paths a (possibly globbed) path names under `directory`.
    static func expand(_ pattern: String, in directory: URL) throws -> [String] {
        guard let star = pattern.firstIndex(of: "*") else {
            return FileManager.default.fileExists(atPath: directory.appendingPathComponent(pattern).path) ? [pattern] : []
        }
        let folder = (pattern[..<star] as Substring).split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let suffix = String(pattern[pattern.index(after: star)...])
        return try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(folder).path)
            .filter { $0.hasSuffix(suffix) }.map { "\(folder)/\($0)" }
    }

    /// A fresh directory with the repository's pipelines, samples and docs (links), and
    /// `bin/screens-pipe`: examples run there as in a clone, and write their files there.
    static func repositoryLikeDirectory() throws -> URL {
        let directory = try CommandRunner.temporaryDirectory()
        let files = FileManager.default
        for name in ["pipelines", "samples", "docs"] {
            try files.createSymbolicLink(at: directory.appendingPathComponent(name), withDestinationURL: CommandRunner.packageRoot.appendingPathComponent(name))
        }
        let bin = directory.appendingPathComponent("bin")
        try files.createDirectory(at: bin, withIntermediateDirectories: true)
        try files.createSymbolicLink(atPath: bin.appendingPathComponent("screens-pipe").path, withDestinationPath: CommandRunner.binary)
        try files.createDirectory(at: directory.appendingPathComponent("cache"), withIntermediateDirectories: true)
        return directory
    }
}
