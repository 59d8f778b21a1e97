import Foundation
import Sandbox
import ScreensBus
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `run --follow` into the `postgres` sink (`mode: upsert`), with the real binary against the
/// sandbox and a real PostgreSQL: the table follows the portal's adds, changes and deletes,
/// also when the follow is killed with SIGKILL and started again.
@Suite("run --follow: the postgres sink follows the list", .serialized, .enabled(if: TestPostgres.serverURL != nil, TestPostgres.needed))
struct FollowPostgresTests {
    private static func pipeline(in directory: URL, database: String) throws -> String {
        let file = directory.appendingPathComponent("follow-pg.yaml").path
        try """
            name: follow-pg
            \(PostgresSinkDeleteTests.jsonwsBookmarks)
            cache: { policy: remote-only, path: \(directory.appendingPathComponent("cache.sqlite").path) }
            sink: { type: postgres, url: "\(database)", tls: disable, table: bookmarks, key: entryId, batch-size: 30 }

            """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The portal's list, as `run` writes it, by key.
    private static func listed(_ sandbox: SandboxHarness, directory: URL) async throws -> [Int64: [String: JSONValue]] {
        let file = directory.appendingPathComponent("list.yaml").path
        try (PostgresSinkDeleteTests.jsonwsBookmarks + "\nsink: { type: stdout, format: items }\n").write(toFile: file, atomically: true, encoding: .utf8)
        let list = try await sandbox.run(file)
        try #require(list.status == 0, "stderr: \(list.stderr)")
        return try Self.byKey(list.jsonLines())
    }

    private static func stored(_ database: String) async throws -> [Int64: [String: JSONValue]] {
        let table = try await CommandRunner.shell(
            #"psql -At -v ON_ERROR_STOP=1 "$URL" -c 'SELECT row_to_json(b) FROM bookmarks AS b'"#, environment: ["URL": database])
        guard table.status == 0 else { return [:] }  // no table yet
        return try Self.byKey(table.jsonLines())
    }

    private static func byKey(_ rows: [JSONValue]) throws -> [Int64: [String: JSONValue]] {
        var result: [Int64: [String: JSONValue]] = [:]
        for row in rows {
            guard case .object(let object) = row else { continue }
            let members = Dictionary(object.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            result[try #require(members["entryId"]?.int64Value)] = members
        }
        return result
    }

    /// Waits until the table holds exactly the portal's list (or fails after the timeout).
    private static func waitUntilTableEqualsList(_ database: String, _ sandbox: SandboxHarness, directory: URL) async throws {
        let list = try await listed(sandbox, directory: directory)
        let deadline = ContinuousClock.now + .seconds(60)
        var table: [Int64: [String: JSONValue]] = [:]
        while ContinuousClock.now < deadline {
            table = try await stored(database)
            if table == list { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        Issue.record("the table never equalled the list: \(Set(table.keys).symmetricDifference(list.keys).sorted()) differ in key")
    }

    private static func lastSequence(_ database: String) async throws -> Int64? {
        let result = try await CommandRunner.shell(
            #"psql -At -v ON_ERROR_STOP=1 "$URL" -c 'SELECT sequence FROM screens_pipe_follow_sequences'"#, environment: ["URL": database])
        return result.stdoutLines.first.flatMap { Int64($0) }
    }

    @Test("the table follows adds, changes and deletes, through kill -9 and restarts")
    func theTableFollowsThePortal() async throws {
        let database = try await TestPostgres.freshDatabase()
        try await withConfiguredSandbox({ $0.faults = FaultPlan(latency: .milliseconds(10)) }) { sandbox in
            let directory = try CommandRunner.temporaryDirectory()
            let file = try Self.pipeline(in: directory, database: database)
            let environment = ["LIFERAY_SERVER": sandbox.server.baseURL]
            var running = try RunningCommand(["run", file, "--follow", "200ms"], environment: environment)
            try await Self.waitUntilTableEqualsList(database, sandbox, directory: directory)
            #expect(try await Self.lastSequence(database) == 73)

            let report = try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 5, add: 2, modify: 3, delete: 2))
            #expect(!Set(report.deleted).subtracting(report.added).isEmpty)
            try await Self.waitUntilTableEqualsList(database, sandbox, directory: directory)

            for (round, delay) in [5, 60, 150, 300].enumerated() {
                try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: UInt64(40 + round), add: 2, modify: 2, delete: 2))
                try await Task.sleep(for: .milliseconds(delay))
                running.send(SIGKILL)
                _ = await running.wait()
                running = try RunningCommand(["run", file, "--follow", "200ms"], environment: environment)
            }
            try await Self.waitUntilTableEqualsList(database, sandbox, directory: directory)
            running.send(SIGTERM)
            let (status, stderr) = await running.wait()
            #expect(status == 143, "\(stderr)")
            #expect(stderr.contains("deleted"), "\(stderr)")
            #expect(try await Self.lastSequence(database) ?? 0 > 73)
        }
    }

    @Test("mode: mirror is refused for a follow")
    func mirrorIsRefused() async throws {
        let database = try await TestPostgres.freshDatabase()
        try await withSandbox { sandbox in
            let directory = try CommandRunner.temporaryDirectory()
            let file = try Self.pipeline(in: directory, database: database)
            try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "batch-size: 30 }", with: "batch-size: 30, mode: mirror }")
                .write(toFile: file, atomically: true, encoding: .utf8)
            let result = try await CommandRunner.run(["run", file, "--follow", "200ms"], environment: ["LIFERAY_SERVER": sandbox.server.baseURL])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("mode: upsert"), "\(result.stderr)")
        }
    }
}
