import Sandbox
import ScreensPipe

/// `server: sandbox`: starts the bundled sandbox portal in-process on an ephemeral loopback
/// port; the pipeline still talks to it over HTTP through libcurl.
struct BundledSandboxLauncher: SandboxLauncher {
    func start() async throws(ScreensPipeError) -> any RunningServer {
        do {
            let server = try await SandboxServer.start(SandboxConfiguration())
            return RunningSandbox(server: server)
        } catch {
            throw ScreensPipeError(.connectivity, "cannot start the sandbox portal: \(error)")
        }
    }
}

struct RunningSandbox: RunningServer {
    let server: SandboxServer

    var baseURL: String { server.baseURL }

    func stop() async {
        try? await server.stop()
    }
}
