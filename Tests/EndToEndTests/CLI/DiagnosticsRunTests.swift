import Foundation
import Testing

/// Diagnostics a user pointing screens-pipe at the wrong thing sees: a web page instead of
/// JSON names its content type and the start of the body; a filter error is reported with
/// the file's other mistakes, not after them.
@Suite("diagnostics")
struct DiagnosticsRunTests {
    @Test func aWebPageInsteadOfJSONNamesItsContentTypeAndStart() async throws {
        let server = try RecordingServer(host: "127.0.0.1") { _ in
            .init(headers: [("Content-Type", "text/html; charset=utf-8")], body: "<!DOCTYPE html>\n<html><head><title>Welcome</title></head></html>")
        }
        defer { server.stop() }
        let directory = try CommandRunner.temporaryDirectory()
        let pipeline = directory.appendingPathComponent("page.yaml")
        try """
            source:
              type: rest
              url: \(server.origin)/web/guest/home
              paginate: offset
              retry: { attempts: 1 }
            """.write(to: pipeline, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", pipeline.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains(#"text/html; charset=utf-8, the body starts with "<!DOCTYPE html>\u{a}<html><head><title>Welcome"#), "\(result.stderr)")
    }

    @Test func aFilterErrorIsReportedWithTheOtherMistakes() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let pipeline = directory.appendingPathComponent("p.yaml")
        try """
            source: { type: file, path: x.json, pagenation: {} }
            filter: { where: 'name ==' }
            """.write(to: pipeline, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["validate", pipeline.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(pipeline.path):1:37: unknown key 'pagenation' in source"), "\(result.stderr)")
        #expect(result.stderr.contains("\(pipeline.path):2:26: expected a value or a field"), "the filter error is reported too: \(result.stderr)")
    }
}

/// Positions inside a literal block (`where: |`) are the file's own lines and columns.
@Suite("diagnostics: block scalars")
struct BlockScalarPositionTests {
    @Test func anErrorOnTheSecondLineOfAWhereBlock() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let pipeline = directory.appendingPathComponent("block.yaml")
        try "source: { type: file, path: x.json }\nfilter:\n  where: |\n    name == \"a\" and\n      url ==< 3\n"
            .write(to: pipeline, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["validate", pipeline.path])
        #expect(result.status == 2)
        // Line 5, column 13: the '<' after 'url ==' (the block is indented 4 columns).
        #expect(result.stderr.hasPrefix("\(pipeline.path):5:13: "), "\(result.stderr)")
        #expect(result.stderr.contains("at line 2, column"), "\(result.stderr)")
    }

    @Test func anErrorOnTheFirstLineOfAWhereBlock() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let pipeline = directory.appendingPathComponent("block.yaml")
        try "source: { type: file, path: x.json }\nfilter:\n  where: |\n    name =! \"a\"\n".write(to: pipeline, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["validate", pipeline.path])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("\(pipeline.path):4:10: "), "\(result.stderr)")
    }
}
