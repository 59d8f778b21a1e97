import Foundation
import ScreensBus
import Testing

/// samples/core-embedder: a program that depends on the `ScreensPipeCore` product alone,
/// built as an example target of this package (its Package.swift shows it as a package of
/// its own). It loads a JSON-WS list as its own `Decodable` type (`rows(as:)`), gets a 401
/// as a thrown error, cancels its loop, and links no database library and no SwiftNIO.
@Suite("Core embedder sample")
struct CoreEmbedderTests {
    /// Beside `$SCREENS_PIPE_BIN` (set by `make test`), else this package's debug build.
    private static func binary(_ name: String) throws -> String {
        let directory =
            ProcessInfo.processInfo.environment["SCREENS_PIPE_BIN"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0).deletingLastPathComponent() }
            ?? CommandRunner.packageRoot.appendingPathComponent(".build/debug")
        let path = directory.appendingPathComponent(name).path
        try #require(FileManager.default.isExecutableFile(atPath: path), "build the \(name) target first (swift build)")
        return path
    }

    /// The Swift modules whose mangled names appear in `binary`'s symbols (`$s4GRDB...`,
    /// `7NIOCore`...): what it links, read from the file itself.
    private static func linkedModules(_ binary: String, among modules: [String]) throws -> Set<String> {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: binary))
        var found: Set<String> = []
        for module in modules {
            // A mangled module name is its length then its name, as in `$s11PostgresNIO...`.
            if bytes.range(of: Data("\(module.utf8.count)\(module)".utf8)) != nil { found.insert(module) }
        }
        return found
    }

    static let heavyModules = ["GRDB", "PostgresNIO", "NIOCore", "NIOPosix", "NIOSSL", "Crypto"]

    @Test("it prints every bookmark of the sandbox, in order, the same rows the CLI delivers")
    func loadsTheListIntoItsOwnSubscriber() async throws {
        let embedder = try Self.binary("core-embedder")
        try await withSandbox { sandbox in
            let result = try await CommandRunner.shell(#""$EMBEDDER""#, environment: ["EMBEDDER": embedder, "PORTAL_URL": sandbox.server.baseURL])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdoutLines
            #expect(lines.count == 73)
            #expect(lines.first == "30001\tLiferay links 01")
            #expect(result.stderr == "core-bookmarks: 73 rows in 2 pages\n")

            let cli = try await sandbox.run("pipelines/bookmarks.yaml")
            #expect(cli.status == 0)
            let expected = try cli.jsonLines().map { row in
                "\(row["entryId"]?.jsonString ?? "")\t\(row["name"]?.stringValue ?? "")"
            }
            #expect(lines == expected)
        }
    }

    @Test("a 401 is a thrown error naming the page and the request, no password in it, and exit 1")
    func unauthorizedIsAThrownFailure() async throws {
        let embedder = try Self.binary("core-embedder")
        try await withSandbox { sandbox in
            let result = try await CommandRunner.shell(
                #""$EMBEDDER""#,
                environment: ["EMBEDDER": embedder, "PORTAL_URL": sandbox.server.baseURL, "PORTAL_PASSWORD": "not-the-password"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stdoutLines.isEmpty)
            let error = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("error: ") }, "\(result.stderr)")
            #expect(error.hasPrefix("error: page 0: "), "\(error)")
            #expect(error.contains("401") && error.contains("/api/jsonws/invoke"), "\(error)")
            #expect(!result.stderr.contains("not-the-password"))
        }
    }

    @Test("cancelling the task that reads the typed rows stops the run: those rows, then exit 130")
    func cancellingTheLoopStopsTheRun() async throws {
        let embedder = try Self.binary("core-embedder")
        try await withSandbox { sandbox in
            let result = try await CommandRunner.shell(
                #""$EMBEDDER""#, environment: ["EMBEDDER": embedder, "PORTAL_URL": sandbox.server.baseURL, "STOP_AFTER": "30"])
            #expect(result.status == 130, "\(result.stderr)")
            #expect(result.stdoutLines.count == 30)
            #expect(result.stdoutLines.first == "30001\tLiferay links 01")
            #expect(result.stderr.contains("stopped"), "\(result.stderr)")
        }
    }

    @Test("its binary links no GRDB, PostgresNIO or SwiftNIO, while the CLI's does")
    func linksNoDatabaseOrNIO() throws {
        let core = try Self.linkedModules(try Self.binary("core-embedder"), among: Self.heavyModules)
        #expect(core.isEmpty, "the core embedder links \(core.sorted())")
        // The same check finds them where they are: it can fail.
        let cli = try Self.linkedModules(try Self.binary("screens-pipe"), among: Self.heavyModules)
        #expect(cli.isSuperset(of: ["GRDB", "PostgresNIO", "NIOCore", "NIOPosix"]), "found only \(cli.sorted()) in the CLI")
    }

    @Test("a cache it does not link is refused before any request, naming the product to add")
    func refusesACacheItDoesNotLink() async throws {
        let embedder = try Self.binary("core-embedder")
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("cached.yaml")
        try """
            name: cached
            source:
              type: liferay-jsonws
              server: http://127.0.0.1:9
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
            cache:
              policy: cache-first
              path: \(directory.path)/cache.sqlite
            """.write(to: file, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.shell(#""$EMBEDDER" "$FILE""#, environment: ["EMBEDDER": embedder, "FILE": file.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("ScreensPipeSQLite product"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("cache.sqlite").path))

        let postgres = """
            name: shared
            source:
              type: liferay-jsonws
              server: http://127.0.0.1:9
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
            sink: { type: postgres, url: "postgres://u@127.0.0.1:9/db", table: t, key: id }
            """
        try postgres.write(to: file, atomically: true, encoding: .utf8)
        let sink = try await CommandRunner.shell(#""$EMBEDDER" "$FILE""#, environment: ["EMBEDDER": embedder, "FILE": file.path])
        #expect(sink.status == 2)
        #expect(sink.stderr.contains("sink type 'postgres' is in the ScreensPipePostgres product"), "\(sink.stderr)")
    }
}
