import Foundation
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite("HTTP client cancellation and shutdown")
struct HTTPClientCancellationTests {
    @Test func cancellingAStalledRequestReturnsPromptly() async throws {
        try await withServer { server, client in
            let task = Task { () async throws(HTTPError) -> HTTPResponse in
                try await client.send(HTTPRequest(url: server.url("/stall?seconds=30"), timeout: .seconds(60)))
            }
            try await Task.sleep(for: .milliseconds(300))
            task.cancel()
            let result = await task.result
            // Aborted, not waited out: a transfer left to run would end in a stall error (the
            // low-speed limit, a timeout, or the body cut short after 30 s), never in
            // `.cancelled`. How fast the abort is, is measured by `make bench`, not asserted.
            #expect(result.httpErrorKind == .cancelled)
            // The client still works afterwards.
            let response = try await client.send(HTTPRequest(url: server.url("/echo")))
            #expect(response.status == 200)
        }
    }

    @Test func aTaskCancelledBeforeSendingNeverSends() async throws {
        try await withServer { server, client in
            let task = Task { () async throws(HTTPError) -> HTTPResponse in
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.send(HTTPRequest(url: server.url("/echo?id=early")))
            }
            let result = await task.result
            #expect(result.httpErrorKind == .cancelled)
            let count = try jsonObject(try await client.send(HTTPRequest(url: server.url("/count?id=early"))))["count"] as? Int
            #expect(count == 0)
        }
    }

    @Test func shutdownCancelsTransfersInFlightAndLaterSends() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let client = HTTPClient()
        let stalled = (0..<5).map { _ in
            Task { () async throws(HTTPError) -> HTTPResponse in
                try await client.send(HTTPRequest(url: server.url("/stall?seconds=30"), timeout: .seconds(60)))
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        await client.shutdown()
        for task in stalled {
            let result = await task.result
            #expect(result.httpErrorKind == .cancelled)
        }
        let later = await httpError { () async throws(HTTPError) in try await client.send(HTTPRequest(url: server.url("/echo"))) }
        #expect(later?.kind == .cancelled)
        await client.shutdown()  // idempotent
    }

    @Test func cancellationsRacingSubmissionAndCompletionAlwaysEnd() async throws {
        try await withServer { server, client in
            // Cancel at every stage: before submission, while queued, mid-transfer, after the
            // answer. Each send must end exactly once, with a response or `.cancelled`.
            var random = SplitMix64(seed: 99)
            let delays = (0..<200).map { _ in Int.random(in: 0...40, using: &random) }
            let outcomes = await withTaskGroup(of: Result<HTTPResponse, any Error>.self) { group in
                for delay in delays {
                    group.addTask {
                        let task = Task { () async throws(HTTPError) -> HTTPResponse in
                            try await client.send(HTTPRequest(url: server.url("/sleep?ms=20")))
                        }
                        try? await Task.sleep(for: .milliseconds(delay))
                        task.cancel()
                        return await task.result
                    }
                }
                var outcomes: [Result<HTTPResponse, any Error>] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.count == 200)
            for outcome in outcomes {
                switch outcome {
                case .success(let response): #expect(response.status == 200)
                case .failure: #expect(outcome.httpErrorKind == .cancelled)
                }
            }
        }
    }
}
