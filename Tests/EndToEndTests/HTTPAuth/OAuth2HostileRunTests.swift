import Foundation
import Testing

/// A token endpoint that answers nonsense: each answer is a clear error, in bounded time,
/// and the run never sends a data request with a token it could not trust.
@Suite("run: hostile OAuth2 token endpoints")
struct OAuth2HostileRunTests {
    /// A REST pipeline against `server` whose token comes from `auth`.
    private func pipeline(server: RecordingServer, auth: String) throws -> String {
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("p.yaml").path
        try """
            source:
              type: rest
              server: \(server.origin)
              url: /items
              records: items
              paginate: { style: next-link, next-path: next }
              retry: { attempts: 1 }
              auth: { oauth2: { \(auth) } }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test(
        "hostile token answers end the run with an error naming the problem",
        arguments: [
            (200, String(repeating: "x", count: 100_000), "obtaining an OAuth2 token"),
            (200, #"{"access_token":"t0k","token_type":"Bearer"}"#, "no expires_in"),
            (200, #"{"access_token":"t0k","token_type":"Bearer","expires_in":-1}"#, "outside 1..."),
            (200, "<html>sign in</html>", "not valid JSON"),
            (200, #"{"access_token":"t0k","token_type":"MAC","expires_in":60}"#, "not Bearer"),
            (500, #"{"error":"server_error"}"#, "HTTP 500"),
        ])
    func hostile(_ status: Int, _ body: String, _ problem: String) async throws {
        let server = try RecordingServer(host: "127.0.0.1") { target in
            target.hasPrefix("/o/oauth2/token") ? .init(status: status, body: body) : .init(body: #"{"items":[],"next":null}"#)
        }
        defer { server.stop() }
        let file = try pipeline(server: server, auth: "client-id: app, client-secret: HOSTILE-secret-5")
        let result = try await CommandRunner.run(["run", file])
        #expect(result.status != 0)
        #expect(result.stderr.contains(problem), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("HOSTILE-secret-5"))
        #expect(server.requests.allSatisfy { $0.head.hasPrefix("POST /o/oauth2/token") }, "a data request was sent")
        let form = try #require(server.requests.first?.body)
        #expect(form.contains("grant_type=client_credentials"))
        #expect(server.requests.first?.head.lowercased().contains("content-type: application/x-www-form-urlencoded") == true)
    }

    @Test("a token endpoint on another origin is refused before anything is sent")
    func otherOrigin() async throws {
        let server = try RecordingServer(host: "127.0.0.1") { _ in .init(body: "{}") }
        defer { server.stop() }
        let file = try pipeline(server: server, auth: "token-url: \"http://127.0.0.2:\(server.port)/token\", client-id: app, client-secret: s")
        let result = try await CommandRunner.run(["run", file])
        #expect(result.status != 0)
        #expect(result.stderr.contains("allow-other-token-origin"), "stderr: \(result.stderr)")
        #expect(server.requests.isEmpty)
    }
}
