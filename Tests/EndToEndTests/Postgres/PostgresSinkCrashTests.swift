import Foundation
import Sandbox
import ScreensBus
import Testing

/// The `postgres` sink with the real binary killed (SIGKILL) at random points of a load:
/// a rerun converges, and the table then holds exactly the list.
@Suite("run: the postgres sink survives kill -9", .enabled(if: TestPostgres.serverURL != nil, TestPostgres.needed))
struct PostgresSinkCrashTests {
    @Test("killed at random points, then rerun: the table equals the list")
    func killedAndRerun() async throws {
        let database = try await TestPostgres.freshDatabase()
        var configuration = SandboxConfiguration()
        configuration.generatedRows = 1_500
        configuration.faults = FaultPlan(latency: .milliseconds(30))
        let server = try await SandboxServer.start(configuration)
        do {
            let directory = try CommandRunner.temporaryDirectory()
            let file = directory.appendingPathComponent("to-postgres.yaml").path
            let source = """
                source:
                  type: liferay-jsonws
                  server: ${LIFERAY_SERVER}
                  auth: { basic: { username: test@liferay.com, password: test } }
                  rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 1000000 } }
                  count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 1000000 } }
                  pagination: { first-page-size: 50, page-size: 50, prefetch: 2 }
                convert: { model: bookmark }
                """
            try (source + "\nsink: { type: postgres, url: \"\(database)\", tls: disable, table: bookmarks, key: entryId, batch-size: 40 }\n")
                .write(toFile: file, atomically: true, encoding: .utf8)
            let environment = ["LIFERAY_SERVER": server.baseURL]
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<3 {
                let before = server.requestCount
                let running = try RunningCommand(["run", file], environment: environment)
                let killAfter = Int.random(in: 1...25, using: &generator)
                try await waitUntil { server.requestCount >= before + killAfter }
                running.send(SIGKILL)
                _ = await running.wait()
            }
            let rerun = try await CommandRunner.run(["run", file], environment: environment)
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")

            // The list as the stdout sink delivers it, and the table, row by row.
            let listFile = directory.appendingPathComponent("to-stdout.yaml").path
            try (source + "\nsink: { type: stdout, format: items }\n").write(toFile: listFile, atomically: true, encoding: .utf8)
            let list = try await CommandRunner.run(["run", listFile], environment: environment)
            #expect(list.status == 0)
            let table = try await CommandRunner.shell(
                #"psql -At -v ON_ERROR_STOP=1 "$URL" -c 'SELECT row_to_json(b) FROM bookmarks AS b ORDER BY "entryId"'"#,
                environment: ["URL": database])
            #expect(table.status == 0, "psql: \(table.stderr)")
            let listed = try list.jsonLines().map(Self.members).sorted { $0["entryId"]!.jsonString < $1["entryId"]!.jsonString }
            let stored = try table.jsonLines().map(Self.members).sorted { $0["entryId"]!.jsonString < $1["entryId"]!.jsonString }
            #expect(listed.count == 1_500)
            #expect(stored.count == listed.count)
            #expect(stored == listed)
        } catch {
            try? await server.stop()
            throw error
        }
        try? await server.stop()
    }

    /// An object's members by name (column order and field order need not agree).
    private static func members(_ value: JSONValue) -> [String: JSONValue] {
        guard case .object(let object) = value else { return [:] }
        return Dictionary(object.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}
