/// Starts a local portal for `server: sandbox` (the `Sandbox` module provides one).
public protocol SandboxLauncher: Sendable {
    /// Starts a portal for one run; the pipeline stops it when the run ends.
    func start() async throws(ScreensPipeError) -> any RunningServer
}

/// A server a pipeline started and stops when the run ends.
public protocol RunningServer: Sendable {
    /// `http://127.0.0.1:PORT`.
    var baseURL: String { get }
    /// Stops the server; called once, after the run's last request.
    func stop() async
}
