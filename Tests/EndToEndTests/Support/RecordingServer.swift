import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 server on a loopback address of the test's choosing (127.0.0.2 is routed
/// to `lo` on Linux) that answers every request from a script and records what reached it:
/// the request line and headers. It stands in for "another host" in the credential tests.
final class RecordingServer: @unchecked Sendable {
    /// One scripted answer.
    struct Reply: Sendable {
        var status: Int = 200
        var headers: [(String, String)] = []
        var body: String = "[]"
    }

    /// The request line and headers of one request, as received.
    struct Recorded: Sendable {
        var head: String
        /// The body, as far as `Content-Length` says (JSON-WS batches carry parameters there).
        var body: String = ""
        /// When the request's head had arrived: the gaps between requests are the client's
        /// waits, whatever it cost to start the process.
        var arrived: ContinuousClock.Instant = .now
    }

    let host: String
    let port: Int
    private let socketFD: Int32
    private let lock = NSLock()
    private var recorded: [Recorded] = []
    private var stopped = false
    private let reply: @Sendable (String) -> Reply

    /// `http://host:port`.
    var origin: String { "http://\(host):\(port)" }

    /// Requests received so far.
    var requests: [Recorded] { lock.withLock { recorded } }

    /// Binds `host` on a free port and serves on a background thread until ``stop()``.
    /// `reply` maps the request target (`/path?query`) to the answer.
    init(host: String, reply: @escaping @Sendable (String) -> Reply) throws {
        self.host = host
        self.reply = reply
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, host, &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        socketFD = fd
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Stops accepting; the serving thread ends on the failed accept. Safe to call more
    /// than once (tests stop early and again in a `defer`).
    ///
    /// Only the serving thread closes the listening descriptor, after its last `accept`:
    /// a `close` here could let the number be reused by another socket of the test process
    /// (the sandbox's, NIO's) before the thread's next `accept` or a second `stop`, which
    /// would then steal or close that socket.
    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        shutdown(socketFD, Int32(SHUT_RDWR))
    }

    /// Stops and keeps the port refusing connections, for a test of an unreachable server:
    /// no other test's server can be given the port meanwhile.
    func stopRefusing() async throws {
        stop()
        try await RefusingPort.hold(port)
    }

    private func serve() {
        defer { close(socketFD) }
        while true {
            let client = accept(socketFD, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            handle(client)
        }
    }

    private func handle(_ client: Int32) {
        defer { close(client) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 64 * 1024 {
            let count = read(client, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
            if received.count >= 4, String(decoding: received, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let text = String(decoding: received, as: UTF8.self)
        let head = text.components(separatedBy: "\r\n\r\n").first ?? text
        let length = head.split(separator: "\r\n").lazy.compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        let headBytes = head.utf8.count + 4
        while received.count < headBytes + min(length, 64 * 1024) {
            let count = read(client, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let body = received.count > headBytes ? String(decoding: received[headBytes...], as: UTF8.self) : ""
        lock.withLock { recorded.append(Recorded(head: head, body: body)) }
        let target = head.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init) ?? "/"
        let answer = reply(target)
        let replyBody = Array(answer.body.utf8)
        // JSON unless the reply names its own content type.
        let namesType = answer.headers.contains { $0.0.lowercased() == "content-type" }
        var response = "HTTP/1.1 \(answer.status) Scripted\r\n\(namesType ? "" : "Content-Type: application/json\r\n")Connection: close\r\n"
        for (name, value) in answer.headers { response += "\(name): \(value)\r\n" }
        response += "Content-Length: \(replyBody.count)\r\n\r\n"
        let bytes = Array(response.utf8) + replyBody
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(client, raw.baseAddress! + offset, raw.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }
}
