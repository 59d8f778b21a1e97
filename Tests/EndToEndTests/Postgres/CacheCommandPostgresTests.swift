import Foundation
import ScreensBus
import Testing

/// `screens-pipe cache list|stats|clear` on a PostgreSQL cache (`--cache-url`, or the pipeline
/// file's `cache.url`), with the real binary: the same answers as the SQLite path, and the
/// password (from the URL or PGPASSWORD) in no output.
@Suite("cache: list, stats and clear on PostgreSQL", .enabled(if: TestPostgres.serverURL != nil, TestPostgres.needed))
struct CacheCommandPostgresTests {
    static let password = "Cache-Cmd-Secret-31"

    @Test("list, stats and clear a shared cache; the password is never printed")
    func listStatsAndClear() async throws {
        let database = try await TestPostgres.freshDatabase()
        // The test role is admitted without a password; one is given anyway, to check it never shows.
        let withPassword = database.replacingOccurrences(of: "postgres://screens@", with: "postgres://screens:\(Self.password)@")
        try await withSandbox { sandbox in
            let directory = try CommandRunner.temporaryDirectory()
            let file = directory.appendingPathComponent("shared.yaml").path
            try ("name: shared\n" + PostgresSinkDeleteTests.jsonwsBookmarks + """

                cache: { policy: remote-only, url: "\(database)", tls: disable }
                sink: { type: stdout, format: items }
                """).write(toFile: file, atomically: true, encoding: .utf8)
            let loaded = try await sandbox.run(file, environment: ["PGPASSWORD": Self.password])
            #expect(loaded.status == 0, "stderr: \(loaded.stderr)")

            let secretEnvironment = ["PGPASSWORD": Self.password, "LIFERAY_SERVER": sandbox.server.baseURL]
            let list = try await CommandRunner.run(["cache", "list", "--json", "--cache-url", withPassword + "?sslmode=disable"], environment: secretEnvironment)
            #expect(list.status == 0, "stderr: \(list.stderr)")
            let entries = try list.jsonLines()
            #expect(entries.count == 1)
            #expect(entries.first?["pipeline"] == "shared")
            #expect(entries.first?["pages"] == .int(3))
            #expect(entries.first?["rows"] == .int(73))

            let stats = try await CommandRunner.run(["cache", "stats", "--cache-url", database + "?sslmode=disable"], environment: secretEnvironment)
            #expect(stats.status == 0, "stderr: \(stats.stderr)")
            #expect(stats.stdoutText.contains(database))
            let totals = try await CommandRunner.run(["cache", "stats", "--json", "--cache-url", database + "?sslmode=disable"])
            #expect(try JSONValue(parsing: totals.stdoutText)["rows"] == .int(73))
            #expect(try JSONValue(parsing: totals.stdoutText)["path"] == .string(database))

            // clear --pipeline takes the cache url from the pipeline file.
            let cleared = try await CommandRunner.run(["cache", "clear", "--pipeline", file], environment: secretEnvironment)
            #expect(cleared.status == 0, "stderr: \(cleared.stderr)")
            #expect(cleared.stderr.contains("removed 3 pages"), "\(cleared.stderr)")
            let after = try await CommandRunner.run(["cache", "stats", "--json", "--cache-url", database + "?sslmode=disable"])
            #expect(try JSONValue(parsing: after.stdoutText)["pages"] == .int(0))

            // A server that is not there: a clear error naming it, without the password.
            let nowhere = try await CommandRunner.run(
                ["cache", "list", "--cache-url", "postgres://screens:\(Self.password)@127.0.0.1:1/none?sslmode=disable"], environment: secretEnvironment)
            #expect(nowhere.status != 0)
            #expect(nowhere.stderr.contains("postgres://screens@127.0.0.1:1/none"), "\(nowhere.stderr)")

            let refused = try await CommandRunner.run(["cache", "list", "--cache-url", database, "--path", "/tmp/x.sqlite"])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("--cache-url names a PostgreSQL cache"), "\(refused.stderr)")

            for result in [list, stats, cleared, after, nowhere, refused] {
                #expect(!result.stdoutText.contains(Self.password))
                #expect(!result.stderr.contains(Self.password))
            }
        }
    }
}
