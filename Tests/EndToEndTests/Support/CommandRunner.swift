import Foundation
import TestSupport

/// Runs the real `screens-pipe` binary (or a shell pipeline around it) and captures what a
/// user would see.
struct CommandResult {
    var status: Int32
    var stdout: Data
    var stderr: String

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stdoutLines: [String] { stdoutText.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

enum CommandRunner {
    /// The package root (two levels above this file's folder).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The binary under test: `$SCREENS_PIPE_BIN` (set by `make test`), else the debug build.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["SCREENS_PIPE_BIN"], !path.isEmpty { return path }
        return packageRoot.appendingPathComponent(".build/debug/screens-pipe").path
    }

    /// Runs `screens-pipe` with `arguments` in the package root.
    static func run(_ arguments: [String], environment: [String: String] = [:], directory: URL? = nil) async throws -> CommandResult {
        try await execute(binary, arguments, environment: environment, directory: directory)
    }

    /// Runs a bash command line where `$SP` is the binary, e.g. `"$SP" run x.yaml | jq -r .url`.
    static func shell(_ script: String, environment: [String: String] = [:], directory: URL? = nil) async throws -> CommandResult {
        var environment = environment
        environment["SP"] = binary
        return try await execute("/bin/bash", ["-o", "pipefail", "-c", script], environment: environment, directory: directory)
    }

    /// The environment of every child process the tests start: this process's, with the
    /// cache in a directory of the tests' own (never the user's ~/.cache) and no COLUMNS
    /// (table output fits it; tests set it where they mean to), then `overrides`.
    static func childEnvironment(_ overrides: [String: String] = [:]) -> [String: String] {
        var merged = ProcessInfo.processInfo.environment
        merged["SCREENS_PIPE_CACHE_DIR"] = merged["SCREENS_PIPE_TEST_CACHE_DIR"] ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("screens-pipe-tests-\(getpid())").path
        merged["COLUMNS"] = nil
        for (key, value) in overrides { merged[key] = value }
        return merged
    }

    /// Runs `executable` (the binary, or another build of it) with the tests' environment.
    static func execute(_ executable: String, _ arguments: [String], environment: [String: String], directory: URL?) async throws -> CommandResult {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? packageRoot
        process.environment = childEnvironment(environment)
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        // Waiting for a child must not hold one of the few cooperative threads (two on a
        // 2-core machine): blocked there, a long child would stall every other test. Reads and
        // the exit wait run on Dispatch threads and resume the task when done.
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished in
            exited.continuation.yield(finished.terminationStatus)
            exited.continuation.finish()
        }
        try process.run()
        async let out = readToEnd(stdout.fileHandleForReading)
        async let err = readToEnd(stderr.fileHandleForReading)
        let (outData, errData) = await (out, err)
        var status: Int32 = -1
        for await code in exited.stream { status = code }
        return CommandResult(status: status, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
    }

    static func readToEnd(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let data = handle.readDataToEndOfFile()
                // Closed here, at EOF, not whenever the handle is deallocated: the known
                // workaround for "Bad file descriptor" failures of Foundation's process pipes
                // under concurrency (swiftlang/swift#57827). A descriptor closed late, after its
                // number was reused, would close a sandbox's NIO socket in this process.
                try? handle.close()
                continuation.resume(returning: data)
            }
        }
    }

    /// A fresh temporary directory for one test.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("screens-pipe-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
