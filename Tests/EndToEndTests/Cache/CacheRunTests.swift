import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

/// The offline policies with the real binary, a real SQLite file and the sandbox up,
/// down, and refusing credentials.
@Suite("run: cache policies end to end")
struct CacheRunTests {
    static let bookmarks = "pipelines/bookmarks.yaml"

    /// A run with its own cache directory.
    private func run(
        _ harness: SandboxHarness?, _ arguments: [String], cacheDirectory: URL, environment: [String: String] = [:],
        server: String? = nil
    ) async throws -> CommandResult {
        var environment = environment
        environment["SCREENS_PIPE_CACHE_DIR"] = cacheDirectory.path
        environment["LIFERAY_SERVER"] = server ?? harness?.server.baseURL ?? "http://127.0.0.1:9"
        return try await CommandRunner.run(["run", Self.bookmarks] + arguments, environment: environment)
    }

    private func origins(_ result: CommandResult) throws -> [String] {
        try result.jsonLines().filter { $0["event"] == "response" }.compactMap { $0["origin"]?.stringValue }
    }

    private func items(_ result: CommandResult) throws -> [JSONValue] {
        try result.jsonLines().filter { $0["event"] == "selected" }.compactMap { $0["item"] }
    }

    @Test("remote-first: stores pages, then serves them when the server is unreachable")
    func remoteFirstFallsBackOnConnectivity() async throws {
        let cache = try CommandRunner.temporaryDirectory()
        let harness = try await SandboxHarness.start()
        let online = try await run(harness, ["--events"], cacheDirectory: cache)
        try await harness.stopRefusing()
        #expect(online.status == 0, "stderr: \(online.stderr)")
        #expect(try origins(online) == ["remote", "remote"])
        // Nothing listens on the port any more: connection refused, so the cache answers.
        let offline = try await run(nil, ["--events", "--set", "source.retry.attempts=1"], cacheDirectory: cache, server: harness.server.baseURL)
        #expect(offline.status == 0, "stderr: \(offline.stderr)")
        #expect(try origins(offline) == ["cache", "cache"])
        #expect(try items(offline) == items(online))
    }

    @Test("server: sandbox keys the cache by 'sandbox', not by the port it happened to get")
    func sandboxKeyIgnoresPort() async throws {
        let cache = try CommandRunner.temporaryDirectory()
        let environment = ["SCREENS_PIPE_CACHE_DIR": cache.path]
        let online = try await CommandRunner.run(["run", Self.bookmarks], environment: environment)
        #expect(online.status == 0, "stderr: \(online.stderr)")
        // A second in-process sandbox gets another port; cache-only must still find the pages.
        let replay = try await CommandRunner.run(["run", Self.bookmarks, "--policy", "cache-only"], environment: environment)
        #expect(replay.status == 0, "stderr: \(replay.stderr)")
        #expect(replay.stdoutLines == online.stdoutLines)
        let listed = try await CommandRunner.run(["cache", "list", "--cache-dir", cache.path])
        #expect(listed.stdoutText.contains(#""server":"sandbox""#))
    }

    @Test("remote-first does not fall back on 401: bad credentials are not a network failure")
    func remoteFirstNoFallbackOnAuth() async throws {
        let cache = try CommandRunner.temporaryDirectory()
        try await withSandbox { harness in
            _ = try await run(harness, [], cacheDirectory: cache)
            let denied = try await run(harness, ["--events"], cacheDirectory: cache, environment: ["LIFERAY_PASSWORD": "wrong"])
            #expect(denied.status == 1)
            #expect(try items(denied).isEmpty)
        }
    }

    @Test("cache-only serves a stored list without any request, and fails clearly on a miss")
    func cacheOnly() async throws {
        let cache = try CommandRunner.temporaryDirectory()
        try await withSandbox { harness in
            let miss = try await run(harness, ["--policy", "cache-only"], cacheDirectory: cache)
            #expect(miss.status == 1)
            #expect(miss.stderr.contains("not in the cache"))
            _ = try await run(harness, [], cacheDirectory: cache)
            let before = harness.server.requestCount
            let hit = try await run(harness, ["--policy", "cache-only"], cacheDirectory: cache)
            #expect(hit.status == 0, "stderr: \(hit.stderr)")
            #expect(hit.stdoutLines.count == 73)
            #expect(harness.server.requestCount == before)
        }
    }

    @Test("cache-and-remote emits the cached page first, then the fresh one, rows once")
    func cacheAndRemote() async throws {
        let cache = try CommandRunner.temporaryDirectory()
        try await withSandbox { harness in
            _ = try await run(harness, [], cacheDirectory: cache)
            let both = try await run(harness, ["--events", "--policy", "cache-and-remote"], cacheDirectory: cache)
            #expect(both.status == 0, "stderr: \(both.stderr)")
            #expect(try origins(both) == ["cache", "remote", "cache", "remote"])
            #expect(try items(both).count == 73)
        }
    }

    @Test("users and locales never share cached pages")
    func keySeparation() async throws {
        let cache = try CommandRunner.temporaryDirectory()
        try await withSandbox { harness in
            _ = try await run(harness, [], cacheDirectory: cache)
            let joe = ["LIFERAY_USER": "joe@liferay.com", "LIFERAY_PASSWORD": "joe"]
            let joeCacheOnly = try await run(harness, ["--policy", "cache-only"], cacheDirectory: cache, environment: joe)
            #expect(joeCacheOnly.status == 1)
            let joeOnline = try await run(harness, [], cacheDirectory: cache, environment: joe)
            #expect(joeOnline.stdoutLines.count == 62)
            let otherLocale = try await run(harness, ["--policy", "cache-only", "--set", "convert.locale=es_ES"], cacheDirectory: cache)
            #expect(otherLocale.status == 1)
        }
    }

    @Test("--refresh fetches every page again")
    func refresh() async throws {
        let cache = try CommandRunner.temporaryDirectory()
        try await withSandbox { harness in
            _ = try await run(harness, ["--policy", "cache-first"], cacheDirectory: cache)
            let before = harness.server.requestCount
            let cached = try await run(harness, ["--policy", "cache-first"], cacheDirectory: cache)
            #expect(cached.status == 0)
            #expect(harness.server.requestCount == before)
            let refreshed = try await run(harness, ["--policy", "cache-first", "--refresh"], cacheDirectory: cache)
            #expect(refreshed.status == 0)
            #expect(harness.server.requestCount == before + 2)
        }
    }

    @Test("two runs on one database at once both succeed")
    func concurrentRuns() async throws {
        let cache = try CommandRunner.temporaryDirectory()
        try await withSandbox(generatedRows: 20_000) { harness in
            let arguments = [
                "--set", "source.rows.params.folderId=1000000", "--set", "source.count.params.folderId=1000000",
                "--set", "source.pagination.page-size=500",
            ]
            async let first = run(harness, arguments, cacheDirectory: cache)
            async let second = run(harness, arguments, cacheDirectory: cache)
            let (a, b) = try await (first, second)
            #expect(a.status == 0, "stderr: \(a.stderr)")
            #expect(b.status == 0, "stderr: \(b.stderr)")
            #expect(a.stdoutLines.count == 20_000)
            #expect(a.stdoutLines == b.stdoutLines)
            let store = try CacheStore(path: cache.appendingPathComponent("cache.sqlite").path)
            #expect(try store.integrityCheck() == ["ok"])
        }
    }

    @Test("kill -9 in the middle of writing leaves a database that opens and checks ok")
    func killDuringWrites() async throws {
        let cache = try CommandRunner.temporaryDirectory()
        try await withSandbox(generatedRows: 200_000) { harness in
            // Each kill waits for the run to have delivered some rows (so pages are being
            // stored), not for a fixed time: on a loaded machine a fixed sleep can kill the run
            // before its first write. Rows reach the file in 64 KiB blocks. The file is created
            // before the run starts, so the watching loop never reads a file not there yet.
            let output = cache.appendingPathComponent("rows.jsonl").path
            for rows in [1, 20_000, 80_000] {
                let result = try await CommandRunner.shell(
                    #": >"$OUT"; "$SP" run pipelines/bookmarks.yaml --set source.rows.params.folderId=1000000 --set source.count.params.folderId=1000000 --set source.pagination.page-size=200 >>"$OUT" & pid=$!; n=0; while [ "$(wc -l <"$OUT")" -lt \#(rows) ] && [ $n -lt 6000 ]; do sleep 0.05; n=$((n+1)); done; kill -9 $pid; wait $pid; echo "status=$?" >&2"#,
                    environment: ["LIFERAY_SERVER": harness.server.baseURL, "SCREENS_PIPE_CACHE_DIR": cache.path, "OUT": output])
                #expect(result.stderr.contains("status=137"), "stderr: \(result.stderr)")
                let store = try CacheStore(path: cache.appendingPathComponent("cache.sqlite").path)
                #expect(try store.integrityCheck() == ["ok"])
            }
            // By the last kill the run had stored pages: the kills really hit a writing run.
            let store = try CacheStore(path: cache.appendingPathComponent("cache.sqlite").path)
            #expect(try store.stats().pages > 0)
        }
    }

    @Test("cache stats counts the pages; cache clear --pipeline removes exactly that pipeline's")
    func statsAndClear() async throws {
        let cache = try CommandRunner.temporaryDirectory()
        try await withSandbox { harness in
            _ = try await run(harness, [], cacheDirectory: cache)
            let stats = try await CommandRunner.run(["cache", "stats", "--json", "--cache-dir", cache.path])
            #expect(stats.status == 0, "stderr: \(stats.stderr)")
            #expect(try JSONValue(parsing: stats.stdoutText)["pages"] == .int(2))
            let cleared = try await CommandRunner.run(
                ["cache", "clear", "--pipeline", Self.bookmarks, "--cache-dir", cache.path],
                environment: ["LIFERAY_SERVER": harness.server.baseURL])
            #expect(cleared.status == 0, "stderr: \(cleared.stderr)")
            #expect(cleared.stderr.contains("removed 2 pages"))
            let replay = try await run(harness, ["--policy", "cache-only"], cacheDirectory: cache)
            #expect(replay.status == 1)
        }
    }

    @Test("the database is 0600 in a 0700 directory")
    func fileModes() async throws {
        let cache = try CommandRunner.temporaryDirectory().appendingPathComponent("nested/screens-pipe")
        try await withSandbox { harness in
            let result = try await run(harness, [], cacheDirectory: cache)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let directoryMode = try FileManager.default.attributesOfItem(atPath: cache.path)[.posixPermissions] as? Int
            let fileMode = try FileManager.default.attributesOfItem(atPath: cache.appendingPathComponent("cache.sqlite").path)[.posixPermissions] as? Int
            #expect(directoryMode == 0o700)
            #expect(fileMode == 0o600)
        }
    }
}
