import Foundation
import Synchronization
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// Collects `onRetry` calls from the sender.
final class RetryLog: Sendable {
    private let attempts = Mutex<[RetryAttempt]>([])
    var all: [RetryAttempt] { attempts.withLock { $0 } }
    func record(_ attempt: RetryAttempt) { attempts.withLock { $0.append(attempt) } }
}

@Suite("Retrying sender against a real server")
struct RetryingSenderTests {
    private func sender(_ client: HTTPClient, attempts: Int, backoff: Duration = .milliseconds(5)) -> RetryingSender {
        RetryingSender(
            client: client, policy: RetryPolicy(attempts: attempts, backoff: backoff, maxBackoff: .seconds(1)), seed: 1)
    }

    private func requestCount(_ server: TestHTTPServer, _ client: HTTPClient, id: String) async throws -> Int {
        let response = try await client.send(HTTPRequest(url: server.url("/count?id=\(id)")))
        return try #require(try jsonObject(response)["count"] as? Int)
    }

    @Test func twoServiceUnavailablesThenSuccessTakesThreeAttempts() async throws {
        try await withServer { server, client in
            let log = RetryLog()
            let response = try await sender(client, attempts: 3).send(
                HTTPRequest(url: server.url("/flaky?id=t1&fail=2")), onRetry: log.record)
            #expect(response.status == 200)
            #expect(try jsonObject(response)["attempt"] as? Int == 3)
            #expect(log.all.map(\.failedAttempt) == [1, 2])
            #expect(log.all.allSatisfy { if case .status(503) = $0.reason { true } else { false } })
            #expect(log.all.allSatisfy { $0.attempts == 3 && !$0.fromRetryAfter && $0.request.hasPrefix("GET http://127.0.0.1:") })
        }
    }

    @Test func retryAfterSecondsIsHonoured() async throws {
        try await withServer { server, client in
            let log = RetryLog()
            let clock = ContinuousClock()
            let start = clock.now
            let response = try await sender(client, attempts: 2).send(
                HTTPRequest(url: server.url("/flaky?id=t2&fail=1&status=429&retry_after=1")), onRetry: log.record)
            let elapsed = clock.now - start
            #expect(response.status == 200)
            #expect(elapsed >= .seconds(1))
            #expect(log.all.count == 1)
            #expect(log.all.first?.delay == .seconds(1))
            #expect(log.all.first?.fromRetryAfter == true)
        }
    }

    @Test("Retry-After: 0 never waits less than the backoff")
    func retryAfterZeroKeepsTheBackoff() async throws {
        try await withServer { server, client in
            let log = RetryLog()
            let sender = RetryingSender(
                client: client, policy: RetryPolicy(attempts: 3, backoff: .milliseconds(40), maxBackoff: .seconds(1), jitter: .none),
                seed: 1)
            let response = try await sender.send(
                HTTPRequest(url: server.url("/flaky?id=t9&fail=2&status=503&retry_after=0")), onRetry: log.record)
            #expect(response.status == 200)
            // The exponential backoff (40 ms, then 80 ms), not the server's zero.
            #expect(log.all.map(\.delay) == [.milliseconds(40), .milliseconds(80)])
        }
    }

    @Test(arguments: [404, 500, 400, 401, 403])
    func nonRetryableStatusesAreSentOnce(status: Int) async throws {
        try await withServer { server, client in
            let log = RetryLog()
            let response = try await sender(client, attempts: 4).send(
                HTTPRequest(url: server.url("/flaky?id=s\(status)&fail=5&status=\(status)")), onRetry: log.record)
            #expect(response.status == status)
            #expect(log.all.isEmpty)
            #expect(try await requestCount(server, client, id: "s\(status)") == 1)
        }
    }

    @Test(arguments: [408, 429, 502, 503, 504])
    func exhaustedAttemptsReturnTheLastRetryableResponse(status: Int) async throws {
        try await withServer { server, client in
            let response = try await sender(client, attempts: 3).send(
                HTTPRequest(url: server.url("/status/\(status)?id=x\(status)")))
            #expect(response.status == status)
            #expect(try await requestCount(server, client, id: "x\(status)") == 3)
        }
    }

    @Test func exhaustedAttemptsThrowTheLastConnectivityError() async throws {
        let port = try closedPort()
        try await withClient { client in
            let log = RetryLog()
            let retrying = sender(client, attempts: 3)
            let error = try #require(await httpError { () async throws(HTTPError) in
                try await retrying.send(HTTPRequest(url: "http://127.0.0.1:\(port)/"), onRetry: log.record)
            })
            #expect(error.kind == .connectionRefused)
            #expect(log.all.count == 2)
            #expect(log.all.allSatisfy { if case .error(let error) = $0.reason { error.kind == .connectionRefused } else { false } })
        }
    }

    @Test func truncatedBodiesAndResetsAreRetried() async throws {
        try await withServer { server, client in
            for path in ["truncated", "reset"] {
                // A fresh client: libcurl itself resends once when a *reused* connection dies
                // before any answer, which would add a request to the count.
                let error = try await withClient { fresh in
                    let retrying = sender(fresh, attempts: 2)
                    return try #require(await httpError { () async throws(HTTPError) in
                        try await retrying.send(HTTPRequest(url: server.url("/\(path)?id=\(path)")))
                    })
                }
                #expect(error.isConnectivity)
                #expect(try await requestCount(server, client, id: path) == 2)
            }
        }
    }

    @Test func nonConnectivityErrorsAreNotRetried() async throws {
        try await withServer { server, client in
            let log = RetryLog()
            let retrying = sender(client, attempts: 3)
            let error = try #require(await httpError { () async throws(HTTPError) in
                try await retrying.send(
                    HTTPRequest(url: server.url("/big?id=big&size=2000"), maxResponseSize: 1000), onRetry: log.record)
            })
            #expect(error.kind == .tooLarge)
            #expect(log.all.isEmpty)
            #expect(try await requestCount(server, client, id: "big") == 1)
        }
    }

    @Test func cancellationDuringTheBackoffStopsAtOnce() async throws {
        try await withServer { server, client in
            let (retried, retriedContinuation) = AsyncStream.makeStream(of: Void.self)
            // An hour's wait, no jitter: a cancellation that did not cut the backoff short
            // could not finish this test in any plausible time, however loaded the machine.
            let retrying = RetryingSender(
                client: client, policy: RetryPolicy(attempts: 3, backoff: .seconds(3600), maxBackoff: .seconds(3600), jitter: .none),
                seed: 1)
            let task = Task { () async throws(HTTPError) -> HTTPResponse in
                try await retrying.send(HTTPRequest(url: server.url("/status/503"))) { _ in retriedContinuation.yield() }
            }
            for await _ in retried { break }
            let clock = ContinuousClock()
            let start = clock.now
            task.cancel()
            let result = await task.result
            #expect(clock.now - start < .seconds(600))
            #expect(result.httpErrorKind == .cancelled)
        }
    }
}
