import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The real binary started in the background, for tests that act on it while it runs
/// (send it a signal once the sandbox has seen its requests).
final class RunningCommand: @unchecked Sendable {  // the process is only read after start
    let process = ChildProcess()
    private let stderrPipe = Pipe()
    private let exited = AsyncStream<Int32>.makeStream()

    /// Starts `screens-pipe` with `arguments`; stdout is discarded.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: CommandRunner.binary)
        process.arguments = arguments
        process.currentDirectoryURL = CommandRunner.packageRoot
        process.environment = CommandRunner.childEnvironment(environment)
        process.standardError = stderrPipe
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let continuation = exited.continuation
        process.terminationHandler = { finished in
            continuation.yield(finished.terminationStatus)
            continuation.finish()
        }
        try process.run()
    }

    /// Sends `signalNumber` to the process.
    func send(_ signalNumber: Int32) {
        kill(process.processIdentifier, signalNumber)
    }

    /// Waits for the exit; returns the status and everything written to stderr.
    func wait() async -> (status: Int32, stderr: String) {
        // Read and closed at EOF on a Dispatch thread, as CommandRunner does (see readToEnd).
        let errorText = await CommandRunner.readToEnd(stderrPipe.fileHandleForReading)
        var status: Int32 = -1
        for await code in exited.stream { status = code }
        return (status, String(decoding: errorText, as: UTF8.self))
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes.
func waitUntil(timeout: Duration = .seconds(30), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
}
