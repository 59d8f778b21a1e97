import ArgumentParser
import Foundation
import ScreensBus
import ScreensPipe

/// `screens-pipe cache list|stats|clear`: looks after the local page cache.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "List, summarize or clear the local page cache.",
        discussion: """
            The cache is one SQLite database: --path FILE, else --cache-dir
            DIR/cache.sqlite, else $SCREENS_PIPE_CACHE_DIR/cache.sqlite, else
            $XDG_CACHE_HOME/screens-pipe/cache.sqlite, else
            ~/.cache/screens-pipe/cache.sqlite. A cache shared in PostgreSQL is
            named by --cache-url postgres://user@host:port/database (or by the
            cache url of the pipeline file given to clear --pipeline); its
            password comes from PGPASSWORD and is never printed.
            """,
        subcommands: [List.self, Stats.self, Clear.self])

    /// Where the database is: shared by every subcommand.
    struct Location: ParsableArguments {
        @Option(name: .customLong("cache-dir"), help: ArgumentHelp("The cache directory.", valueName: "dir"))
        var cacheDirectory: String?

        @Option(help: ArgumentHelp("The cache database file (wins over --cache-dir).", valueName: "file"))
        var path: String?

        @Option(
            name: .customLong("cache-url"),
            help: ArgumentHelp(
                "A PostgreSQL cache: postgres://user@host:port/database[?sslmode=require] (password from PGPASSWORD).",
                valueName: "url"))
        var cacheURL: String?

        @Option(
            name: .customLong("ca-file"),
            help: ArgumentHelp("With --cache-url: a PEM file of the certificate authorities to trust.", valueName: "file"))
        var caFile: String?

        func validate() throws {
            if cacheURL != nil, path != nil || cacheDirectory != nil {
                throw ValidationError("--cache-url names a PostgreSQL cache; --path and --cache-dir name a SQLite file: give one")
            }
            if caFile != nil, cacheURL == nil { throw ValidationError("--ca-file applies only with --cache-url") }
        }

        /// The PostgreSQL cache of `--cache-url`, else of the pipeline's `cache: { url: }`; nil for SQLite.
        func postgresTarget(configured: PostgresTarget? = nil) throws(ScreensPipeError) -> PostgresTarget? {
            let environment = ProcessInfo.processInfo.environment
            if let cacheURL { return try PostgresTarget(url: cacheURL, caFile: caFile, environment: environment) }
            if path == nil, cacheDirectory == nil, let configured { return configured.resolvingPassword(environment: environment) }
            return nil
        }

        /// Where the cache is, for messages: a file path or a URL without its password.
        func describe(configuredPath: String? = nil, configured: PostgresTarget? = nil) -> String {
            if let target = try? postgresTarget(configured: configured) { return target.description }
            return resolve(configuredPath: configuredPath).path
        }

        /// The cache to look at: PostgreSQL (connected, its tables created when missing), or
        /// the SQLite file when it exists; nil when there is no file yet.
        func openBackend(configuredPath: String? = nil, configured: PostgresTarget? = nil) async throws(ScreensPipeError) -> (any CacheBackend)? {
            if let target = try postgresTarget(configured: configured) { return try await PostgresCacheStore.open(target) }
            return try openExisting(configuredPath: configuredPath)
        }

        /// The database file, and whether its directory is the cache's own (tightened to 0700).
        func resolve(configuredPath: String? = nil) -> (path: String, ownsDirectory: Bool) {
            if let path { return (path, false) }
            if let cacheDirectory {
                let directory = cacheDirectory.hasSuffix("/") ? cacheDirectory : cacheDirectory + "/"
                return (directory + "cache.sqlite", true)
            }
            if let configuredPath { return (configuredPath, false) }
            return (CacheStore.defaultPath(environment: ProcessInfo.processInfo.environment), true)
        }

        /// The store, or nil when there is no database yet: looking must not create one.
        func openExisting(configuredPath: String? = nil) throws(ScreensPipeError) -> CacheStore? {
            let (path, ownsDirectory) = resolve(configuredPath: configuredPath)
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            return try CacheStore(path: path, ownsDirectory: ownsDirectory)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One line per cache key: pipeline, pages, rows, bytes, newest fetch, key.")

        @OptionGroup var location: Location

        @Flag(help: "Write one JSON object per key instead of columns.")
        var json = false

        mutating func run() async throws {
            try await reportingErrors { () async throws(ScreensPipeError) in
                guard let store = try await location.openBackend() else {
                    Terminal.note("no cache database at \(location.resolve().path)")
                    return
                }
                let entries = try await closing(store) { store throws(ScreensPipeError) in try await store.entries() }
                if json {
                    for entry in entries { print(Self.object(entry).jsonString) }
                    return
                }
                var table = [["PIPELINE", "PAGES", "ROWS", "BYTES", "FETCHED", "KEY"]]
                for entry in entries {
                    table.append([
                        entry.pipeline, String(entry.pages), String(entry.rows), String(entry.bytes),
                        timestamp(entry.newestFetch), entry.key,
                    ])
                }
                printColumns(table)
            }
        }

        static func object(_ entry: CacheEntrySummary) -> JSONValue {
            [
                "key": .string(entry.key), "pipeline": .string(entry.pipeline), "pages": .int(Int64(entry.pages)),
                "rows": .int(Int64(entry.rows)), "rowCount": entry.rowCount.map { .int(Int64($0)) } ?? .null,
                "bytes": .int(Int64(entry.bytes)), "oldestFetch": .string(timestamp(entry.oldestFetch)),
                "newestFetch": .string(timestamp(entry.newestFetch)),
            ]
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The database path and size, and how many keys, pages and rows it holds.")

        @OptionGroup var location: Location

        @Flag(help: "Write one JSON object instead of lines.")
        var json = false

        mutating func run() async throws {
            try await reportingErrors { () async throws(ScreensPipeError) in
                let path = location.describe()
                var found: CacheStats?
                if let store = try await location.openBackend() {
                    found = try await closing(store) { store throws(ScreensPipeError) in try await store.stats() }
                }
                let stats =
                    found
                    ?? CacheStats(
                        path: path, fileSize: 0, entries: 0, pages: 0, rows: 0, bytes: 0, oldestFetch: nil,
                        newestFetch: nil)
                if json {
                    let object: JSONValue = [
                        "path": .string(stats.path), "fileSize": .int(Int64(stats.fileSize)),
                        "entries": .int(Int64(stats.entries)), "pages": .int(Int64(stats.pages)),
                        "rows": .int(Int64(stats.rows)), "bytes": .int(Int64(stats.bytes)),
                        "oldestFetch": stats.oldestFetch.map { .string(timestamp($0)) } ?? .null,
                        "newestFetch": stats.newestFetch.map { .string(timestamp($0)) } ?? .null,
                    ]
                    print(object.jsonString)
                    return
                }
                printColumns([
                    ["path", stats.path],
                    ["size", "\(stats.fileSize) bytes"],
                    ["entries", String(stats.entries)],
                    ["pages", String(stats.pages)],
                    ["rows", String(stats.rows)],
                    ["data", "\(stats.bytes) bytes"],
                    ["oldest", stats.oldestFetch.map(timestamp) ?? "-"],
                    ["newest", stats.newestFetch.map(timestamp) ?? "-"],
                ])
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove cached pages: one pipeline's, or all of them.")

        @OptionGroup var location: Location

        @Option(help: ArgumentHelp("Remove the pages of this pipeline file (its name and its key).", valueName: "file"))
        var pipeline: String?

        @Option(help: ArgumentHelp("Remove the pages stored by the pipeline of this name.", valueName: "name"))
        var name: String?

        @Flag(help: "Remove every cached page.")
        var all = false

        func validate() throws {
            if [all, name != nil, pipeline != nil].filter({ $0 }).count != 1 {
                throw ValidationError("say what to clear: --pipeline FILE, --name NAME or --all")
            }
        }

        mutating func run() async throws {
            let spec = try pipeline.map { try SpecLoading.load(file: $0, overrides: []) }
            let name = name
            try await reportingErrors { () async throws(ScreensPipeError) in
                let configured = spec?.cache?.postgres
                guard let store = try await location.openBackend(configuredPath: spec?.cache?.path, configured: configured) else {
                    Terminal.note("removed 0 pages (no cache database at \(location.describe(configuredPath: spec?.cache?.path, configured: configured)))")
                    return
                }
                let removed = try await closing(store) { store throws(ScreensPipeError) in
                    if let spec {
                        // Pages stored under this pipeline's name, and under its key by another name.
                        let byName = try await store.clear(pipeline: spec.name, keyPrefix: nil)
                        return try await byName + store.clear(pipeline: nil, keyPrefix: CacheKey(spec: spec).text)
                    }
                    return try await store.clear(pipeline: name, keyPrefix: nil)
                }
                Terminal.note("removed \(removed) page\(removed == 1 ? "" : "s")")
            }
        }
    }
}

// MARK: - Output

/// Runs `body`, turning a ScreensPipeError into its one-line message on stderr and its exit code.
private func reportingErrors(_ body: () async throws(ScreensPipeError) -> Void) async throws(ExitCode) {
    do {
        try await body()
    } catch {
        Terminal.error("\(error)")
        throw ExitCode(error.exitCode)
    }
}

/// Runs `body` on `store`, then closes it (its connections), whether `body` threw or not.
private func closing<T>(
    _ store: any CacheBackend, _ body: (any CacheBackend) async throws(ScreensPipeError) -> T
) async throws(ScreensPipeError) -> T {
    do {
        let result = try await body(store)
        await store.close()
        return result
    } catch {
        await store.close()
        throw error
    }
}

/// UTC, to the second: the form people compare and tools parse.
private func timestamp(_ date: Date) -> String {
    ISODate.format(epochMilliseconds: Int64((date.timeIntervalSince1970).rounded(.down)) * 1000)
}

/// Left-aligned columns; the last one is not padded (keys are long).
private func printColumns(_ rows: [[String]]) {
    for line in TableLayout.alignedLines(rows) { print(line) }
}
