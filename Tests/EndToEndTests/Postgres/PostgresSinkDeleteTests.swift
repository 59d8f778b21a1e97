import Foundation
import Sandbox
import ScreensBus
import Testing

/// Deletes through the `postgres` sink, with the real binary against the sandbox: `mode:
/// mirror` after complete runs (and kill -9 at random points in between), and tombstones
/// (`deleted:`) that an incremental run reads from the sandbox's trash view.
@Suite("run: the postgres sink applies deletes", .serialized, .enabled(if: TestPostgres.serverURL != nil, TestPostgres.needed))
struct PostgresSinkDeleteTests {
    static let jsonwsBookmarks = """
        source:
          type: liferay-jsonws
          server: ${LIFERAY_SERVER}
          auth: { basic: { username: test@liferay.com, password: test } }
          rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
          count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
          pagination: { first-page-size: 25, page-size: 25, prefetch: 2 }
        convert: { model: bookmark }
        """

    @Test("mirror: killed at random points with deletes in between, then rerun: the table equals the list")
    func mirrorKilledAndRerun() async throws {
        let database = try await TestPostgres.freshDatabase()
        try await withConfiguredSandbox({ $0.faults = FaultPlan(latency: .milliseconds(20)) }) { sandbox in
            try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 3, add: 400))
            let directory = try CommandRunner.temporaryDirectory()
            let file = directory.appendingPathComponent("mirror.yaml").path
            try (Self.jsonwsBookmarks + "\nsink: { type: postgres, url: \"\(database)\", tls: disable, table: bookmarks, key: entryId, batch-size: 30, mode: mirror }\n")
                .write(toFile: file, atomically: true, encoding: .utf8)
            let environment = ["LIFERAY_SERVER": sandbox.server.baseURL]
            let first = try await sandbox.run(file)
            #expect(first.status == 0, "stderr: \(first.stderr)")

            var deleted: [Int64] = []
            var generator = SystemRandomNumberGenerator()
            for round in 0..<3 {
                deleted += try sandbox.server.applyChanges(
                    SandboxChangeRequest(list: .bookmarks, seed: UInt64(20 + round), add: 2, modify: 3, delete: 7)).deleted
                // Keys in the table that the list still has: a killed run must not delete them.
                let kept = Set(try await Self.storedIds(database)).intersection(
                    try await Self.listedIds(file: file, directory: directory, sandbox: sandbox))
                let before = sandbox.server.requestCount
                let running = try RunningCommand(["run", file], environment: environment)
                let killAfter = Int.random(in: 1...20, using: &generator)
                try await waitUntil { sandbox.server.requestCount >= before + killAfter }
                running.send(SIGKILL)
                _ = await running.wait()
                #expect(kept.isSubset(of: try await Self.storedIds(database)))
            }
            let rerun = try await sandbox.run(file)
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")

            let listed = try await Self.listedRows(file: file, directory: directory, sandbox: sandbox)
            let stored = try await Self.storedRows(database)
            // 73 rows, 400 added, then three rounds of 2 added and 7 deleted.
            let expectedCount = 458
            #expect(listed.count == expectedCount)
            #expect(stored == listed)
            // A deleted id may come back as the id of a later added row: only those gone stay gone.
            let listedIds = Set(listed.compactMap { $0["entryId"]?.int64Value })
            #expect(Set(deleted).subtracting(listedIds).isDisjoint(with: stored.compactMap { $0["entryId"]?.int64Value }))
        }
    }

    @Test("mirror: a failed run deletes nothing; a complete one deletes down to the list, even to empty")
    func mirrorDeletesOnlyAfterACompleteRun() async throws {
        let database = try await TestPostgres.freshDatabase()
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("mirror.yaml").path
        try """
            name: mirror
            source:
              type: rest
              server: ${LIFERAY_SERVER}
              url: /rest/bookmarks/offset
              records: data.records
              total: meta.total
              paginate: offset
              pagination: { first-page-size: 10, page-size: 10 }
              retry: { attempts: 1 }
            sink: { type: postgres, url: "\(database)", tls: disable, table: bookmarks, key: entryId, mode: mirror }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        try await withSandbox { sandbox in
            #expect(try await sandbox.run(file).status == 0)
            #expect(try await Self.storedIds(database).count == 73)
            // A key the list does not have.
            try await CommandRunner.shell(
                #"psql -q -v ON_ERROR_STOP=1 "$URL" -c 'INSERT INTO bookmarks ("entryId") VALUES (1)'"#, environment: ["URL": database])
                .expectSuccess()
        }
        // A portal that fails the third page: the run stops with an error and deletes nothing.
        try await withConfiguredSandbox({ $0.faults.failMatching = "offset=20" }) { failing in
            let run = try await failing.run(file)
            #expect(run.status != 0)
            #expect(try await Self.storedIds(database).contains(1))
        }
        try await withSandbox { sandbox in
            #expect(try await sandbox.run(file).status == 0)
            let stored = try await Self.storedIds(database)
            #expect(stored.count == 73)
            #expect(!stored.contains(1))
            // Every row deleted from the portal: a complete run of an empty list empties the table.
            try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 5, delete: 73))
            let empty = try await sandbox.run(file)
            #expect(empty.status == 0, "stderr: \(empty.stderr)")
            #expect(try await Self.storedIds(database).isEmpty)
        }
    }

    @Test("mirror: a page a skip-page rule skipped keeps its rows; an end-list rule deletes nothing unless mirror-after-end-list: delete")
    func mirrorKeepsRowsOfPagesARuleLeftOut() async throws {
        let database = try await TestPostgres.freshDatabase()
        let directory = try CommandRunner.temporaryDirectory()
        func pipeline(_ name: String, extra: String = "") throws -> String {
            let action = name.hasPrefix("end-list") ? "end-list" : name
            let file = directory.appendingPathComponent("mirror-\(name).yaml").path
            try """
                name: mirror-rules
                source:
                  type: rest
                  server: ${LIFERAY_SERVER}
                  url: /rest/bookmarks/offset
                  records: data.records
                  total: meta.total
                  paginate: offset
                  pagination: { first-page-size: 10, page-size: 10 }
                  retry: { attempts: 1 }
                  on-response: [ { status: 503, action: \(action) } ]
                sink: { type: postgres, url: "\(database)", tls: disable, table: bookmarks, key: entryId, mode: mirror\(extra) }
                """.write(toFile: file, atomically: true, encoding: .utf8)
            return file
        }
        let skipPage = try pipeline("skip-page")
        let endList = try pipeline("end-list")
        let endListDeletes = try pipeline("end-list-delete", extra: ", mirror-after-end-list: delete")
        try await withSandbox { sandbox in
            let full = try await sandbox.run(skipPage)
            #expect(full.status == 0, "stderr: \(full.stderr)")
            #expect(try await Self.storedIds(database).count == 73)
        }
        // The third page answers 503 once: skipped, its ten rows are missing, not gone.
        try await withConfiguredSandbox({ $0.faults.failMatching = "offset=20" }) { failing in
            let run = try await failing.run(skipPage)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(run.stderr.contains("skipped"), "stderr: \(run.stderr)")
            #expect(try await Self.storedIds(database).count == 73)
        }
        // The same 503 ends the list: the rows of the pages after it stay by default.
        try await withConfiguredSandbox({ $0.faults.failMatching = "offset=20" }) { failing in
            let run = try await failing.run(endList)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(try await Self.storedIds(database).count == 73)
        }
        // Said to be the real end, it deletes them.
        try await withConfiguredSandbox({ $0.faults.failMatching = "offset=20" }) { failing in
            let run = try await failing.run(endListDeletes)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(try await Self.storedIds(database).count == 20)
        }
    }

    @Test("tombstones: an incremental run over the trash view deletes the keys the portal deleted")
    func tombstonesFromTheTrashView() async throws {
        let database = try await TestPostgres.freshDatabase()
        try await withSandbox { sandbox in
            let directory = try CommandRunner.temporaryDirectory()
            let file = directory.appendingPathComponent("tombstones.yaml").path
            let yaml = """
                name: tombstones
                source:
                  type: rest
                  server: ${LIFERAY_SERVER}
                  url: /rest/bookmarks-with-trash/offset
                  records: data.records
                  total: meta.total
                  query: { modified-since: "{cursor}" }
                  paginate: offset
                  pagination: { first-page-size: 10, page-size: 10 }
                cache: { policy: remote-only, path: \(directory.appendingPathComponent("cache.sqlite").path) }
                incremental: { cursor: modifiedDate, type: date }
                sink:
                  type: postgres
                  url: "\(database)"
                  tls: disable
                  table: bookmarks
                  key: entryId
                  columns: jsonb
                  deleted: { field: status, equals: 8 }
                """
            try yaml.write(toFile: file, atomically: true, encoding: .utf8)
            let full = try await sandbox.run(file)
            #expect(full.status == 0, "stderr: \(full.stderr)")
            #expect(try await Self.storedIds(database).count == 73)

            let report = try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 8, add: 2, modify: 3, delete: 4))
            let changed = try await sandbox.run(file)
            #expect(changed.status == 0, "stderr: \(changed.stderr)")
            let stored = try await Self.storedIds(database)
            let expectedCount = 71  // 73, less 4 deleted, 2 added
            #expect(stored.count == expectedCount)
            #expect(Set(report.deleted).isDisjoint(with: stored))
            #expect(Set(report.added).isSubset(of: stored))

            // The list as the portal serves it now, key for key.
            let listed = try await Self.listedIds(file: file, directory: directory, sandbox: sandbox, source: """
                source: { type: rest, server: "${LIFERAY_SERVER}", url: /rest/bookmarks/offset, records: data.records, total: meta.total, paginate: offset }
                """)
            #expect(Set(listed) == Set(stored))
        }
    }

    // MARK: - Reading both sides

    /// The rows of the list now, as the stdout sink delivers them with `source` (the
    /// pipeline's own by default).
    private static func listedRows(file: String, directory: URL, sandbox: SandboxHarness, source: String = jsonwsBookmarks) async throws -> [[String: JSONValue]] {
        let listFile = directory.appendingPathComponent("to-stdout.yaml").path
        try (source + "\nsink: { type: stdout, format: items }\n").write(toFile: listFile, atomically: true, encoding: .utf8)
        let list = try await sandbox.run(listFile)
        try #require(list.status == 0, "stderr: \(list.stderr)")
        return try list.jsonLines().map(members).sorted { $0["entryId"]!.jsonString < $1["entryId"]!.jsonString }
    }

    private static func listedIds(file: String, directory: URL, sandbox: SandboxHarness, source: String = jsonwsBookmarks) async throws -> [Int64] {
        try await listedRows(file: file, directory: directory, sandbox: sandbox, source: source).compactMap { $0["entryId"]?.int64Value }
    }

    private static func storedRows(_ database: String) async throws -> [[String: JSONValue]] {
        let table = try await CommandRunner.shell(
            #"psql -At -v ON_ERROR_STOP=1 "$URL" -c 'SELECT row_to_json(b) FROM bookmarks AS b ORDER BY "entryId"'"#,
            environment: ["URL": database])
        try #require(table.status == 0, "psql: \(table.stderr)")
        return try table.jsonLines().map(members).sorted { $0["entryId"]!.jsonString < $1["entryId"]!.jsonString }
    }

    private static func storedIds(_ database: String) async throws -> [Int64] {
        let table = try await CommandRunner.shell(
            #"psql -At -v ON_ERROR_STOP=1 "$URL" -c 'SELECT "entryId" FROM bookmarks ORDER BY "entryId"'"#, environment: ["URL": database])
        try #require(table.status == 0, "psql: \(table.stderr)")
        return table.stdoutLines.compactMap { Int64($0) }
    }

    /// An object's members by name (column order and field order need not agree).
    private static func members(_ value: JSONValue) -> [String: JSONValue] {
        guard case .object(let object) = value else { return [:] }
        return Dictionary(object.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}

extension CommandResult {
    /// Fails the test with the command's stderr unless it exited 0.
    func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == 0, "stderr: \(stderr)", sourceLocation: sourceLocation)
    }
}
