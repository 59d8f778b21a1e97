import Foundation
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite("HTTP client round trips")
struct HTTPClientTests {
    @Test func getSendsHeadersAndReturnsTheResponse() async throws {
        try await withServer { server, client in
            let request = HTTPRequest(url: server.url("/echo?q=1"), headers: ["X-Screens-Test": "hello"])
            let response = try await client.send(request)
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "application/json")
            #expect(response.effectiveURL == server.url("/echo?q=1"))
            let echo = try jsonObject(response)
            #expect(echo["method"] as? String == "GET")
            #expect(echo["path"] as? String == "/echo?q=1")
            let headers = echo["headers"] as? [[String]] ?? []
            #expect(headers.contains(["X-Screens-Test", "hello"]))
            #expect(headers.contains(["User-Agent", "screens-pipe"]))
            #expect(!headers.contains { $0.first == "Expect" })
        }
    }

    @Test func postSendsTheBodyExactly() async throws {
        try await withServer { server, client in
            let body = Array(#"[{"/bookmarks.bookmarksentry/get-entries":{"groupId":20143,"start":0,"end":50}}, "ñ€😀"]"#.utf8)
            let request = HTTPRequest(
                method: "POST", url: server.url("/echo"), headers: ["Content-Type": "application/json"], body: body)
            let echo = try jsonObject(try await client.send(request))
            #expect(echo["method"] as? String == "POST")
            #expect(echo["body"] as? String == String(decoding: body, as: UTF8.self))
            #expect((echo["headers"] as? [[String]] ?? []).contains(["Content-Type", "application/json"]))
        }
    }

    @Test func largePostBodyIsSentWithoutWaitingForContinue() async throws {
        try await withServer { server, client in
            let body = Array(repeating: UInt8(ascii: "z"), count: 200_000)
            let echo = try jsonObject(try await client.send(HTTPRequest(method: "POST", url: server.url("/echo"), body: body)))
            #expect((echo["body"] as? String)?.utf8.count == body.count)
        }
    }

    @Test func otherMethodsWithAndWithoutBody() async throws {
        try await withServer { server, client in
            let put = try jsonObject(try await client.send(HTTPRequest(method: "PUT", url: server.url("/echo"), body: Array("x=1".utf8))))
            #expect(put["method"] as? String == "PUT")
            #expect(put["body"] as? String == "x=1")
            let delete = try jsonObject(try await client.send(HTTPRequest(method: "DELETE", url: server.url("/echo"))))
            #expect(delete["method"] as? String == "DELETE")
            #expect(delete["body"] as? String == "")
        }
    }

    @Test func errorStatusesAreResponsesNotErrors() async throws {
        try await withServer { server, client in
            let response = try await client.send(HTTPRequest(url: server.url("/status/404")))
            #expect(response.status == 404)
            #expect(!response.isSuccess)
            #expect(try jsonObject(response)["status"] as? Int == 404)
        }
    }

    @Test func hundredConcurrentRequestsAllCompleteWithTheirOwnAnswers() async throws {
        try await withServer { server, client in
            let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<100 {
                    group.addTask {
                        let request = HTTPRequest(method: "POST", url: server.url("/echo"), body: Array("request \(index)".utf8))
                        let echo = try jsonObject(try await client.send(request))
                        return (index, echo["body"] as? String ?? "")
                    }
                }
                var bodies: [Int: String] = [:]
                for try await (index, body) in group { bodies[index] = body }
                return bodies
            }
            #expect(bodies.count == 100)
            for index in 0..<100 { #expect(bodies[index] == "request \(index)") }
        }
    }

    @Test func sequentialRequestsReuseTheConnection() async throws {
        try await withServer { server, client in
            let first = try jsonObject(try await client.send(HTTPRequest(url: server.url("/echo"))))
            let second = try jsonObject(try await client.send(HTTPRequest(url: server.url("/echo"))))
            let firstPort = try #require(first["client_port"] as? Int)
            #expect(second["client_port"] as? Int == firstPort)
        }
    }

    @Test func gzipBodiesAreDecoded() async throws {
        try await withServer { server, client in
            let response = try await client.send(HTTPRequest(url: server.url("/gzip?size=50000")))
            #expect(response.status == 200)
            #expect(response.headers["Content-Encoding"] == "gzip")
            #expect(try jsonObject(response)["text"] as? String == String(repeating: "x", count: 50_000))
        }
    }

    @Test func redirectsAreReturnedUnlessFollowingIsAskedFor() async throws {
        try await withServer { server, client in
            let redirect = try await client.send(HTTPRequest(url: server.url("/redirect?to=/echo")))
            #expect(redirect.status == 302)
            #expect(redirect.headers["location"] == "/echo")

            var following = HTTPRequest(url: server.url("/redirect?to=/echo"))
            following.followRedirects = true
            let followed = try await client.send(following)
            #expect(followed.status == 200)
            #expect(followed.effectiveURL == server.url("/echo"))
            #expect(try jsonObject(followed)["path"] as? String == "/echo")
        }
    }

    @Test func bigBodiesArriveWhole() async throws {
        try await withServer { server, client in
            for chunked in ["0", "1"] {
                let response = try await client.send(HTTPRequest(url: server.url("/big?size=3000000&chunked=\(chunked)")))
                #expect(response.body.count == 3_000_000)
                #expect(response.body.allSatisfy { $0 == UInt8(ascii: "a") })
            }
        }
    }

    @Test func aBodyExactlyAtTheLimitIsAccepted() async throws {
        try await withServer { server, client in
            for chunked in ["0", "1"] {
                let request = HTTPRequest(url: server.url("/big?size=100000&chunked=\(chunked)"), maxResponseSize: 100_000)
                let response = try await client.send(request)
                #expect(response.body.count == 100_000)
            }
        }
    }

    @Test func aSlowButSteadyBodyIsNotALowSpeedTimeout() async throws {
        try await withServer { server, client in
            let request = HTTPRequest(
                url: server.url("/drip?bytes=15&interval_ms=100"),
                lowSpeed: LowSpeedLimit(bytesPerSecond: 1, duration: .seconds(1)))
            let response = try await client.send(request)
            #expect(response.text == String(repeating: "d", count: 15))
        }
    }
}
