import Foundation
import Sandbox
import ScreensJSON
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a client sees of one HTTP exchange, down to the socket: the faults are about exactly
/// the things a high-level client hides (resets, short bodies, stalls).
enum Exchange {
    /// A complete response (the full Content-Length arrived).
    case response(HTTPResponse)
    /// Headers arrived, then the connection closed before Content-Length bytes of body.
    case truncated(HTTPResponse, expected: Int)
    /// The receive timeout passed; `received` is everything that came before it.
    case timedOut(received: [UInt8])
    /// The peer reset the connection.
    case reset(received: [UInt8])
    /// The connection closed without a byte of response.
    case closedEmpty

    var response: HTTPResponse? {
        if case .response(let response) = self { return response }
        return nil
    }
}

struct HTTPResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    func json() throws -> JSONValue { try JSONValue(parsing: body) }
}

struct SocketError: Error, CustomStringConvertible {
    var description: String
}

/// A minimal HTTP/1.1 client over a blocking POSIX socket, one request per connection.
/// Use it inside ``withSandbox(_:_:)``, which gives it a thread of its own.
struct TestHTTPClient {
    var port: Int
    /// How long one receive may wait: long, because the sandboxes of parallel tests share
    /// two cores and a busy event loop can delay a close by seconds; tests that expect a
    /// timeout set a short one themselves.
    var timeout: Double = 120

    func get(_ path: String, headers: [(String, String)] = []) throws -> Exchange {
        try send("GET", path, headers: headers, body: [])
    }

    /// Posts JSON to `/api/jsonws/invoke`.
    func invoke(_ body: String, headers: [(String, String)] = [TestHTTPClient.testUser]) throws -> Exchange {
        try send("POST", "/api/jsonws/invoke", headers: [("Content-Type", "application/json")] + headers, body: Array(body.utf8))
    }

    static let testUser = basic("test@liferay.com", "test")
    static let joe = basic("joe@liferay.com", "joe")

    static func basic(_ user: String, _ password: String) -> (String, String) {
        ("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
    }

    func send(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8]) throws -> Exchange {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw SocketError(description: "socket: errno \(errno)") }
        defer { close(socket) }
        var seconds = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw SocketError(description: "connect: errno \(errno)") }

        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if method == "POST" { request += "Content-Length: \(body.count)\r\n" }
        let bytes = Array((request + "\r\n").utf8) + body
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if result < 0 { return errno == ECONNRESET || errno == EPIPE ? .reset(received: []) : .closedEmpty }
            sent += result
        }

        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[..<count]
                continue
            }
            if count == 0 { break }
            switch errno {
            case EAGAIN, EWOULDBLOCK: return .timedOut(received: received)
            case ECONNRESET: return .reset(received: received)
            case EINTR: continue
            default: throw SocketError(description: "recv: errno \(errno)")
            }
        }
        guard !received.isEmpty else { return .closedEmpty }
        let response = try Self.parse(received)
        if let length = response.header("Content-Length").flatMap(Int.init), response.body.count < length {
            return .truncated(response, expected: length)
        }
        return .response(response)
    }

    static func parse(_ bytes: [UInt8]) throws -> HTTPResponse {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
            throw SocketError(description: "no end of headers in \(bytes.count) bytes")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw SocketError(description: "bad status line \(lines[0])")
        }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return HTTPResponse(status: status, headers: headers, body: Array(bytes[(end + 4)...]))
    }
}

/// Starts a sandbox, runs `body` with a client for it, and stops it whatever happens.
///
/// All of it runs on a thread of its own (``DedicatedThreadExecutor``): loading the portal's
/// data and the client's blocking sockets never hold a thread of the cooperative pool.
func withSandbox<T>(
    _ configuration: SandboxConfigurationBuilder = .init(), _ body: (TestHTTPClient, SandboxServer) async throws -> T
) async throws -> T {
    let testThread = DedicatedThreadExecutor(name: "sandbox-test")
    defer { testThread.stop() }
    return try await withTaskExecutorPreference(testThread) {
        let server = try await SandboxServer.start(configuration.configuration)
        do {
            let result = try await body(TestHTTPClient(port: server.port), server)
            try await server.stop()
            return result
        } catch {
            try await server.stop()
            throw error
        }
    }
}

/// A short way to write the configurations tests use.
struct SandboxConfigurationBuilder {
    var configuration = SandboxConfiguration()

    init(_ configure: (inout SandboxConfiguration) -> Void = { _ in }) {
        configure(&configuration)
    }
}

extension Exchange {
    /// The response, which must be complete and have `status`.
    func expect(_ status: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> HTTPResponse {
        let response = try #require(response, "expected a complete response, got \(self)", sourceLocation: sourceLocation)
        #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
        return response
    }
}

extension JSONValue {
    /// The `entryId`s of an array of rows.
    var entryIds: [Int64] { (arrayValue ?? []).compactMap { $0["entryId"]?.int64Value } }
}
