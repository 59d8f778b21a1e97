import Foundation
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite("HTTP client failures")
struct HTTPClientFailureTests {
    @Test func aClosedPortIsConnectionRefused() async throws {
        let port = try closedPort()
        try await withClient { client in
            let error = try #require(await httpError { () async throws(HTTPError) in
                try await client.send(HTTPRequest(url: "http://127.0.0.1:\(port)/echo"))
            })
            #expect(error.kind == .connectionRefused)
            #expect(error.isConnectivity)
            #expect(error.request == "GET http://127.0.0.1:\(port)/echo")
        }
    }

    @Test func anUnknownHostIsDNS() async throws {
        try await withClient { client in
            let error = try #require(await httpError { () async throws(HTTPError) in
                try await client.send(HTTPRequest(url: "http://screens-pipe-test.invalid/"))
            })
            #expect(error.kind == .dns)
            #expect(error.isConnectivity)
        }
    }

    @Test func aResetWithoutResponseIsConnectionReset() async throws {
        try await withServer { server, client in
            let error = try #require(await httpError { () async throws(HTTPError) in
                try await client.send(HTTPRequest(url: server.url("/reset")))
            })
            #expect(error.kind == .connectionReset)
            #expect(error.isConnectivity)
        }
    }

    @Test func aShortBodyIsTruncated() async throws {
        try await withServer { server, client in
            let error = try #require(await httpError { () async throws(HTTPError) in
                try await client.send(HTTPRequest(url: server.url("/truncated")))
            })
            #expect(error.kind == .truncated)
            #expect(error.isConnectivity)
        }
    }

    @Test func aSlowAnswerHitsTheTotalTimeout() async throws {
        try await withServer { server, client in
            let request = HTTPRequest(url: server.url("/sleep?ms=5000"), timeout: .milliseconds(300))
            let error = try #require(await httpError { () async throws(HTTPError) in try await client.send(request) })
            #expect(error.kind == .timeout)
            #expect(error.isConnectivity)
        }
    }

    @Test func aStallAfterTheHeadersHitsTheLowSpeedLimit() async throws {
        try await withServer { server, client in
            let request = HTTPRequest(
                url: server.url("/stall?seconds=20"), timeout: nil,
                lowSpeed: LowSpeedLimit(bytesPerSecond: 1, duration: .seconds(1)))
            let error = try #require(await httpError { () async throws(HTTPError) in try await client.send(request) })
            #expect(error.kind == .timeout)
            #expect(error.isConnectivity)
        }
    }

    @Test(arguments: ["0", "1"])
    func aBodyOverTheLimitIsTooLarge(chunked: String) async throws {
        try await withServer { server, client in
            let request = HTTPRequest(url: server.url("/big?size=100001&chunked=\(chunked)"), maxResponseSize: 100_000)
            let error = try #require(await httpError { () async throws(HTTPError) in try await client.send(request) })
            #expect(error.kind == .tooLarge)
            #expect(!error.isConnectivity)
            #expect(error.message.contains("100000"))
        }
    }

    @Test func aDecodedBodyOverTheLimitIsTooLarge() async throws {
        try await withServer { server, client in
            // ~1 KB compressed on the wire, 200 KB once decoded: the cap applies to the decoded size.
            let request = HTTPRequest(url: server.url("/gzip?size=200000"), maxResponseSize: 100_000)
            let error = try #require(await httpError { () async throws(HTTPError) in try await client.send(request) })
            #expect(error.kind == .tooLarge)
        }
    }

    @Test func anUnsupportedSchemeIsOther() async throws {
        try await withClient { client in
            let error = try #require(await httpError { () async throws(HTTPError) in
                try await client.send(HTTPRequest(url: "ftp://127.0.0.1/file"))
            })
            #expect(error.kind == .other)
            #expect(!error.isConnectivity)
        }
    }
}
