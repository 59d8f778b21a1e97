import Foundation
import Testing

/// Credentials go only where they are meant to, checked through the real binary: a scripted
/// "portal" on 127.0.0.1 and a second recording server on 127.0.0.2 (another host as far as
/// the run knows; Linux routes all of 127.0.0.0/8 to `lo`) that must see no credentials.
@Suite("run: credentials and secrets end to end")
struct CredentialRunTests {
    static let token = "tok-Vx9-SECRET"

    /// A REST pipeline against `server` with a bearer token and `paginate`.
    private func pipeline(
        server: String, url: String = "/items", paginate: String, extra: String = ""
    ) throws -> String {
        let directory = try CommandRunner.temporaryDirectory()
        let path = directory.appendingPathComponent("p.yaml").path
        let text = """
            name: security
            source:
              type: rest
              server: \(server)
              url: \(url)
              records: items
              paginate: \(paginate)
              auth: { bearer: "\(Self.token)" }
              retry: { attempts: 1 }
            \(extra)
            """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func other() throws -> RecordingServer {
        // `"next": null` says the list ends here (a missing key on a full page is an error).
        try RecordingServer(host: "127.0.0.2") { _ in .init(body: #"{"items":[{"id":2}],"next":null}"#) }
    }

    @Test("a next link to another origin is an error naming both origins; the other host sees nothing")
    func nextLinkToAnotherOrigin() async throws {
        let stranger = try other()
        defer { stranger.stop() }
        let next = "\(stranger.origin)/page2?access_token=LEAKED-IN-LINK"
        let portal = try RecordingServer(host: "127.0.0.1") { target in
            target.hasPrefix("/items") ? .init(body: #"{"items":[{"id":1}],"next":"\#(next)"}"#) : .init(status: 404)
        }
        defer { portal.stop() }
        let file = try pipeline(server: portal.origin, paginate: "{ style: next-link, next-path: next }")
        let result = try await CommandRunner.run(["run", file, "-v"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("127.0.0.2:\(stranger.port)"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("127.0.0.1:\(portal.port)"), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains(Self.token))
        #expect(stranger.requests.isEmpty)
        #expect(portal.requests.count == 1)
        #expect(portal.requests.first?.head.contains("Authorization: Bearer \(Self.token)") == true)
    }

    @Test("follow-other-origins: true follows the link without credentials")
    func optInFollowsWithoutCredentials() async throws {
        let stranger = try other()
        defer { stranger.stop() }
        let portal = try RecordingServer(host: "127.0.0.1") { _ in
            .init(body: #"{"items":[{"id":1}],"next":"\#(stranger.origin)/page2"}"#)
        }
        defer { portal.stop() }
        let file = try pipeline(
            server: portal.origin, paginate: "{ style: next-link, next-path: next }",
            extra: "  follow-other-origins: true\n  headers: { X-Api-Key: key-SECRET-1 }")
        let result = try await CommandRunner.run(["run", file])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutLines.count == 2)
        let head = try #require(stranger.requests.first?.head)
        #expect(!head.lowercased().contains("authorization"))
        #expect(!head.contains("key-SECRET-1"))
    }

    @Test("a Link header to another origin is refused; the other host sees nothing")
    func linkHeaderToAnotherOrigin() async throws {
        let stranger = try other()
        defer { stranger.stop() }
        let portal = try RecordingServer(host: "127.0.0.1") { _ in
            .init(headers: [("Link", "<\(stranger.origin)/p2>; rel=\"next\"")], body: #"{"items":[{"id":1}]}"#)
        }
        defer { portal.stop() }
        let file = try pipeline(server: portal.origin, paginate: "link-header")
        let result = try await CommandRunner.run(["run", file])
        #expect(result.status != 0)
        #expect(result.stderr.contains("another origin"), "stderr: \(result.stderr)")
        #expect(stranger.requests.isEmpty)
    }

    @Test("a redirect is not followed, and its Location is shown with control characters escaped")
    func redirectNotFollowedAndSanitized() async throws {
        let stranger = try other()
        defer { stranger.stop() }
        let portal = try RecordingServer(host: "127.0.0.1") { _ in
            .init(status: 302, headers: [("Location", "\(stranger.origin)/x\u{1B}]0;pwned\u{07}")], body: "")
        }
        defer { portal.stop() }
        let file = try pipeline(server: portal.origin, paginate: "offset")
        let result = try await CommandRunner.run(["run", file])
        #expect(result.status != 0)
        #expect(!result.stderr.contains("\u{1B}"))
        #expect(!result.stderr.contains("\u{07}"))
        #expect(result.stderr.contains("\\u{1b}"), "stderr: \(result.stderr)")
        #expect(stranger.requests.isEmpty)
    }

    @Test("a portal exception message cannot drive the terminal")
    func portalMessageSanitized() async throws {
        let portal = try RecordingServer(host: "127.0.0.1") { _ in
            .init(status: 500, body: #"{"exception":"boom \u001b[2J\r\u202efake line"}"#)
        }
        defer { portal.stop() }
        let file = try pipeline(server: portal.origin, paginate: "offset")
        let result = try await CommandRunner.run(["run", file])
        #expect(result.status != 0)
        #expect(!result.stderr.contains("\u{1B}"))
        #expect(!result.stderr.contains("\r"))
        #expect(!result.stderr.contains("\u{202E}"))
        #expect(result.stderr.contains("boom"), "stderr: \(result.stderr)")
    }

    @Test("a headless path that names a host is a configuration error and nothing is sent", arguments: [
        "\"@127.0.0.2:PORT/o/x\"", "//127.0.0.2:PORT/o/x", "http://127.0.0.2:PORT/o/x",
    ])
    func headlessPathMustBeAPath(path: String) async throws {
        let stranger = try other()
        defer { stranger.stop() }
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("h.yaml").path
        try """
            name: h
            source:
              type: liferay-headless
              server: http://127.0.0.1:9
              path: \(path.replacingOccurrences(of: "PORT", with: String(stranger.port)))
              auth: { basic: { username: u, password: pw-SECRET } }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", file])
        #expect(result.status != 0)
        #expect(result.stderr.contains("'path' must be a path"), "stderr: \(result.stderr)")
        #expect(stranger.requests.isEmpty)
    }

    @Test("plain http with credentials is refused whatever the spelling", arguments: [
        "HTTP://portal.invalid", "Http://127.example.com", "http://alice:pw-SECRET@portal.invalid",
        "http://127.0.0.1.example.com",
    ])
    func plainHTTPRefused(server: String) async throws {
        let file = try pipeline(server: server, paginate: "offset")
        let result = try await CommandRunner.run(["run", file])
        #expect(result.status != 0)
        #expect(result.stderr.contains("refusing to send credentials over plain http"), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("pw-SECRET"))
    }

    @Test("environment proxies are not used: the request goes straight to the server")
    func environmentProxyIgnored() async throws {
        let proxy = try other()
        defer { proxy.stop() }
        let portal = try RecordingServer(host: "127.0.0.1") { _ in .init(body: #"{"items":[]}"#) }
        defer { portal.stop() }
        let file = try pipeline(server: portal.origin, paginate: "offset")
        let result = try await CommandRunner.run(
            ["run", file], environment: ["http_proxy": proxy.origin, "HTTP_PROXY": proxy.origin, "all_proxy": proxy.origin])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(proxy.requests.isEmpty)
        #expect(portal.requests.count == 1)
    }
}
