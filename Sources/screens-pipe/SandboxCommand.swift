import ArgumentParser
import Dispatch
import Sandbox
import ScreensPipe

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `screens-pipe sandbox`: runs the bundled Liferay-compatible sandbox portal until SIGINT or SIGTERM.
struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "Run the bundled Liferay-compatible sandbox portal.",
        discussion: """
            Serves JSON-WS (POST /api/jsonws/invoke), headless delivery structured
            contents and a generic REST family over sample data. Accounts:
            test@liferay.com / test (all sites), joe@liferay.com / joe (fewer rows, no
            site 20144), Bearer sandbox-token (= test). Fault flags make it misbehave on
            purpose; see
            "Faults" in Sources/ScreensPipeCore/ScreensPipe.docc/SandboxPortal.md.

            Examples:
              screens-pipe sandbox --port 8080
              screens-pipe sandbox --port 8080 --latency 100ms --fail-every 5
            """)

    @Option(help: "TCP port; 0 picks a free one.") var port: Int = 8080
    @Option(help: "Address to bind.") var host: String = "127.0.0.1"
    @Option(name: .customLong("data"), help: "Directory of portal data files (default: the bundled sample data).")
    var dataDirectory: String?
    @Option(name: .customLong("generate"), help: "Rows in the generated bookmarks folder 1000000 of group 20143.")
    var generatedRows: Int = 0
    @Option(help: "Permission filtering: hide every row whose index % N == N - 1 after slicing.") var hideEvery: Int?
    @Option(help: "Delay before every data answer (e.g. 100ms, 2s).") var latency: SandboxDuration?
    @Flag(help: "--latency counts the sandbox's work: an answer is made at once and leaves when the latency has passed.")
    var latencyCountsWork = false
    @Option(help: "Limited capacity: N data requests are served at --latency at once; k > N in flight each take latency x k/N.")
    var capacity: Int?
    @Option(help: "With --capacity: refuse a data request with 503 when this many are already in flight.") var overloadAt: Int?
    @Option(help: "Fail every Nth data request with --fail-status.") var failEvery: Int?
    @Option(help: "Fail data requests at this rate (0...1), seeded by --seed.") var failRate: Double = 0
    @Option(help: "Status of injected failures (503, 429, 500...).") var failStatus: Int = 503
    @Option(help: "Retry-After value sent with injected failures (seconds or an HTTP date).") var retryAfter: String?
    @Option(help: "Fail every data request whose path, query or body contains this text, with --fail-status.") var failMatching: String?
    @Option(help: "Reset the connection (RST) on every Nth data request.") var resetEvery: Int?
    @Option(help: "Carry out every Nth data request (writes are stored), then reset the connection before answering.")
    var dropAfterProcessingEvery: Int?
    @Option(help: "Send half the body, then close, on every Nth data request.") var truncateEvery: Int?
    @Option(help: "Answer 200 with broken JSON on every Nth data request.") var malformedEvery: Int?
    @Option(help: "Stall mid-body on every Nth data request.") var stallEvery: Int?
    @Option(name: .customLong("stall-for"), help: "How long a stalled body pauses.") var stallFor: SandboxDuration?
    @Flag(help: "Be down: reset every connection as soon as it is accepted.") var down = false
    @Flag(help: "Answer bad credentials with a 302 to /c/portal/login instead of 401.") var loginRedirect = false
    @Option(help: "Seed for --fail-rate.") var seed: UInt64 = 0
    @Option(help: "Liferay version to stand in for (7.0 to 7.4): its JSON-WS signatures decide what is answered; headless from 7.2.")
    var liferayVersion: LiferayVersion = .default
    @Flag(help: "Answer headless requests with compact JSON (by default pretty-printed, as a portal answers curl; JSON-WS is always compact).")
    var compactJSON = false
    @Option(help: "Lay out every JSON answer, JSON-WS and REST included: compact, spaced (', ' and ': ') or pretty (two-space indentation).")
    var jsonLayout: SandboxJSONLayout?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard (0...1).contains(failRate) else { throw ValidationError("--fail-rate must be between 0 and 1") }
        guard (100...599).contains(failStatus) else { throw ValidationError("--fail-status must be an HTTP status") }
        for (flag, value) in [
            ("--hide-every", hideEvery), ("--fail-every", failEvery), ("--reset-every", resetEvery),
            ("--truncate-every", truncateEvery), ("--malformed-every", malformedEvery), ("--stall-every", stallEvery),
            ("--drop-after-processing-every", dropAfterProcessingEvery), ("--capacity", capacity), ("--overload-at", overloadAt),
        ] {
            if let value, value < 1 { throw ValidationError("\(flag) must be at least 1") }
        }
        guard generatedRows >= 0 else { throw ValidationError("--generate must not be negative") }
        if overloadAt != nil, capacity == nil { throw ValidationError("--overload-at needs --capacity") }
        if capacity != nil, (latency?.duration ?? .zero) == .zero {
            throw ValidationError("--capacity needs --latency: it stretches the latency of requests past the capacity")
        }
    }

    func run() async throws {
        var faults = FaultPlan(
            latency: latency?.duration ?? .zero, failEvery: failEvery, failRate: failRate, failStatus: failStatus,
            retryAfter: retryAfter, resetEvery: resetEvery, truncateEvery: truncateEvery,
            malformedEvery: malformedEvery, stallEvery: stallEvery, stallDuration: stallFor?.duration ?? .seconds(30),
            down: down, dropAfterProcessingEvery: dropAfterProcessingEvery)
        faults.failMatching = failMatching
        faults.latencyCountsWork = latencyCountsWork
        faults.capacity = capacity
        faults.overloadAt = overloadAt
        var configuration = SandboxConfiguration(
            host: host, port: port, dataDirectory: dataDirectory, generatedRows: generatedRows,
            hideEvery: hideEvery, loginRedirect: loginRedirect, faults: faults, seed: seed,
            liferayVersion: liferayVersion)
        configuration.compactHeadless = compactJSON
        configuration.jsonLayout = jsonLayout
        let server = try await SandboxServer.start(configuration)
        Terminal.note("sandbox portal listening on \(server.baseURL) (Liferay \(liferayVersion))")
        Terminal.note("  accounts: test@liferay.com / test (sites 20143, 20144, 20145), joe@liferay.com / joe (sites 20143, 20145)")
        Terminal.note("  bearer token: sandbox-token (= test@liferay.com)")
        if generatedRows > 0 {
            Terminal.note("  generated: \(generatedRows) bookmarks in group 20143 folder 1000000 and /rest/generated/...")
        }
        if down { Terminal.note("  down: every connection is reset") }
        let signal = await Self.waitForTermination()
        Terminal.note("sandbox portal stopping (\(signal == SIGINT ? "SIGINT" : "SIGTERM"))")
        try await server.stop()
    }

    /// Suspends until SIGINT or SIGTERM and returns which one came.
    private static func waitForTermination() async -> Int32 {
        await withCheckedContinuation { continuation in
            let queue = DispatchQueue(label: "screens-pipe.sandbox.signals")
            let resumed = SignalLatch(continuation)
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { resumed.resume(with: number) }
                source.resume()
                resumed.keep(source)
            }
        }
    }
}

/// Resumes the waiting command once, whichever signal comes first, and keeps the sources alive.
private final class SignalLatch: @unchecked Sendable {
    // Only touched on the signal queue after setup, which happens before any source resumes.
    private var continuation: CheckedContinuation<Int32, Never>?
    private var sources: [any DispatchSourceSignal] = []

    init(_ continuation: CheckedContinuation<Int32, Never>) {
        self.continuation = continuation
    }

    func keep(_ source: any DispatchSourceSignal) { sources.append(source) }

    func resume(with signal: Int32) {
        continuation?.resume(returning: signal)
        continuation = nil
    }
}

extension LiferayVersion: ExpressibleByArgument {}

/// A duration in the grammar of pipeline files (`250ms`, `2s`, `1m30s` or a bare number of
/// seconds), so the sandbox and the pipelines it serves read durations alike.
struct SandboxDuration: ExpressibleByArgument, Sendable {
    var duration: Duration

    init?(argument: String) {
        guard let duration = ConfigUnits.duration(argument) else { return nil }
        self.duration = duration
    }
}

extension SandboxJSONLayout: ExpressibleByArgument {}
