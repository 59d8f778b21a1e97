import Foundation
import Synchronization
import Logging
import PostgresNIO
import ScreensPipe
import Testing

/// The throwaway server `make test` starts (scripts/pg-test-cluster.sh), and a fresh database
/// on it per test, so tests run in parallel without seeing each other's tables.
enum PostgresTesting {
    /// `postgres://screens@127.0.0.1:PORT/postgres`, or nil when no server was started.
    static let url = ProcessInfo.processInfo.environment["SCREENS_PIPE_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static var isAvailable: Bool { url != nil }
    /// The note a skipped test shows; `make test` counts these.
    static let needed: Comment = "needs PostgreSQL (SCREENS_PIPE_TEST_POSTGRES_URL; make test starts one)"

    /// The server's target for the `postgres` maintenance database.
    static func serverTarget() throws -> PostgresTarget {
        let url = try #require(url, "SCREENS_PIPE_TEST_POSTGRES_URL is not set")
        return try PostgresTarget(url: url, tls: .disable)
    }

    /// A new, empty database; its target (no TLS: the test server listens on loopback only).
    static func freshDatabase() async throws -> PostgresTarget {
        var target = try serverTarget()
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await withConnection(target) { connection in
            // The name is ours (hex digits), so it may be written into the statement.
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        }
        target.database = name
        return target
    }

    static let logger = Logger(label: "tests.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `body` on a connection of its own to `target`.
    static func withConnection<T>(_ target: PostgresTarget, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        let configuration = PostgresConnection.Configuration(
            host: target.host, port: target.port, username: target.user, password: nil, database: target.database,
            tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// The cache backends the cache suites run against: SQLite always, PostgreSQL when a test
/// server is there (each PostgreSQL case in a database of its own).
enum CacheBackendKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    /// SQLite, and PostgreSQL when the test server runs.
    static var available: [CacheBackendKind] { PostgresTesting.isAvailable ? allCases : [.sqlite] }

    var testDescription: String { rawValue }

    /// Whether a page a load stores is visible at once (SQLite), or only once the load is a
    /// complete list (PostgreSQL: a fleet reads the last complete snapshot, see SharedStorage).
    var publishesEachPage: Bool { self == .sqlite }

    /// A new, empty cache of this kind. `directory` holds the SQLite file.
    func open(in directory: TemporaryDirectory) async throws -> any CacheBackend {
        switch self {
        case .sqlite: try CacheStore(path: directory.file("cache.sqlite"))
        case .postgres: try await PostgresCacheStore.open(try await PostgresTesting.freshDatabase())
        }
    }

    /// A second store on the same cache (another process would open it so).
    func reopen(_ store: any CacheBackend) async throws -> any CacheBackend {
        switch store {
        case let sqlite as CacheStore: try CacheStore(path: sqlite.path)
        case let postgres as PostgresCacheStore: try await PostgresCacheStore.open(postgres.target)
        default: throw CancellationError()
        }
    }
}

/// The cache a suite's tests use: the SQLite store its initializer opened, until a test asks
/// for PostgreSQL, which opens a fresh database for that test alone.
final class OpenedCacheBackend: Sendable {
    private let current: Mutex<any CacheBackend>

    init(_ store: any CacheBackend) { current = Mutex(store) }

    var store: any CacheBackend { current.withLock { $0 } }

    /// Switches to a fresh `kind` cache, unless `kind` is SQLite (already open).
    func use(_ kind: CacheBackendKind, in directory: TemporaryDirectory) async throws {
        guard kind != .sqlite else { return }
        let opened = try await kind.open(in: directory)
        current.withLock { $0 = opened }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Loopback ports for connection-failure tests.
enum TestPorts {
    /// A port that was free a moment ago: bound to 127.0.0.1:0, read back, closed.
    static func unused() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
