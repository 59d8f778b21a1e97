public import ScreensPipeCore
public import Sandbox

/// Starts the bundled sandbox portal for pipelines whose source says `server: sandbox`.
///
/// Pass it to a pipeline's environment so a library user gets the same in-process portal the
/// `screens-pipe` command uses:
///
/// ```swift
/// import ScreensPipe
/// import Sandbox
///
/// let pipeline = try Pipeline(
///     file: "pipelines/bookmarks.yaml",
///     environment: PipelineEnvironment(sandbox: BundledSandbox()))
/// ```
///
/// Each run starts its own portal on an ephemeral loopback port and stops it when the run
/// ends; the pipeline still talks to it over HTTP.
public struct BundledSandbox: SandboxLauncher {
    /// How each started portal is configured (data, generated rows, faults).
    public var configuration: SandboxConfiguration

    /// A launcher for portals configured by `configuration` (the bundled sample data by default).
    public init(configuration: SandboxConfiguration = SandboxConfiguration()) {
        self.configuration = configuration
    }

    /// Starts one portal; a failure to start is a connectivity error of the run.
    public func start() async throws(ScreensPipeError) -> any RunningServer {
        do {
            return RunningSandbox(server: try await SandboxServer.start(configuration))
        } catch {
            throw ScreensPipeError.connectivity("cannot start the sandbox portal: \(error)")
        }
    }

    /// Starts one portal serving `version` (the configured one when the sandbox has no such
    /// version).
    public func start(version: String) async throws(ScreensPipeError) -> any RunningServer {
        var launcher = self
        if let served = LiferayVersion(rawValue: version) { launcher.configuration.liferayVersion = served }
        return try await launcher.start()
    }
}

/// A sandbox portal started for one run.
public struct RunningSandbox: RunningServer {
    /// The portal itself (its port, its request count).
    public let server: SandboxServer

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { server.baseURL }

    /// Stops the portal; errors while closing connections do not matter any more.
    public func stop() async {
        try? await server.stop()
    }
}
