import Foundation
import ScreensBus
import ScreensPipe
import ScreensPipeTesting
import Testing

/// The environment's typed settings: where the default cache lives, and the wall clock.
@Suite("Pipeline environment settings")
struct PipelineEnvironmentSettingsTests {
    static let rows: [JSONValue] = (0..<5).map { ["n": .int(Int64($0))] }

    /// A list of five rows cached with `cache` and no `path:`, so the environment decides.
    static func spec(_ source: ScriptedSource, cache: CacheSpec = CacheSpec(policy: .cacheFirst, ttl: .seconds(3600))) -> PipelineSpec {
        PipelineSpec(
            name: "settings", source: SourceSpec(type: .custom(source), pagination: PaginationSpec(firstPageSize: 5, pageSize: 5)),
            cache: cache, sink: SinkSpec(destination: .discard))
    }

    @Test("by default a cache with no path and no directory in the variables is refused, and nothing is written under HOME")
    func noDefaultDirectory() async throws {
        let home = try TemporaryDirectory()
        let source = ScriptedSource(rows: Self.rows)
        // HOME points at an empty directory: the old default would have made .cache in it.
        let environment = PipelineEnvironment(variables: ["HOME": home.path])
        let thrown = await #expect(throws: ScreensPipeError.self) { _ = try await Pipeline(spec: Self.spec(source), environment: environment).run() }
        #expect(thrown?.code == .configuration)
        #expect(thrown?.message.contains("PipelineEnvironment.cacheDirectory") == true, "\(String(describing: thrown))")
        #expect(thrown?.summary == nil)
        #expect(source.fetches == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty)
        // What the command line uses: the user's cache under HOME, when asked.
        var asked = environment
        asked.cacheDirectory = .userCache
        let run = try await Pipeline(spec: Self.spec(source), environment: asked).run()
        #expect(run.selected == 5)
        #expect(FileManager.default.fileExists(atPath: home.path + "/.cache/screens-pipe/cache.sqlite"))
    }

    @Test("the variables still name the directory, and a typed directory wins over them")
    func directories() async throws {
        let fromVariable = try TemporaryDirectory()
        let typed = try TemporaryDirectory()
        let source = ScriptedSource(rows: Self.rows)
        _ = try await Pipeline(spec: Self.spec(source), environment: PipelineEnvironment(variables: ["SCREENS_PIPE_CACHE_DIR": fromVariable.path])).run()
        #expect(FileManager.default.fileExists(atPath: fromVariable.path + "/cache.sqlite"))

        let environment = PipelineEnvironment(variables: ["SCREENS_PIPE_CACHE_DIR": fromVariable.path], cacheDirectory: .directory(typed.path + "/nested"))
        _ = try await Pipeline(spec: Self.spec(source), environment: environment).run()
        #expect(FileManager.default.fileExists(atPath: typed.path + "/nested/cache.sqlite"))
    }

    @Test("the cache's ttl is measured on the environment's clock")
    func clockAgesTheCache() async throws {
        let directory = try TemporaryDirectory()
        let source = ScriptedSource(rows: Self.rows)
        let fetchedAt = Date(timeIntervalSince1970: 1_800_000_000)
        source.fetchedAt = fetchedAt
        func run(at now: Date) async throws -> RecordedRun {
            let environment = PipelineEnvironment(cacheDirectory: .directory(directory.path), clock: .fixed(now))
            return try await RecordedRun(Pipeline(spec: Self.spec(source), environment: environment))
        }
        let first = try await run(at: fetchedAt)
        #expect(first.responses.map(\.origin) == [.remote])
        // Within the hour's ttl the page comes from the cache, after it from the server.
        let fresh = try await run(at: fetchedAt.addingTimeInterval(3599))
        #expect(fresh.responses.map(\.origin) == [.cache])
        let stale = try await run(at: fetchedAt.addingTimeInterval(3601))
        #expect(stale.responses.map(\.origin) == [.remote])
        #expect(source.fetches == 2)
    }
}
