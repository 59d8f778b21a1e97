import Sandbox
import ScreensJSON
import Testing

@Suite("Fault injection")
struct FaultTests {
    static let count = #"{"/bookmarks.bookmarksentry/get-entries-count":{"groupId":20143,"folderId":0}}"#
    static let page = #"{"/bookmarks.bookmarksentry/get-entries":{"groupId":20143,"folderId":0,"start":0,"end":50}}"#

    static func faults(_ configure: @escaping (inout FaultPlan) -> Void) -> SandboxConfigurationBuilder {
        .init { configuration in
            var plan = FaultPlan.none
            configure(&plan)
            configuration.faults = plan
        }
    }

    @Test("failEvery 2 answers 503 with Retry-After and a JSON error body on requests 2 and 4")
    func failEvery() async throws {
        try await withSandbox(Self.faults { $0.failEvery = 2; $0.retryAfter = "1" }) { client, server in
            var statuses: [Int] = []
            for _ in 1...4 {
                let response = try #require(try client.invoke(Self.count).response)
                statuses.append(response.status)
                if response.status == 503 {
                    #expect(response.header("Retry-After") == "1")
                    let body = try response.json()
                    #expect(body["exception"] == "Service Unavailable")
                    #expect(body["error"]?["type"]?.stringValue != nil)
                }
            }
            #expect(statuses == [200, 503, 200, 503])
            // Pages that are not data endpoints are neither faulted nor numbered.
            _ = try client.get("/c/portal/login").expect(200)
            #expect(try client.invoke(Self.count).response?.status == 200)
            #expect(server.requestCount == 6)
        }
    }

    @Test("failStatus 429 with an HTTP-date Retry-After")
    func rateLimited() async throws {
        let date = "Wed, 21 Oct 2015 07:28:00 GMT"
        try await withSandbox(Self.faults { $0.failEvery = 1; $0.failStatus = 429; $0.retryAfter = date }) { client, _ in
            let response = try client.get("/rest/bookmarks/offset").expect(429)
            #expect(response.header("Retry-After") == date)
            #expect(try response.json()["exception"] == "Too Many Requests")
        }
    }

    @Test("failRate draws from the seed: the same seed fails the same requests, another seed others")
    func failRateIsSeeded() async throws {
        func statuses(seed: UInt64) async throws -> [Int] {
            try await withSandbox(.init { $0.faults.failRate = 0.5; $0.seed = seed }) { client, _ in
                try (1...40).map { _ in try #require(try client.get("/rest/bookmarks/offset?limit=1").response).status }
            }
        }
        let first = try await statuses(seed: 7)
        #expect(first.contains(503) && first.contains(200))
        #expect(try await statuses(seed: 7) == first)
        #expect(try await statuses(seed: 8) != first)
    }

    @Test("resetEvery: the client sees the connection reset, with no response")
    func reset() async throws {
        try await withSandbox(Self.faults { $0.resetEvery = 2 }) { client, _ in
            _ = try client.invoke(Self.page).expect(200)
            let exchange = try client.invoke(Self.page)
            guard case .reset(let received) = exchange else {
                Issue.record("expected a reset, got \(exchange)")
                return
            }
            #expect(received.isEmpty)
            _ = try client.invoke(Self.page).expect(200)
        }
    }

    @Test("truncateEvery: full Content-Length announced, half the body sent, connection closed")
    func truncated() async throws {
        try await withSandbox(Self.faults { $0.truncateEvery = 1 }) { client, _ in
            let exchange = try client.invoke(Self.page)
            guard case .truncated(let response, let expected) = exchange else {
                Issue.record("expected a truncated body, got \(exchange)")
                return
            }
            #expect(response.status == 200)
            #expect(response.body.count == expected / 2)
            #expect(throws: (any Error).self) { try response.json() }
        }
    }

    @Test("malformedEvery: a 200 whose body is not JSON")
    func malformed() async throws {
        try await withSandbox(Self.faults { $0.malformedEvery = 1 }) { client, _ in
            for exchange in [try client.invoke(Self.page), try client.invoke(Self.count), try client.get("/rest/bookmarks/cursor")] {
                let response = try exchange.expect(200)
                #expect(throws: JSONParseError.self) { try response.json() }
            }
        }
    }

    @Test("stallEvery: headers and part of the body arrive, then nothing until the client gives up")
    func stall() async throws {
        try await withSandbox(Self.faults { $0.stallEvery = 1; $0.stallDuration = .seconds(600) }) { client, _ in
            var impatient = client
            // Long enough for the partial response to arrive on a loaded machine, far shorter
            // than the 600 s stall: the receive after the partial body is the one that times out.
            impatient.timeout = 20
            let exchange = try impatient.invoke(Self.page)
            guard case .timedOut(let received) = exchange else {
                Issue.record("expected a stall, got \(exchange)")
                return
            }
            let partial = try TestHTTPClient.parse(received)
            #expect(partial.status == 200)
            let length = try #require(partial.header("Content-Length").flatMap(Int.init))
            #expect(partial.body.count == length / 2)
        }
    }

    @Test("a short stall delivers the whole body afterwards")
    func shortStallCompletes() async throws {
        try await withSandbox(Self.faults { $0.stallEvery = 1; $0.stallDuration = .milliseconds(50) }) { client, _ in
            let body = try client.invoke(Self.page).expect(200).json()
            #expect(body.entryIds.count == 50)
        }
    }

    @Test("latency: a client with a shorter timeout gives up; a patient one gets the answer")
    func latency() async throws {
        try await withSandbox(Self.faults { $0.latency = .seconds(3) }) { client, _ in
            var impatient = client
            impatient.timeout = 0.3
            let exchange = try impatient.invoke(Self.count)
            guard case .timedOut(let received) = exchange else {
                Issue.record("expected a timeout, got \(exchange)")
                return
            }
            #expect(received.isEmpty)
        }
        try await withSandbox(Self.faults { $0.latency = .milliseconds(20) }) { client, _ in
            let count = try client.invoke(Self.count).expect(200).json()
            #expect(count == 73)
        }
    }

    @Test("latency that counts the sandbox's work: no answer leaves before the latency has passed, a faulty one included")
    func latencyCountsWork() async throws {
        try await withSandbox(Self.faults { $0.latency = .milliseconds(300); $0.latencyCountsWork = true; $0.failEvery = 2 }) { client, _ in
            let clock = ContinuousClock()
            let first = clock.now
            let count = try client.invoke(Self.count).expect(200).json()
            #expect(count == 73)
            #expect(clock.now - first >= .milliseconds(300))
            let second = clock.now
            let failed = try client.invoke(Self.count).response?.status
            #expect(failed == 503)
            #expect(clock.now - second >= .milliseconds(300))
            let third = clock.now
            let page = try client.invoke(Self.page).expect(200).json()
            #expect(page.arrayValue?.count == 50)
            #expect(clock.now - third >= .milliseconds(300))
        }
    }

    @Test("down: every connection is reset at once, nothing is served")
    func down() async throws {
        try await withSandbox(Self.faults { $0.down = true }) { client, server in
            for _ in 1...3 {
                let exchange = try client.invoke(Self.count)
                switch exchange {
                case .reset(let received): #expect(received.isEmpty)
                case .closedEmpty: break
                default: Issue.record("expected a reset, got \(exchange)")
                }
            }
            #expect(server.requestCount == 0)
        }
    }
}
