import Foundation
import Sandbox
import ScreensBus
import TestSupport

/// Starts a sandbox portal for one test and runs the binary against it.
struct SandboxHarness {
    let server: SandboxServer

    static func start(
        faults: FaultPlan = .none, hideEvery: Int? = nil, generatedRows: Int = 0, loginRedirect: Bool = false, seed: UInt64 = 7
    ) async throws -> SandboxHarness {
        var configuration = SandboxConfiguration()
        configuration.faults = faults
        configuration.hideEvery = hideEvery
        configuration.generatedRows = generatedRows
        configuration.loginRedirect = loginRedirect
        configuration.seed = seed
        return try await start(configuration)
    }

    /// Starts a sandbox with a whole configuration (OAuth 2 clients, rate limits, ...).
    static func start(_ configuration: SandboxConfiguration) async throws -> SandboxHarness {
        // Loading and generating the portal's data is synchronous work: done on a thread of
        // its own, it does not hold a thread of the cooperative pool.
        let loader = DedicatedThreadExecutor(name: "sandbox-start")
        defer { loader.stop() }
        let server = try await withTaskExecutorPreference(loader) { try await SandboxServer.start(configuration) }
        return SandboxHarness(server: server)
    }

    /// Runs `screens-pipe run FILE` with `LIFERAY_SERVER` pointing at this sandbox.
    func run(_ pipeline: String, _ arguments: [String] = [], environment: [String: String] = [:]) async throws -> CommandResult {
        var environment = environment
        environment["LIFERAY_SERVER"] = server.baseURL
        return try await CommandRunner.run(["run", pipeline] + arguments, environment: environment)
    }

    func stop() async {
        try? await server.stop()
    }

    /// Stops the portal and keeps its port refusing connections, for a test of an
    /// unreachable server: no other test's server can be given the port meanwhile.
    func stopRefusing() async throws {
        await stop()
        try await RefusingPort.hold(server.port)
    }
}

/// Starts a sandbox portal, runs `body` with it, and stops the portal whatever happens,
/// waiting for the stop: the next test never shares the machine with a portal still
/// shutting down.
func withSandbox<T>(
    faults: FaultPlan = .none, hideEvery: Int? = nil, generatedRows: Int = 0, loginRedirect: Bool = false, seed: UInt64 = 7,
    _ body: (SandboxHarness) async throws -> T
) async throws -> T {
    try await withSandbox(
        starting: try await SandboxHarness.start(
            faults: faults, hideEvery: hideEvery, generatedRows: generatedRows, loginRedirect: loginRedirect, seed: seed),
        body)
}

/// Runs `body` with a sandbox whose whole configuration `configure` sets.
func withConfiguredSandbox<T>(
    _ configure: (inout SandboxConfiguration) -> Void, _ body: (SandboxHarness) async throws -> T
) async throws -> T {
    var configuration = SandboxConfiguration()
    configure(&configuration)
    return try await withSandbox(starting: try await SandboxHarness.start(configuration), body)
}

/// Runs `body` with `harness`, then stops it whatever happens.
private func withSandbox<T>(starting harness: SandboxHarness, _ body: (SandboxHarness) async throws -> T) async throws -> T {
    do {
        let result = try await body(harness)
        await harness.stop()
        return result
    } catch {
        await harness.stop()
        throw error
    }
}

extension CommandResult {
    /// The JSON lines of stdout, parsed with the project's own exact parser.
    func jsonLines() throws -> [JSONValue] {
        try stdoutLines.map { try JSONValue(parsing: $0) }
    }
}

/// Fault-free output of a pipeline, computed once per pipeline: the reference every fault
/// test must reproduce exactly (same rows, same order, each once).
actor ReferenceOutputs {
    static let shared = ReferenceOutputs()
    private var outputs: [String: [String]] = [:]

    func lines(for pipeline: String, _ arguments: [String] = []) async throws -> [String] {
        let key = ([pipeline] + arguments).joined(separator: " ")
        if let cached = outputs[key] { return cached }
        let harness = try await SandboxHarness.start()
        let result = try await harness.run(pipeline, arguments + ["--policy", "remote-only"])
        await harness.stop()
        guard result.status == 0 else { throw ReferenceError(message: result.stderr) }
        outputs[key] = result.stdoutLines
        return result.stdoutLines
    }

    struct ReferenceError: Error { var message: String }
}
