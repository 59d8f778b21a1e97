import Foundation
import ScreensBus
import Testing

/// samples/embed: a program that embeds screens-pipe as the Embedding guide shows, built as
/// the `embed-sample` example target of this package (samples/embed/Package.swift shows it
/// as a package of its own): typed rows, a failed run thrown, cancellation, the service.
@Suite("Embed sample")
struct EmbedSampleTests {
    /// `$SCREENS_PIPE_EMBED_BIN` (set by `make test`), else this package's debug build.
    private static func binary() async throws -> String {
        if let path = ProcessInfo.processInfo.environment["SCREENS_PIPE_EMBED_BIN"], !path.isEmpty { return path }
        let built = CommandRunner.packageRoot.appendingPathComponent(".build/debug/embed-sample").path
        try #require(FileManager.default.isExecutableFile(atPath: built), "build the embed-sample target first (swift build)")
        return built
    }

    @Test("the sample prints the selected rows of pipelines/bookmarks.yaml: the same rows the CLI writes")
    func samplePrintsTheExpectedRows() async throws {
        let sample = try await CommandRunner.shell(#""$EMBED" pipelines/bookmarks.yaml"#, environment: ["EMBED": try await Self.binary()])
        #expect(sample.status == 0, "\(sample.stderr)")
        let lines = sample.stdoutLines
        #expect(lines.count == 73)
        #expect(lines.first == "30001\tLiferay links 01\thttps://www.liferay.com/liferay/1")
        #expect(lines.dropFirst().first == "30002\tScreens notes 02\thttps://help.liferay.com/screens/2")
        #expect(sample.stderr == "bookmarks: 73 rows\n")

        // Every row, in order, exactly as the command line delivers it.
        let cli = try await CommandRunner.run(["run", "pipelines/bookmarks.yaml"])
        #expect(cli.status == 0)
        let expected = try cli.jsonLines().map { row -> String in
            let object = row.objectValue ?? [:]
            let id = object["entryId"]?.jsonString ?? ""
            guard case .string(let name)? = object["name"], case .string(let url)? = object["url"] else { return "?" }
            return "\(id)\t\(name)\t\(url)"
        }
        #expect(lines == expected)
    }

    @Test("a pipeline file with a mistake makes the sample exit 2 with the located message")
    func sampleReportsConfigurationErrors() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("broken.yaml")
        try "source:\n  type: liferay-jsonws\n  server: sandbox\n  rowz: {}\n".write(to: file, atomically: true, encoding: .utf8)
        let sample = try await CommandRunner.shell(#""$EMBED" "$FILE""#, environment: ["EMBED": try await Self.binary(), "FILE": file.path])
        #expect(sample.status == 2)
        #expect(sample.stderr.contains("broken.yaml:4:3:"))
        #expect(sample.stdout.isEmpty)
    }

    @Test("a 401 is a thrown failure naming the page and the redacted request, never a success")
    func sampleFailsOnAWrongPassword() async throws {
        let sample = try await CommandRunner.shell(
            #""$EMBED" pipelines/bookmarks.yaml source.auth.basic.password=not-the-password"#,
            environment: ["EMBED": try await Self.binary()])
        #expect(sample.status == 1, "\(sample.stderr)")
        #expect(sample.stdout.isEmpty)
        #expect(sample.stderr.contains("page 0"), "\(sample.stderr)")
        #expect(sample.stderr.contains("401"), "\(sample.stderr)")
        #expect(!sample.stderr.contains("not-the-password"))
    }

    @Test("cancelling the task that reads the rows stops the run: the rows before it, then `cancelled`")
    func sampleStopsWhenItsTaskIsCancelled() async throws {
        let sample = try await CommandRunner.shell(
            #""$EMBED" --stop-after 5 pipelines/bookmarks.yaml"#, environment: ["EMBED": try await Self.binary()])
        #expect(sample.status == 3, "\(sample.stderr)")  // code `cancelled`, not a failure
        let whole = try await CommandRunner.shell(#""$EMBED" pipelines/bookmarks.yaml"#, environment: ["EMBED": try await Self.binary()])
        #expect(sample.stdoutLines == Array(whole.stdoutLines.prefix(5)))
        #expect(sample.stderr.hasPrefix("bookmarks: stopped after 5 rows\n"), "\(sample.stderr)")
    }

    @Test("as a PipelineService in a ServiceGroup, the sample delivers the same rows through its delegate")
    func sampleRunsAsAService() async throws {
        let service = try await CommandRunner.shell(
            #""$EMBED" --service pipelines/bookmarks.yaml"#, environment: ["EMBED": try await Self.binary()])
        #expect(service.status == 0, "\(service.stderr)")
        let whole = try await CommandRunner.shell(#""$EMBED" pipelines/bookmarks.yaml"#, environment: ["EMBED": try await Self.binary()])
        #expect(service.stdoutLines.count == 73)
        #expect(service.stdoutLines == whole.stdoutLines)

        let refused = try await CommandRunner.shell(
            #""$EMBED" --service pipelines/bookmarks.yaml source.auth.basic.password=not-the-password"#,
            environment: ["EMBED": try await Self.binary()])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("401"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("not-the-password"))
    }
}
