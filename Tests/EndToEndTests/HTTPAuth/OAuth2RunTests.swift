import Foundation
import Sandbox
import Testing

/// OAuth 2 through the real binary against the sandbox's token endpoint.
@Suite("run: OAuth2 end to end")
struct OAuth2RunTests {
    /// The rows the same list gives with basic auth: the reference every OAuth 2 run matches.
    private func referenceRows(_ harness: SandboxHarness, pageSize: Int) async throws -> [String] {
        let file = try oauth2Pipeline(auth: "basic: { username: test@liferay.com, password: test }", pageSize: pageSize)
        let result = try await harness.run(file)
        try #require(result.status == 0, "stderr: \(result.stderr)")
        return result.stdoutLines
    }

    @Test("client credentials: one token for the whole run, every row once")
    func clientCredentialsGrant() async throws {
        try await withOAuth2Sandbox { harness in
            let reference = try await referenceRows(harness, pageSize: 25)
            #expect(reference.count == 73)
            let result = try await harness.run(try oauth2Pipeline(auth: OAuth2RunTestsSupport.credentials))
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
            #expect(harness.server.oauth2TokensIssued == 1)
        }
    }

    @Test("client authentication by HTTP basic works as well as by form parameters")
    func basicClientAuthentication() async throws {
        try await withOAuth2Sandbox { harness in
            let result = try await harness.run(try oauth2Pipeline(auth: oauth2ClientBlock("client-auth: basic")))
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines.count == 73)
        }
    }

    @Test("the token expires after page 2: the run refreshes once on the 401 and completes with every row once")
    func tokenExpiresMidRun() async throws {
        var plan = OAuth2Plan.standard
        plan.tokenUses = 2
        try await withOAuth2Sandbox(plan) { harness in
            let reference = try await referenceRows(harness, pageSize: 25)
            let result = try await harness.run(try oauth2Pipeline(auth: OAuth2RunTestsSupport.credentials, prefetch: 1), ["-v"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
            #expect(harness.server.oauth2TokensIssued == 2)
            #expect(result.stderr.contains("refused the OAuth2 token (HTTP 401); obtaining a new one"))
        }
    }

    @Test("a short-lived token is renewed before it expires, without a refused request")
    func renewedBeforeExpiry() async throws {
        // Ten-second tokens are renewed a second early; 73 pages of 200 ms latency take longer
        // than one token lives. The second of margin is what lets a request taken just
        // before the renewal reach the server inside its token's life on a loaded machine.
        var plan = OAuth2Plan.standard
        plan.tokenLifetime = .seconds(10)
        try await withOAuth2Sandbox(plan, faults: FaultPlan(latency: .milliseconds(200))) { harness in
            let result = try await harness.run(try oauth2Pipeline(auth: OAuth2RunTestsSupport.credentials, pageSize: 1, prefetch: 1), ["-v"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines.count == 73)
            #expect(harness.server.oauth2TokensIssued >= 2)
            #expect(!result.stderr.contains("HTTP 401"))
        }
    }

    @Test("a fan-out's parent and child lists share one token")
    func fanOutSharesTheToken() async throws {
        try await withOAuth2Sandbox { harness in
            let basic = try await harness.run("pipelines/all-structured-contents.yaml")
            try #require(basic.status == 0, "stderr: \(basic.stderr)")
            let file = try CommandRunner.temporaryDirectory().appendingPathComponent("fan.yaml")
            let text = try String(contentsOfFile: "pipelines/all-structured-contents.yaml", encoding: .utf8)
                .replacingOccurrences(
                    of: "    basic:\n      username: ${LIFERAY_USER:-test@liferay.com}\n      password: ${LIFERAY_PASSWORD:-test}",
                    with: "    oauth2: { client-id: sandbox-client, client-secret: sandbox-secret }")
            try #require(text.contains("oauth2"))
            try text.write(to: file, atomically: true, encoding: .utf8)
            let result = try await harness.run(file.path)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == basic.stdoutLines)
            #expect(harness.server.oauth2TokensIssued == 1)
        }
    }

    @Test("refresh-token grant: the configured refresh token obtains the access token")
    func refreshTokenGrant() async throws {
        try await withOAuth2Sandbox { harness in
            let auth = """
                oauth2:
                  grant: refresh-token
                  client-id: sandbox-client
                  client-secret: sandbox-secret
                  refresh-token: ${REFRESH}
                """
            let result = try await harness.run(try oauth2Pipeline(auth: auth), environment: ["REFRESH": "sandbox-refresh-token"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines.count == 73)
        }
    }

    @Test("a refused refresh is a clear authentication error naming the cause, with no secret shown")
    func refusedRefresh() async throws {
        try await withOAuth2Sandbox { harness in
            let wrongSecret = try await harness.run(try oauth2Pipeline(auth: oauth2ClientBlock(secret: "WRONG-secret-77")))
            #expect(wrongSecret.status != 0)
            #expect(wrongSecret.stderr.contains("invalid_client"), "stderr: \(wrongSecret.stderr)")
            #expect(wrongSecret.stderr.contains("page 0"), "stderr: \(wrongSecret.stderr)")
            #expect(!wrongSecret.stderr.contains("WRONG-secret-77"))
            #expect(wrongSecret.stdoutLines.isEmpty)

            let auth = """
                oauth2:
                  grant: refresh-token
                  client-id: sandbox-client
                  client-secret: sandbox-secret
                  refresh-token: REVOKED-refresh-99
                """
            let revoked = try await harness.run(try oauth2Pipeline(auth: auth))
            #expect(revoked.status != 0)
            #expect(revoked.stderr.contains("invalid_grant"), "stderr: \(revoked.stderr)")
            #expect(!revoked.stderr.contains("REVOKED-refresh-99"))
        }
    }

    @Test("secrets and tokens appear in no output: rows, events, logs, trace, cache database")
    func secretsStayOut() async throws {
        try await withOAuth2Sandbox { harness in
            let directory = try CommandRunner.temporaryDirectory()
            let cache = directory.appendingPathComponent("cache.db").path
            let trace = directory.appendingPathComponent("trace.json").path
            let file = try oauth2Pipeline(
                auth: oauth2ClientBlock(secret: "${CLIENT_SECRET}"),
                extra: "cache: { policy: remote-first, path: \(cache) }", in: directory)
            let result = try await harness.run(
                file, ["--events", "-v", "--trace", trace], environment: ["CLIENT_SECRET": "sandbox-secret"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let tokens = harness.server.oauth2IssuedTokens
            #expect(harness.server.oauth2TokensIssued == 1)
            let plan = try await CommandRunner.run(["plan", file], environment: ["LIFERAY_SERVER": harness.server.baseURL, "CLIENT_SECRET": "sandbox-secret"])
            #expect(plan.status == 0, "stderr: \(plan.stderr)")
            #expect(plan.stdoutText.contains("an OAuth2 token from POST"), "plan: \(plan.stdoutText)")
            let cacheFiles = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("cache.db") }
            #expect(!cacheFiles.isEmpty)
            var outputs = [result.stdout, Data(result.stderr.utf8), try Data(contentsOf: URL(fileURLWithPath: trace)), plan.stdout, Data(plan.stderr.utf8)]
            for name in cacheFiles { outputs.append(try Data(contentsOf: directory.appendingPathComponent(name))) }
            for output in outputs {
                for secret in ["sandbox-secret"] + tokens {
                    #expect(output.range(of: Data(secret.utf8)) == nil, "\(secret) leaked")
                }
            }
        }
    }
}

enum OAuth2RunTestsSupport {
    static let credentials = oauth2ClientBlock()
}
