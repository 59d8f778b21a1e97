/// Starts a local portal for `server: sandbox` (the `Sandbox` module provides one).
public protocol SandboxLauncher: Sendable {
    /// Starts a portal for one run; the pipeline stops it when the run ends.
    func start() async throws(ScreensPipeError) -> any RunningServer
    /// Starts a portal serving Liferay `version` ("7.0"...), the `liferay-version` a writing
    /// pipeline's sink names: its commands exist on that version only (`add-record` with
    /// `fieldsMap` on 7.0).
    func start(version: String) async throws(ScreensPipeError) -> any RunningServer
}

extension SandboxLauncher {
    /// A launcher that serves one version starts that portal whatever is asked.
    public func start(version: String) async throws(ScreensPipeError) -> any RunningServer {
        try await start()
    }
}

/// A server a pipeline started and stops when the run ends.
public protocol RunningServer: Sendable {
    /// `http://127.0.0.1:PORT`.
    var baseURL: String { get }
    /// Stops the server; called once, after the run's last request.
    func stop() async
}
