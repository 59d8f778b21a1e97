import Foundation
import Testing

/// `screens-pipe test`: every sample pipeline's test file passes; a failing case prints
/// which field of which row differs and exits 1; a bad test file exits 2 with positions;
/// hostile test files and recordings are refused in bounded time.
@Suite("screens-pipe test")
struct PipelineTestCommandTests {
    static func sampleTestFiles() throws -> [String] {
        let directory = CommandRunner.packageRoot.appendingPathComponent("pipelines/tests").path
        return try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".test.yaml") }.sorted().map { "pipelines/tests/\($0)" }
    }

    @Test func everySamplePipelineHasATestFileAndItPasses() async throws {
        let pipelines = try FileManager.default.contentsOfDirectory(
            atPath: CommandRunner.packageRoot.appendingPathComponent("pipelines").path
        ).filter { $0.hasSuffix(".yaml") }
        let files = try Self.sampleTestFiles()
        #expect(Set(files.map { $0.replacingOccurrences(of: "pipelines/tests/", with: "").replacingOccurrences(of: ".test.yaml", with: ".yaml") })
            == Set(pipelines))
        let result = try await CommandRunner.run(["test"] + files)
        #expect(result.status == 0, "stdout: \(result.stdoutText)\nstderr: \(result.stderr)")
        let summary = try #require(result.stdoutLines.last)
        #expect(summary.hasSuffix("passed, 0 failed"), "\(summary)")
        #expect(summary.contains("in \(files.count) files"))
        #expect(!result.stdoutText.contains("FAIL"))
    }

    @Test func pathsAreRelativeToTheTestFileNotTheWorkingDirectory() async throws {
        let elsewhere = try CommandRunner.temporaryDirectory()
        let file = CommandRunner.packageRoot.appendingPathComponent("pipelines/tests/offline-bookmarks.test.yaml").path
        let result = try await CommandRunner.run(["test", file], directory: elsewhere)
        #expect(result.status == 0, "stdout: \(result.stdoutText)")
    }

    /// A pipeline over recorded rows, and a test file beside it with the given cases.
    static func project(cases: String, pipeline: String? = nil) throws -> (directory: URL, test: String) {
        let directory = try CommandRunner.temporaryDirectory()
        try (pipeline ?? """
            name: people
            source: { type: file, path: unused.json, pagination: { first-page-size: 2, page-size: 2 } }
            convert: { fields: { id: id, name: name } }
            filter: { where: 'name != "skip"' }
            """).write(to: directory.appendingPathComponent("people.yaml"), atomically: true, encoding: .utf8)
        let test = directory.appendingPathComponent("people.test.yaml")
        try "pipeline: people.yaml\ncases:\n\(cases)".write(to: test, atomically: true, encoding: .utf8)
        return (directory, test.path)
    }

    @Test func aDifferingRowIsNamedByRowAndFieldAndExitsOne() async throws {
        let (_, test) = try Self.project(cases: """
              - name: passes
                rows: [{ id: 1, name: Ana }, { id: 2, name: skip }, { id: 3, name: Bo }]
                expect: { rows: [{ id: 1, name: Ana }, { id: 3, name: Bo }], row-count: 2 }
              - name: fails
                rows: [{ id: 1, name: Ana }, { id: 3, name: Bo }]
                expect: { rows: [{ id: 1, name: Ana }, { id: 3, name: Bob }, { id: 4, name: Cy }] }
            """)
        let result = try await CommandRunner.run(["test", test])
        #expect(result.status == 1)
        let out = result.stdoutText
        #expect(out.contains("  ok    passes"))
        #expect(out.contains("  FAIL  fails (\(test):6:5)"), "\(out)")
        #expect(out.contains(#"row 1 .name: expected "Bob", got "Bo""#), "\(out)")
        #expect(out.contains("expected 3 rows, got 2"))
        #expect(out.contains(#"row 2 missing: expected {"id":4,"name":"Cy"}"#), "\(out)")
        #expect(result.stdoutLines.last == "2 cases in 1 file: 1 passed, 1 failed")
    }

    @Test func numbersCompareByValueAndKeysInAnyOrder() async throws {
        let (_, test) = try Self.project(cases: """
              - name: same values
                rows: [{ id: 9007199254740993, name: Ana, score: 1.50 }]
                expect: { rows: [{ name: Ana, id: 9007199254740993, score: 1.5 }] }
              - name: one past 2^53 is not 2^53
                rows: [{ id: 9007199254740993, name: Ana }]
                expect: { rows: [{ id: 9007199254740992, name: Ana, score: 0 }] }
            """,
            pipeline: """
            name: people
            source: { type: file, path: unused.json }
            convert: { fields: { id: id, name: name, score: { from: score, default: 0 } } }
            """)
        let result = try await CommandRunner.run(["test", test])
        #expect(result.status == 1)
        #expect(result.stdoutText.contains("  ok    same values"), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("row 0 .id: expected 9007199254740992, got 9007199254740993"), "\(result.stdoutText)")
    }

    @Test func eventsErrorsAndRecordedPages() async throws {
        let (_, test) = try Self.project(cases: """
              - name: recorded pages with a count
                pages: [[{ id: 1, name: a }, { id: 2, name: b }], [{ id: 3, name: c }]]
                count: 3
                expect:
                  events:
                    - { event: response, page: 0, rowCount: 3, rows: 2 }
                    - { event: selected, row: 2, item: { name: c } }
                    - { event: finished, end: row-count, selected: 3 }
              - name: full pages and no more recorded
                pages: [[{ id: 1, name: a }, { id: 2, name: b }]]
                expect: { error: { kind: io, page: 1, message: "recorded 1 page" } }
              - name: an event that never comes
                rows: [{ id: 1, name: a }]
                expect: { events: [{ event: finished, end: short-page }] }
              - name: an error that never comes
                rows: [{ id: 1, name: a }]
                expect: { error: pagination }
              - name: an unexpected error
                pages: [[{ id: 1, name: a }, { id: 2, name: b }]]
            """)
        let result = try await CommandRunner.run(["test", test])
        #expect(result.status == 1)
        let out = result.stdoutText
        #expect(out.contains("  ok    recorded pages with a count"), "\(out)")
        #expect(out.contains("  ok    full pages and no more recorded"), "\(out)")
        #expect(out.contains(#"expected event 0 {"event":"finished","end":"short-page"} was not published"#), "\(out)")
        #expect(out.contains(#"event 3: {"event":"finished","pipeline":"people","pages":1"#), "\(out)")
        #expect(out.contains("expected the run to fail with kind pagination, but it succeeded"), "\(out)")
        #expect(out.contains("the run failed: page 1: the test recorded 1 page; the pipeline asked for page 1")
            || out.contains("the test recorded 1 page; the pipeline asked for page 1"), "\(out)")
        #expect(result.stdoutLines.last == "5 cases in 1 file: 2 passed, 3 failed")
    }

    @Test func theCacheIsThePipelinesOwnOnADatabaseOfTheCase() async throws {
        // cache-only has nothing to read in a fresh database: the run fails with a cache error,
        // whatever the user's own cache holds.
        let (_, test) = try Self.project(
            cases: """
              - name: cache-only reads an empty cache
                rows: [{ id: 1, name: a }]
                expect: { error: cache }
            """,
            pipeline: """
            name: people
            source: { type: file, path: unused.json }
            convert: { fields: { id: id, name: name } }
            cache: { policy: cache-only }
            """)
        let result = try await CommandRunner.run(["test", test])
        #expect(result.status == 0, "\(result.stdoutText)")
    }

    @Test func aBadTestFileExitsTwoWithEveryProblemAtItsPosition() async throws {
        let (directory, test) = try Self.project(cases: """
              - name: typo
                rows: []
                expcet: { row-count: 1 }
              - name: no input
                expect: { row-count: 1 }
              - name: two inputs
                rows: []
                sandbox: true
              - name: missing file
                pages-file: nowhere.json
            """)
        let good = directory.appendingPathComponent("good.test.yaml").path
        try "pipeline: people.yaml\ncases: [{ name: ok, rows: [] }]\n".write(toFile: good, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["test", test, good])
        #expect(result.status == 2)
        let out = result.stdoutText
        #expect(out.contains("\(test):5:5: unknown key 'expcet' in cases[0]; did you mean 'expect'?"), "\(out)")
        #expect(out.contains("\(test):6:5: a case needs an input"), "\(out)")
        #expect(out.contains("\(test):8:5: a case takes one input, found rows and sandbox"), "\(out)")
        #expect(out.contains("\(test):12:17: 'pages-file': cannot read \(directory.path)/nowhere.json"), "\(out)")
        // The other file still ran.
        #expect(out.contains("  ok    ok"), "\(out)")
    }

    @Test func hostileTestFilesAreRefusedInBoundedTime() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let notPages = directory.appendingPathComponent("pages.json")
        try #"[{"id": 1}]"#.write(to: notPages, atomically: true, encoding: .utf8)
        let cases: [(String, String)] = [
            ("zero.test.yaml", "/dev/zero"),
            ("scalar.test.yaml", "just a string\n"),
            ("deep.test.yaml", String(repeating: "[", count: 100_000) + "\n"),
            ("pages.test.yaml", "pipeline: p.yaml\ncases: [{ name: x, pages-file: pages.json }]\n"),
            ("nopipeline.test.yaml", "cases: [{ name: x, rows: [] }]\n"),
        ]
        for (name, content) in cases {
            let path: String
            if content == "/dev/zero" {
                path = content
            } else {
                path = directory.appendingPathComponent(name).path
                try content.write(toFile: path, atomically: true, encoding: .utf8)
            }
            let result = try await CommandRunner.run(["test", path])
            #expect(result.status == 2, "\(name): \(result.stdoutText) \(result.stderr)")
            #expect(result.stdoutText.contains("not a valid test file"), "\(name): \(result.stdoutText)")
        }
        let pages = try await CommandRunner.run(["test", directory.appendingPathComponent("pages.test.yaml").path])
        #expect(pages.stdoutText.contains("holds pages, each an array of rows; page 0 is a JSON object"), "\(pages.stdoutText)")
        let missing = try await CommandRunner.run(["test", directory.appendingPathComponent("nopipeline.test.yaml").path])
        #expect(missing.stdoutText.contains("missing required key 'pipeline'"), "\(missing.stdoutText)")
    }

    @Test func noFilesIsAUsageError() async throws {
        let result = try await CommandRunner.run(["test"])
        #expect(result.status == 2)
    }
}
