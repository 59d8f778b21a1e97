import Foundation
import ScreensBus
import Synchronization
import Testing

/// Servers that echo what they were sent, send terminal control sequences in their links,
/// impossible totals, hour-long `Retry-After`s and pages of millions of rows: each ends in a
/// clear error (or a short wait) through the real binary, with no secret shown anywhere.
@Suite("hostile servers: echoed secrets, control characters, totals, waits, huge pages")
struct HostileEchoRunTests {
    /// Answers by request number (0 = the first), for servers whose answer changes.
    final class Script: Sendable {
        private let count = Mutex(0)
        private let answer: @Sendable (Int, String) -> RecordingServer.Reply

        init(_ answer: @escaping @Sendable (Int, String) -> RecordingServer.Reply) { self.answer = answer }

        func reply(_ target: String) -> RecordingServer.Reply {
            let number = count.withLock { count in
                defer { count += 1 }
                return count
            }
            return answer(number, target)
        }
    }

    private static func run(_ source: String, server: RecordingServer, url: String = "/items", arguments: [String] = []) async throws -> CommandResult {
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("hostile.yaml")
        try """
            name: hostile
            source:
              type: rest
              server: \(server.origin)
              url: \(url)
              records: items
            \(source.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            """.write(to: file, atomically: true, encoding: .utf8)
        return try await CommandRunner.run(
            ["run", file.path] + arguments, environment: ["SCREENS_PIPE_CACHE_DIR": directory.appendingPathComponent("cache").path])
    }

    /// Everything a person or a consumer sees of a run.
    private static func shown(_ result: CommandResult) -> String { result.stderr + result.stdoutText }

    // MARK: Secrets echoed by the server

    @Test("a bearer token the server repeats in its error body is redacted in the error, the -v log and the events")
    func echoedBearer() async throws {
        let server = try RecordingServer(host: "127.0.0.1") { _ in
            .init(status: 503, body: #"{"message":"token brrSECRET4711 is throttled; Bearer brrSECRET4711"}"#)
        }
        defer { server.stop() }
        let result = try await Self.run(
            "paginate: { style: next-link, next-path: next }\nauth: { bearer: brrSECRET4711 }\nretry: { attempts: 2, backoff: 10ms }",
            server: server, arguments: ["-v", "--events"])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(server.requests.count == 2)
        #expect(result.stderr.contains("HTTP 503: token <redacted> is throttled"), "stderr: \(result.stderr)")
        #expect(!Self.shown(result).contains("brrSECRET4711"), "\(Self.shown(result))")
    }

    @Test("a bearer token the server repeats in a redirect's Location, or in a 200 that is not JSON, is redacted")
    func echoedInRedirectAndBody() async throws {
        let server = try RecordingServer(host: "127.0.0.1") { target in
            target.hasPrefix("/items")
                ? .init(status: 302, headers: [("Location", "/elsewhere?t=brrSECRET4711")], body: "")
                : .init(body: "<html>brrSECRET4711</html>")
        }
        defer { server.stop() }
        let redirect = try await Self.run(
            "paginate: { style: next-link, next-path: next }\nauth: { bearer: brrSECRET4711 }\nretry: { attempts: 1 }", server: server, arguments: ["--events"])
        #expect(redirect.status == 1, "stderr: \(redirect.stderr)")
        #expect(redirect.stderr.contains("redirect to /elsewhere?t=<redacted>"), "stderr: \(redirect.stderr)")
        #expect(!Self.shown(redirect).contains("brrSECRET4711"), "\(Self.shown(redirect))")
        let notJSON = try await Self.run(
            "paginate: { style: next-link, next-path: next }\nauth: { bearer: brrSECRET4711 }\nretry: { attempts: 2, backoff: 10ms }",
            server: server, url: "/page", arguments: ["-v", "--events"])
        #expect(notJSON.status == 1, "stderr: \(notJSON.stderr)")
        #expect(notJSON.stderr.contains("<html><redacted></html>"), "stderr: \(notJSON.stderr)")
        #expect(!Self.shown(notJSON).contains("brrSECRET4711"), "\(Self.shown(notJSON))")
    }

    @Test("an OAuth2 access token the server repeats in its error body is redacted everywhere")
    func echoedOAuth2Token() async throws {
        let server = try RecordingServer(host: "127.0.0.1") { target in
            if target.hasPrefix("/o/oauth2/token") { return .init(body: #"{"access_token":"oaTOKEN0815x","token_type":"Bearer","expires_in":3600}"#) }
            return .init(status: 400, body: #"{"message":"the token oaTOKEN0815x lacks the scope items.read"}"#)
        }
        defer { server.stop() }
        let result = try await Self.run(
            "paginate: { style: next-link, next-path: next }\nauth: { oauth2: { client-id: app, client-secret: csSECRET9 } }\nretry: { attempts: 1 }",
            server: server, arguments: ["-v", "--events"])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(server.requests.contains { $0.head.contains("Bearer oaTOKEN0815x") })
        #expect(result.stderr.contains("the token <redacted> lacks the scope"), "stderr: \(result.stderr)")
        #expect(!Self.shown(result).contains("oaTOKEN0815x"), "\(Self.shown(result))")
        #expect(!Self.shown(result).contains("csSECRET9"))
    }

    @Test("a { secret: } query value the server repeats in its next links is redacted in the -v log, the events and the error")
    func secretInNextLink() async throws {
        let server = try RecordingServer(host: "127.0.0.1") { target in
            if target.contains("p=2") { return .init(status: 400, body: #"{"message":"no page 2"}"#) }
            return .init(body: #"{"items":[{"id":1}],"next":"/items?team=teamSECRET42&p=2"}"#)
        }
        defer { server.stop() }
        let result = try await Self.run(
            "paginate: { style: next-link, next-path: next }\nquery: { team: { secret: teamSECRET42 } }\nretry: { attempts: 1 }",
            server: server, arguments: ["-v", "--events"])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(server.requests.count == 2)
        #expect(result.stderr.contains("team=<redacted>&p=2"), "stderr: \(result.stderr)")
        #expect(!Self.shown(result).contains("teamSECRET42"), "\(Self.shown(result))")
    }

    @Test("write --dry-run redacts p_auth, password1 and apiToken parameters as plan does; other values show")
    func dryRunRedacts() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try """
            name: custom-dry
            sink:
              type: liferay
              server: http://127.0.0.1:9
              auth: { basic: { username: u, password: basicSECRET0 } }
              group-id: 20143
              service: custom
              command: /some.thing/add-thing
              fields:
                name: row.name
                p_auth: pauthSECRET1
                password1: row.pw
                apiToken: row.token
            """.write(to: directory.appendingPathComponent("custom.yaml"), atomically: true, encoding: .utf8)
        try #"{"name":"visible-name","pw":"pwSECRET2","token":"tokSECRET3"}"#.write(
            to: directory.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(
            ["write", "custom.yaml", "--input", "in.jsonl", "--dry-run"], environment: ["SCREENS_PIPE_CACHE_DIR": directory.appendingPathComponent("cache").path],
            directory: directory)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let request = try #require(try result.jsonLines().first { $0["event"] == "custom" && $0["name"] == "request" })
        let parameters = request["payload"]?["body"]?[0]?["/some.thing/add-thing"]
        #expect(parameters?["name"] == "visible-name", "\(request.jsonString)")
        #expect(parameters?["p_auth"] == "<redacted>")
        #expect(parameters?["password1"] == "<redacted>")
        #expect(parameters?["apiToken"] == "<redacted>")
        for secret in ["basicSECRET0", "pauthSECRET1", "pwSECRET2", "tokSECRET3"] {
            #expect(!Self.shown(result).contains(secret), "\(secret) shown: \(Self.shown(result))")
        }
    }

    // MARK: Control characters in next links

    @Test("ESC, BEL, CR and LF in a next link reach no terminal raw, and add no header to a request")
    func controlCharactersInNextLink() async throws {
        let server = try RecordingServer(host: "127.0.0.1") { target in
            if target == "/items" {
                return .init(body: #"{"items":[{"id":1}],"next":"/items?p=2\u001b]0;pwned\u0007\u001b[2J\r\nX-Injected: 1"}"#)
            }
            return .init(status: 500, body: #"{"message":"no"}"#)
        }
        defer { server.stop() }
        let result = try await Self.run(
            "paginate: { style: next-link, next-path: next }\nretry: { attempts: 1 }", server: server, arguments: ["-v"])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        let controls = result.stderr.unicodeScalars.filter { $0.value < 0x20 && $0 != "\n" }
        #expect(controls.isEmpty, "raw control characters on stderr: \(result.stderr.debugDescription)")
        #expect(result.stderr.contains("\\u{1b}"), "stderr: \(result.stderr)")
        #expect(!server.requests.contains { $0.head.contains("\r\nX-Injected") })
    }

    // MARK: Impossible totals

    @Test(
        "paginate: auto with a total that is negative, below the rows received, or gone on a later page is a pagination error naming the page",
        arguments: [
            (#"{"items":[{"id":1},{"id":2}],"total":-1}"#, "", "page 0", "is -1, which is negative"),
            (#"{"items":[{"id":1},{"id":2}],"total":1}"#, "", "page 0", "is 1, but 2 rows were received"),
            (#"{"items":[{"id":1},{"id":2}],"total":4}"#, #"{"items":[{"id":3},{"id":4}]}"#, "page 1", "is missing from this page"),
        ])
    func impossibleTotal(first: String, later: String, page: String, problem: String) async throws {
        let server = try RecordingServer(host: "127.0.0.1") { target in
            .init(body: target.contains("offset=") ? later : first)
        }
        defer { server.stop() }
        let result = try await Self.run("paginate: auto\nretry: { attempts: 1 }", server: server)
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(page), "stderr: \(result.stderr)")
        #expect(result.stderr.contains(problem), "stderr: \(result.stderr)")
    }

    // MARK: Retry-After and max-wait

    @Test("a 429 asking for an hour under rate-limit max-wait 1s is retried after about a second")
    func retryAfterCappedByMaxWait() async throws {
        let script = Script { number, _ in
            number == 0
                ? .init(status: 429, headers: [("Retry-After", "3600")], body: #"{"message":"slow down"}"#)
                : .init(body: #"{"items":[{"id":1}],"next":null}"#)
        }
        let server = try RecordingServer(host: "127.0.0.1") { script.reply($0) }
        defer { server.stop() }
        let result = try await Self.run(
            "paginate: { style: next-link, next-path: next }\nrate-limit: { requests: 100, per: 1s, max-wait: 1s }\nretry: { attempts: 2, backoff: 10ms }",
            server: server)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutLines.count == 1)
        let requests = server.requests
        #expect(requests.count == 2)
        // Measured at the server, between the two requests: the client's own wait.
        if requests.count == 2 {
            let waited = requests[1].arrived - requests[0].arrived
            #expect(waited >= .milliseconds(900) && waited < .seconds(20), "waited \(waited)")
        }
    }

    // MARK: A page of millions of rows

    @Test("a 20 MB page of 2,000,000 rows for a page of 5 is refused while it is read, with a peak RSS far below its rows' size")
    func hugePage() async throws {
        var body = #"{"items":["#
        body.reserveCapacity(24 << 20)
        for index in 0..<2_000_000 {
            if index > 0 { body += "," }
            body += #"{"id":\#(index)}"#
        }
        body += "]}"
        let page = body
        let server = try RecordingServer(host: "127.0.0.1") { _ in .init(body: page) }
        defer { server.stop() }
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipeline = directory.appendingPathComponent("huge.yaml")
        try """
            name: huge
            source:
              type: rest
              server: \(server.origin)
              url: /items
              records: items
              paginate: offset
              pagination: { first-page-size: 5, page-size: 5 }
              retry: { attempts: 1 }
            """.write(to: pipeline, atomically: true, encoding: .utf8)
        let (status, kib, stderr) = try await FileSourceMemoryRunTests.peakRSS(
            pipeline: pipeline.path, output: directory.appendingPathComponent("out.jsonl").path, directory: directory)
        #expect(status == 1, "stderr: \(stderr)")
        #expect(stderr.contains("page 0"), "stderr: \(stderr)")
        #expect(stderr.contains("the server sent more than 5 rows for a page of 5"), "stderr: \(stderr)")
        // The body is 20 MB (curl's buffer and one copy); its rows built would be hundreds.
        #expect(kib > 0 && kib < 160 << 10, "peak RSS \(kib >> 10) MiB")
    }
}
