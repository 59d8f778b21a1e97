import Foundation
import Sandbox
import Testing

/// `auth: cookie`, Liferay Screens' cookie sign-in (liferay-mobile-sdk `CookieSignIn`),
/// through the real binary against the sandbox: the form sign-in, the session cookie and
/// the CSRF token on every JSON-WS call, a new sign-in when the session ends.
@Suite("run: cookie sign-in end to end")
struct CookieSignInRunTests {
    /// The Guest site's root bookmarks (JSON-WS) signed in as `username`.
    private func cookiePipeline(
        username: String = "joe@liferay.com", password: String = "${USER_PASSWORD}", auth: String? = nil, prefetch: Int = 4,
        extra: String = "", in directory: URL? = nil
    ) throws -> String {
        let directory = try directory ?? CommandRunner.temporaryDirectory()
        let path = directory.appendingPathComponent("cookie.yaml").path
        let text = """
            name: cookie-bookmarks
            source:
              type: liferay-jsonws
              server: ${LIFERAY_SERVER}
              auth: \(auth ?? "{ cookie: { username: \(username), password: \"\(password)\" } }")
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
              pagination: { first-page-size: 10, page-size: 10, prefetch: \(prefetch) }
              retry: { attempts: 1 }
            \(extra)
            """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func referenceRows(_ harness: SandboxHarness) async throws -> [String] {
        let result = try await harness.run(try cookiePipeline(auth: "{ basic: { username: joe@liferay.com, password: joe } }"))
        try #require(result.status == 0, "stderr: \(result.stderr)")
        return result.stdoutLines
    }

    @Test("signs in once by form and lists joe's bookmarks with the session cookie and its p_auth, every row once")
    func listsWithTheSession() async throws {
        try await withSandbox { harness in
            let reference = try await referenceRows(harness)
            #expect(reference.count == 62)
            let result = try await harness.run(try cookiePipeline(), environment: ["USER_PASSWORD": "joe"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
            #expect(harness.server.cookieSignIns == 1)
        }
    }

    @Test("a wrong password is a clear authentication error at page 0, with no row and the password nowhere")
    func wrongPassword() async throws {
        try await withSandbox { harness in
            let result = try await harness.run(try cookiePipeline(), ["--events", "-v"], environment: ["USER_PASSWORD": "WRONG-cookie-pw-31"])
            #expect(result.status != 0)
            #expect(result.stderr.contains("the username or password is wrong"), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("page 0"), "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("WRONG-cookie-pw-31"))
            #expect(result.stdout.range(of: Data("WRONG-cookie-pw-31".utf8)) == nil)
            #expect(!result.stdoutLines.contains { $0.contains("\"entryId\"") })
            #expect(harness.server.cookieSignIns == 0)
        }
    }

    @Test("the session ends mid-list: the run signs in again once and completes with every row once")
    func sessionEndsMidList() async throws {
        try await withConfiguredSandbox({ $0.sessionUses = 3 }) { harness in
            let reference = try await referenceRows(harness)
            let result = try await harness.run(try cookiePipeline(prefetch: 1), ["-v"], environment: ["USER_PASSWORD": "joe"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
            #expect(harness.server.cookieSignIns >= 2)
            // A portal answers a JSON-WS call whose session ended as a guest: 403 (SecurityException).
            #expect(result.stderr.contains("ended the portal session (HTTP 403); signing in again"), "stderr: \(result.stderr)")
        }
    }

    @Test("the password, session cookie and p_auth appear in no output: rows, events, logs, trace, cache, plan")
    func secretsStayOut() async throws {
        let password = "Cookie-pw-only-in-env-6060"
        try await withConfiguredSandbox({ $0.passwords = ["joe@liferay.com": password]; $0.sessionUses = 3 }) { harness in
            let directory = try CommandRunner.temporaryDirectory()
            let cache = directory.appendingPathComponent("cache.db").path
            let trace = directory.appendingPathComponent("trace.json").path
            let file = try cookiePipeline(prefetch: 1, extra: "cache: { policy: remote-first, path: \(cache) }", in: directory)
            let result = try await harness.run(file, ["--events", "-v", "--trace", trace], environment: ["USER_PASSWORD": password])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let planned = try await CommandRunner.run(["plan", file], environment: ["LIFERAY_SERVER": harness.server.baseURL, "USER_PASSWORD": password])
            #expect(planned.status == 0, "stderr: \(planned.stderr)")
            #expect(planned.stdoutText.contains("/c/portal/login"), "plan: \(planned.stdoutText)")
            let secrets = [password] + harness.server.cookieSessionSecrets
            #expect(secrets.count >= 5, "the password and two sessions' cookies and tokens")
            let cacheFiles = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("cache.db") }
            var outputs = [result.stdout, Data(result.stderr.utf8), try Data(contentsOf: URL(fileURLWithPath: trace)), planned.stdout, Data(planned.stderr.utf8)]
            for name in cacheFiles { outputs.append(try Data(contentsOf: directory.appendingPathComponent(name))) }
            for output in outputs {
                for secret in secrets { #expect(output.range(of: Data(secret.utf8)) == nil, "\(secret) leaked") }
            }
        }
    }

    @Test("a liferay sink signs in by cookie: bookmarks written as joe with p_auth; a dry run shows neither cookie nor password")
    func writesWithTheSession() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let password = "Cookie-write-pw-7171"
        try await withConfiguredSandbox({ $0.passwords = ["joe@liferay.com": password] }) { harness in
            let pipeline = try workspace.save(
                "cookie-write.yaml",
                """
                name: cookie-write
                sink:
                  type: liferay
                  server: \(harness.server.baseURL)
                  auth: { cookie: { username: joe@liferay.com, password: "${USER_PASSWORD}" } }
                  service: bookmark
                  group-id: 20143
                  folder-id: 20201
                """)
            var environment = workspace.environment
            environment["USER_PASSWORD"] = password
            let dry = try await CommandRunner.run(
                ["write", pipeline, "--input", try workspace.rows(1), "--dry-run", "--rejects", workspace.path("rejects.jsonl")], environment: environment)
            #expect(dry.status == 0, "stderr: \(dry.stderr)")
            #expect(!dry.stdoutText.contains(password) && !dry.stderr.contains(password))
            #expect(harness.server.cookieSignIns == 0, "a dry run signs in nowhere")
            let result = try await CommandRunner.run(
                ["write", pipeline, "--input", try workspace.rows(4), "--rejects", workspace.path("rejects.jsonl")], environment: environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let written = try await workspace.readBack(server: harness.server.baseURL)
            #expect(written.count == 4)
            #expect(written.allSatisfy { $0["userId"]?.int64Value == 20160 }, "\(written)")
            #expect(harness.server.cookieSignIns == 1)
            for output in [result.stdoutText, result.stderr] {
                #expect(!output.contains(password))
                for secret in harness.server.cookieSessionSecrets { #expect(!output.contains(secret)) }
            }
        }
    }
}
