import Foundation
import TestSupport
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// `shutdown()` suspends until the I/O thread has stopped; it never blocks a thread of the
/// cooperative pool, so any number of callers can wait at once.
@Suite("HTTP client shutdown")
struct HTTPClientShutdownTests {
    @Test func concurrentShutdownsAllReturnAfterTheTransfersEnd() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let client = HTTPClient()
        let stalled = Task { () async throws(HTTPError) -> HTTPResponse in
            try await client.send(HTTPRequest(url: server.url("/stall?seconds=30"), timeout: .seconds(60)))
        }
        // More waiters than the pool has threads: blocked, they would starve each other.
        let callers = 4 * ProcessInfo.processInfo.activeProcessorCount
        let returned = await completion {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<callers { group.addTask { await client.shutdown() } }
            }
            return await stalled.result.httpErrorKind
        }
        // Every shutdown returned, and the transfer in flight ended cancelled.
        #expect(returned == .some(.cancelled))
        let later = await httpError { () async throws(HTTPError) in try await client.send(HTTPRequest(url: server.url("/echo"))) }
        #expect(later?.kind == .cancelled)
    }
}
