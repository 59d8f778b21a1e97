import Foundation
import Sandbox
import ScreensBus
import Testing

/// The real binary, several processes at once, one PostgreSQL cache (the throwaway server
/// `make test` starts): one process fetches a list, the others deliver the same rows from it.
/// The throwaway PostgreSQL server `make test` starts (scripts/pg-test-cluster.sh).
enum TestPostgres {
    static let serverURL = ProcessInfo.processInfo.environment["SCREENS_PIPE_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    /// The note a skipped test shows; `make test` counts these.
    static let needed: Comment = "needs PostgreSQL (SCREENS_PIPE_TEST_POSTGRES_URL; make test starts one)"

    /// A new database on the test server (through psql, which ships with the server); its URL.
    static func freshDatabase() async throws -> String {
        let url = try #require(serverURL)
        let name = "e2e_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let created = try await CommandRunner.shell(#"psql -q -v ON_ERROR_STOP=1 "$URL" -c "CREATE DATABASE $NAME""#, environment: ["URL": url, "NAME": name])
        try #require(created.status == 0, "psql: \(created.stderr)")
        let base = try #require(url.range(of: "/", options: .backwards))
        return String(url[..<base.upperBound]) + name
    }
}

@Suite("run: a fleet of processes on one PostgreSQL cache", .enabled(if: TestPostgres.serverURL != nil, TestPostgres.needed))
struct SharedCacheFleetTests {

    /// The bookmarks pipeline with its cache in `databaseURL`, in a directory of its own.
    private func pipeline(databaseURL: String, policy: String, folder: Int = 0) throws -> String {
        let directory = try CommandRunner.temporaryDirectory()
        let path = directory.appendingPathComponent("shared.yaml").path
        let yaml = """
            name: shared
            source:
              type: liferay-jsonws
              server: ${LIFERAY_SERVER}
              auth: { basic: { username: test@liferay.com, password: test } }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: \(folder) } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: \(folder) } }
              pagination: { first-page-size: 50, page-size: 25, prefetch: 4 }
              retry: { attempts: 1 }
            convert: { model: bookmark }
            cache: { policy: \(policy), ttl: 1h, url: "\(databaseURL)", tls: disable }
            sink: { type: stdout, format: items }
            """
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("three processes refresh one list at once: exactly one fetches, all deliver identical rows")
    func threeProcessesOneFetch() async throws {
        let database = try await TestPostgres.freshDatabase()
        let file = try pipeline(databaseURL: database, policy: "cache-first")
        try await withSandbox { harness in
            // What one load of the list costs at the portal, measured on a cache of its own.
            let alone = try await harness.run(try pipeline(databaseURL: try await TestPostgres.freshDatabase(), policy: "remote-only"))
            try #require(alone.status == 0, "stderr: \(alone.stderr)")
            let requestsPerLoad = harness.server.requestCount
            try #require(requestsPerLoad >= 2)

            let results = try await withThrowingTaskGroup(of: CommandResult.self) { group in
                for _ in 0..<3 { group.addTask { try await harness.run(file) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for result in results { #expect(result.status == 0, "stderr: \(result.stderr)") }
            #expect(harness.server.requestCount - requestsPerLoad == requestsPerLoad)
            #expect(results.allSatisfy { $0.stdoutLines == alone.stdoutLines })
            #expect(alone.stdoutLines.count == 73)
        }
    }

    @Test("a process killed mid-refresh leaves the previous snapshot readable and the lock free")
    func killedMidRefresh() async throws {
        let database = try await TestPostgres.freshDatabase()
        // The generated folder: 2,000 rows, 80 pages, each answered after 150 ms.
        var configuration = SandboxConfiguration()
        configuration.generatedRows = 2_000
        configuration.faults = FaultPlan(latency: .milliseconds(150))
        let server = try await SandboxServer.start(configuration)
        // Stopped whatever happens, and waited for: the next test never shares the machine with it.
        do {
            let environment = ["LIFERAY_SERVER": server.baseURL]
            let remoteFirst = try pipeline(databaseURL: database, policy: "remote-first", folder: 1_000_000)
            let first = try await CommandRunner.run(["run", remoteFirst], environment: environment)
            try #require(first.status == 0, "stderr: \(first.stderr)")
            try #require(first.stdoutLines.count == 2_000)

            let before = server.requestCount
            let refreshing = try RunningCommand(["run", remoteFirst, "--refresh"], environment: environment)
            try await waitUntil { server.requestCount >= before + 6 }
            refreshing.send(SIGKILL)
            _ = await refreshing.wait()

            let cacheOnly = try pipeline(databaseURL: database, policy: "cache-only", folder: 1_000_000)
            let replay = try await CommandRunner.run(["run", cacheOnly], environment: environment)
            #expect(replay.status == 0, "stderr: \(replay.stderr)")
            #expect(replay.stdoutLines == first.stdoutLines)
            // The dead process's lock went with its connection: a refresh gets its turn and completes.
            let again = try await CommandRunner.run(["run", remoteFirst, "--refresh"], environment: environment)
            #expect(again.status == 0, "stderr: \(again.stderr)")
            #expect(again.stdoutLines == first.stdoutLines)
        } catch {
            try? await server.stop()
            throw error
        }
        try? await server.stop()
    }
}
