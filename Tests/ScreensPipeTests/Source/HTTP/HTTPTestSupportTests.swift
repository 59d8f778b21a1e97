// Support for the HTTP tests (no tests here): the Python test server as a subprocess.
import Foundation
import TestSupport
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// `Fixtures/http/test_server.py` running on an ephemeral loopback port.
final class TestHTTPServer: @unchecked Sendable {
    let port: Int
    let scheme: String
    private let process: ChildProcess
    private let input: Pipe

    private init(port: Int, scheme: String, process: ChildProcess, input: Pipe) {
        self.port = port
        self.scheme = scheme
        self.process = process
        self.input = input
    }

    /// Starts the server and waits for it to print its port, on a thread of its own: the
    /// blocking read must not hold a thread of the cooperative pool.
    static func start(tls: (certificate: String, key: String)? = nil) async throws -> TestHTTPServer {
        try await onOwnThread { try startBlocking(tls: tls) }
    }

    private static func startBlocking(tls: (certificate: String, key: String)?) throws -> TestHTTPServer {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/http/test_server.py")
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + (tls.map { ["--tls", $0.certificate, $0.key] } ?? [])
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        // The server exits when this pipe closes, so it never outlives the test process.
        process.standardInput = input
        try process.run()
        var line: [UInt8] = []
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(contentsOf: chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text) else {
            process.terminate()
            throw TestServerError(message: "test server did not print its port: \(text)")
        }
        return TestHTTPServer(port: port, scheme: tls == nil ? "http" : "https", process: process, input: input)
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    /// Kills the server without waiting for it (Foundation reaps the process).
    func stop() {
        // SIGKILL: the spawning thread's blocked SIGTERM would be inherited and ignored.
        kill(process.processIdentifier, SIGKILL)
        try? input.fileHandleForWriting.close()
    }
}

struct TestServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Runs `body` with a fresh server and a fresh client, then stops both.
func withServer<T>(
    _ body: (TestHTTPServer, HTTPClient) async throws -> T
) async throws -> T {
    let server = try await TestHTTPServer.start()
    let client = HTTPClient()
    defer { server.stop() }
    do {
        let result = try await body(server, client)
        await client.shutdown()
        return result
    } catch {
        await client.shutdown()
        throw error
    }
}

/// Runs `body` with a fresh client, and shuts the client down (awaited) whatever happens.
func withClient<T>(_ body: (HTTPClient) async throws -> T) async throws -> T {
    let client = HTTPClient()
    do {
        let result = try await body(client)
        await client.shutdown()
        return result
    } catch {
        await client.shutdown()
        throw error
    }
}

/// Runs blocking work on a thread of its own and suspends until it is done, so a test that
/// waits for a process or a pipe never holds a thread of the cooperative pool.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.name = "test-blocking-io"
        thread.start()
    }
}

/// The JSON object a response body holds.
func jsonObject(_ response: HTTPResponse) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(response.body))
    guard let object = value as? [String: Any] else {
        throw TestServerError(message: "not a JSON object: \(response.text)")
    }
    return object
}

/// The error `operation` throws, or nil when it succeeds.
func httpError(_ operation: () async throws(HTTPError) -> HTTPResponse) async -> HTTPError? {
    do {
        _ = try await operation()
        return nil
    } catch {
        return error
    }
}

/// A loopback port with nothing listening on it, kept so for the rest of the test process.
func closedPort() throws -> Int {
    try RefusingPort.any()
}

extension Result where Success == HTTPResponse {
    /// The transport error kind of a failed send (tasks erase typed throws).
    var httpErrorKind: HTTPError.Kind? {
        guard case .failure(let error) = self else { return nil }
        return (error as? HTTPError)?.kind
    }
}
