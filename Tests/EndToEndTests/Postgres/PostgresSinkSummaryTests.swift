import Foundation
import Testing

/// The `postgres` sink ends a run with a summary line, as a file sink names its file.
@Suite("run: the postgres sink's summary", .enabled(if: TestPostgres.serverURL != nil, TestPostgres.needed))
struct PostgresSinkSummaryTests {
    @Test("the rows written, the table and the database (no password) on stderr; nothing with --quiet")
    func summaryLine() async throws {
        let database = try await TestPostgres.freshDatabase()
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("to-table.yaml").path
        try """
            source: { type: file, path: \(CommandRunner.packageRoot.path)/samples/offline/bookmarks.json }
            convert: { model: bookmark }
            sink: { type: postgres, url: "\(database)", tls: disable, table: bookmarks, key: entryId, batch-size: 5 }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", file])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let rows = try #require(try String(contentsOfFile: "\(CommandRunner.packageRoot.path)/samples/offline/bookmarks.json", encoding: .utf8)
            .components(separatedBy: "\"entryId\"").count - 1)
        let shown = try #require(database.firstMatch(of: /postgres:\/\/([^:@\/]+)(:[^@]*)?@([^\/]+)\/(.+)/))
        #expect(
            result.stderr.contains("screens-pipe: wrote \(rows) rows to table bookmarks in postgres://\(shown.1)@"), "stderr: \(result.stderr)")
        #expect(result.stderr.hasSuffix("/\(shown.4)\n"), "stderr: \(result.stderr)")
        if let password = shown.2, password.count > 1 { #expect(!result.stderr.contains(password.dropFirst())) }
        let quiet = try await CommandRunner.run(["run", file, "--quiet"])
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty, "stderr: \(quiet.stderr)")
    }
}
