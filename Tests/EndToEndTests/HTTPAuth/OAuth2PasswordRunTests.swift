import Foundation
import Sandbox
import Testing

/// The OAuth 2 resource owner password grant (RFC 6749 §4.3), as Screens' Login Screenlet
/// signs in with `oauth2UsernamePassword`, through the real binary against the sandbox's
/// `/o/oauth2/token`.
@Suite("run: OAuth2 password grant end to end")
struct OAuth2PasswordRunTests {
    /// A headless structured-contents list of `site` signed in as `username`.
    private func passwordPipeline(
        username: String = "joe@liferay.com", password: String = "${USER_PASSWORD}", site: Int = 20143, pageSize: Int = 25,
        prefetch: Int = 4, extra: String = "", in directory: URL? = nil
    ) throws -> String {
        let directory = try directory ?? CommandRunner.temporaryDirectory()
        let path = directory.appendingPathComponent("password.yaml").path
        let text = """
            name: oauth2-password
            source:
              type: liferay-headless
              server: ${LIFERAY_SERVER}
              auth:
                oauth2:
                  grant: password
                  client-id: sandbox-client
                  client-secret: sandbox-secret
                  username: \(username)
                  password: \(password)
              path: /o/headless-delivery/v1.0/sites/\(site)/structured-contents
              query: { flatten: "true" }
              pagination: { first-page-size: \(pageSize), page-size: \(pageSize), prefetch: \(prefetch) }
              retry: { attempts: 1 }
            \(extra)
            """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func referenceRows(_ harness: SandboxHarness, pageSize: Int) async throws -> [String] {
        let file = try oauth2Pipeline(auth: "basic: { username: joe@liferay.com, password: joe }", pageSize: pageSize)
        let result = try await harness.run(file)
        try #require(result.status == 0, "stderr: \(result.stderr)")
        return result.stdoutLines
    }

    @Test("the token acts as the user who signed in: joe's rows, and a site only the client's own user may see is refused")
    func actsAsTheUser() async throws {
        try await withOAuth2Sandbox { harness in
            let reference = try await referenceRows(harness, pageSize: 25)
            #expect(reference.count == 73)
            let result = try await harness.run(try passwordPipeline(), environment: ["USER_PASSWORD": "joe"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
            #expect(harness.server.oauth2GrantsAnswered == ["password": 1])

            // Site 20144: test@liferay.com (the client's own user) is a member, joe is not.
            let own = try await harness.run(try passwordPipeline(username: "test@liferay.com", site: 20144), environment: ["USER_PASSWORD": "test"])
            #expect(own.status == 0, "stderr: \(own.stderr)")
            let joes = try await harness.run(try passwordPipeline(site: 20144), environment: ["USER_PASSWORD": "joe"])
            #expect(joes.status != 0)
            #expect(joes.stderr.contains("403"), "stderr: \(joes.stderr)")
        }
    }

    @Test("a wrong password is invalid_grant named as such, on page 0, with the password in no output or event")
    func wrongPassword() async throws {
        try await withOAuth2Sandbox { harness in
            let result = try await harness.run(
                try passwordPipeline(), ["--events", "-v"], environment: ["USER_PASSWORD": "WRONG-pass-4242"])
            #expect(result.status != 0)
            #expect(result.stderr.contains("invalid_grant (the username or password is wrong"), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("page 0"), "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("WRONG-pass-4242"))
            #expect(result.stdout.range(of: Data("WRONG-pass-4242".utf8)) == nil)
            #expect(try result.jsonLines().contains { $0["event"] == "failed" || $0["event"] == "error" }, "\(result.stdoutText)")
            #expect(harness.server.oauth2TokensIssued == 0)
        }
    }

    @Test("an application that does not allow the password grant: unauthorized_client named and explained, on page 0")
    func grantNotAllowed() async throws {
        var plan = OAuth2Plan.standard
        plan.clients[0].grantTypes = ["client_credentials"]
        try await withOAuth2Sandbox(plan) { harness in
            let result = try await harness.run(try passwordPipeline(), ["-v"], environment: ["USER_PASSWORD": "joe-GRANT-pw-77"])
            #expect(result.status != 0)
            #expect(result.stderr.contains("unauthorized_client (the client may not use this grant)"), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("page 0"), "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("joe-GRANT-pw-77"))
            #expect(harness.server.oauth2TokensIssued == 0)
        }
    }

    @Test("renewal uses the refresh token of the answer, each rotated one in turn: the password is sent once")
    func renewsWithTheRefreshToken() async throws {
        var plan = OAuth2Plan.standard
        plan.tokenUses = 2
        try await withOAuth2Sandbox(plan) { harness in
            let reference = try await referenceRows(harness, pageSize: 5)
            let result = try await harness.run(
                try passwordPipeline(pageSize: 5, prefetch: 1), ["-v"], environment: ["USER_PASSWORD": "joe"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
            let grants = harness.server.oauth2GrantsAnswered
            #expect(grants["password"] == 1, "\(grants)")
            // 15 pages, two requests per token: at least six renewals, each with the
            // refresh token the previous answer brought (a spent one is refused).
            #expect((grants["refresh_token"] ?? 0) >= 6, "\(grants)")
            #expect(!result.stderr.contains("signing in with the password again"))
        }
    }

    @Test("a refused refresh token signs in with the password again, once per renewal, and the run completes")
    func refusedRefreshSignsInAgain() async throws {
        var plan = OAuth2Plan.standard
        plan.tokenUses = 2
        plan.refusesIssuedRefreshTokens = true
        try await withOAuth2Sandbox(plan) { harness in
            let reference = try await referenceRows(harness, pageSize: 25)
            let result = try await harness.run(
                try passwordPipeline(pageSize: 25, prefetch: 1), ["-v"], environment: ["USER_PASSWORD": "joe"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
            #expect(result.stderr.contains("refused the refresh token (invalid_grant); signing in with the password again"), "stderr: \(result.stderr)")
            #expect((harness.server.oauth2GrantsAnswered["password"] ?? 0) >= 2)
        }
    }

    @Test("the password and every token appear in no output: rows, events, logs, trace, cache database, plan")
    func secretsStayOut() async throws {
        let password = "Pw-only-in-env-8812"
        var plan = OAuth2Plan.standard
        plan.tokenUses = 2
        try await withConfiguredSandbox({ $0.oauth2 = plan; $0.passwords = ["joe@liferay.com": password] }) { harness in
            let directory = try CommandRunner.temporaryDirectory()
            let cache = directory.appendingPathComponent("cache.db").path
            let trace = directory.appendingPathComponent("trace.json").path
            let file = try passwordPipeline(pageSize: 10, prefetch: 1, extra: "cache: { policy: remote-first, path: \(cache) }", in: directory)
            let result = try await harness.run(file, ["--events", "-v", "--trace", trace], environment: ["USER_PASSWORD": password])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines.count > 73, "rows and events")
            let planned = try await CommandRunner.run(["plan", file], environment: ["LIFERAY_SERVER": harness.server.baseURL, "USER_PASSWORD": password])
            #expect(planned.status == 0, "stderr: \(planned.stderr)")
            #expect(planned.stdoutText.contains("joe@liferay.com"), "plan: \(planned.stdoutText)")
            let tokens = harness.server.oauth2IssuedTokens
            #expect(tokens.count > 4, "access and rotated refresh tokens")
            let cacheFiles = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("cache.db") }
            #expect(!cacheFiles.isEmpty)
            var outputs = [result.stdout, Data(result.stderr.utf8), try Data(contentsOf: URL(fileURLWithPath: trace)), planned.stdout, Data(planned.stderr.utf8)]
            for name in cacheFiles { outputs.append(try Data(contentsOf: directory.appendingPathComponent(name))) }
            for output in outputs {
                for secret in [password, "sandbox-secret"] + tokens {
                    #expect(output.range(of: Data(secret.utf8)) == nil, "\(secret) leaked")
                }
            }
        }
    }

    @Test("a liferay sink signs in with the password grant: rows written as that user; a dry run shows no password")
    func writesAsTheUser() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let password = "Pw-write-only-in-env-5150"
        try await withConfiguredSandbox({ $0.passwords = ["joe@liferay.com": password] }) { harness in
            let pipeline = try workspace.save(
                "password-write.yaml",
                """
                name: password-write
                sink:
                  type: liferay
                  server: \(harness.server.baseURL)
                  auth:
                    oauth2:
                      grant: password
                      client-id: sandbox-client
                      client-secret: sandbox-secret
                      username: joe@liferay.com
                      password: ${USER_PASSWORD}
                  service: bookmark
                  group-id: 20143
                  folder-id: 20201
                """)
            var environment = workspace.environment
            environment["USER_PASSWORD"] = password
            let dry = try await CommandRunner.run(
                ["write", pipeline, "--input", try workspace.rows(1), "--dry-run", "--rejects", workspace.path("rejects.jsonl")], environment: environment)
            #expect(dry.status == 0, "stderr: \(dry.stderr)")
            let request = try #require(try dry.jsonLines().first { $0["event"] == "custom" && $0["name"] == "request" })
            #expect(request["payload"]?["headers"]?["Authorization"] == "<redacted>", "a dry run shows the token's place, never a token")
            #expect(!dry.stdoutText.contains(password) && !dry.stderr.contains(password))
            let result = try await CommandRunner.run(
                ["write", pipeline, "--input", try workspace.rows(4), "--rejects", workspace.path("rejects.jsonl")], environment: environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(!result.stdoutText.contains(password) && !result.stderr.contains(password))
            let written = try await workspace.readBack(server: harness.server.baseURL)
            #expect(written.count == 4)
            #expect(written.allSatisfy { $0["userId"]?.int64Value == 20160 }, "\(written)")
            #expect(harness.server.oauth2GrantsAnswered == ["password": 1])
        }
    }
}
