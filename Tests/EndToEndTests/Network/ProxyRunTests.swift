import Foundation
import Testing

/// `proxy:` through the real binary, against tinyproxy and nginx from Debian's packages
/// (scripts/net-test-servers.sh) and scripted hostile proxies. Serialized: each test reads
/// what the shared servers logged while it ran.
@Suite("run: through real proxies (tinyproxy) to nginx and the sandbox", .enabled(if: TestNetwork.available, TestNetwork.needed), .serialized)
struct ProxyRunTests {
    let proxy = TestNetwork.proxyURL ?? ""
    let authProxy = TestNetwork.authProxyURL ?? ""
    let nginx = TestNetwork.nginxURL ?? ""

    @Test("a plain-http source goes through the proxy: tinyproxy forwards each GET, rows as without it")
    func plainHTTPThroughProxy() async throws {
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/rest-bookmarks.yaml")
        try await withSandbox { harness in
            var result: CommandResult?
            let logged = try await TestNetwork.logLines("tinyproxy.log") {
                result = try await CommandRunner.run(
                    ["run", "pipelines/rest-bookmarks.yaml", "--set", "source.proxy=\(proxy)"],
                    environment: ["REST_SERVER": harness.server.baseURL])
            }
            let run = try #require(result)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(run.stdoutLines == reference)
            let requests = logged.filter { $0.contains("Request (file descriptor") }
            #expect(requests.count == 3, "\(logged.joined(separator: "\n"))")
            #expect(requests.allSatisfy { $0.contains("GET \(harness.server.baseURL)/rest/bookmarks/cursor") }, "\(requests)")
        }
    }

    @Test("credentials for a plain-http origin are not sent through a proxy unless allow-insecure-auth says so")
    func plainHTTPCredentialsNeedOptIn() async throws {
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        try await withSandbox { harness in
            var refused: CommandResult?
            let loggedRefused = try await TestNetwork.logLines("tinyproxy.log") {
                refused = try await harness.run("pipelines/bookmarks.yaml", ["--set", "source.proxy=\(proxy)"])
            }
            let refusal = try #require(refused)
            #expect(refusal.status != 0)
            #expect(refusal.stderr.contains("refusing to send credentials over plain http"), "stderr: \(refusal.stderr)")
            #expect(refusal.stderr.contains("through the proxy \(proxy)") && refusal.stderr.contains("allow-insecure-auth"), "stderr: \(refusal.stderr)")
            #expect(!loggedRefused.contains { $0.contains("Request (file descriptor") }, "nothing may reach the proxy: \(loggedRefused)")

            let allowed = try await harness.run(
                "pipelines/bookmarks.yaml", ["--set", "source.proxy=\(proxy)", "--set", "source.allow-insecure-auth=true"])
            #expect(allowed.status == 0, "stderr: \(allowed.stderr)")
            #expect(allowed.stdoutLines == reference)
        }
    }

    @Test("the liferay sink writes through the proxy, with credentials over plain http only when allowed")
    func sinkThroughProxy() async throws {
        var refused: CommandResult?
        let loggedRefused = try await TestNetwork.logLines("tinyproxy.log") {
            refused = try await CommandRunner.run(["write", "pipelines/import-bookmarks.yaml", "--set", "sink.proxy=\(proxy)"])
        }
        #expect(refused?.status != 0)
        #expect(refused?.stderr.contains("through the proxy \(proxy)") == true, "stderr: \(refused?.stderr ?? "")")
        #expect(!loggedRefused.contains { $0.contains("Request (file descriptor") }, "\(loggedRefused)")

        var written: CommandResult?
        let logged = try await TestNetwork.logLines("tinyproxy.log") {
            written = try await CommandRunner.run(
                ["write", "pipelines/import-bookmarks.yaml", "--set", "sink.proxy=\(proxy)", "--set", "sink.allow-insecure-auth=true"])
        }
        let run = try #require(written)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("10 created"), "stderr: \(run.stderr)")
        #expect(logged.contains { $0.contains("POST http://127.0.0.1:") && $0.contains("/api/jsonws/invoke") }, "\(logged)")
    }

    @Test("auth.oauth2.proxy: only the token request goes through the proxy, and plan shows it")
    func tokenEndpointProxy() async throws {
        try await withOAuth2Sandbox { harness in
            let file = try oauth2Pipeline(
                auth: oauth2ClientBlock("proxy: \(proxy)"), extra: "  allow-insecure-auth: true")
            var result: CommandResult?
            let logged = try await TestNetwork.logLines("tinyproxy.log") {
                result = try await harness.run(file)
            }
            let run = try #require(result)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(!run.stdoutLines.isEmpty)
            let requests = logged.filter { $0.contains("Request (file descriptor") }
            #expect(requests.count == 1 && requests[0].contains("POST \(harness.server.baseURL)/o/oauth2/token"), "\(logged)")
            #expect(!(run.stdoutText + run.stderr).contains("sandbox-secret"))

            let plan = try await CommandRunner.run(["plan", file], environment: ["LIFERAY_SERVER": harness.server.baseURL])
            #expect(plan.stdoutText.contains("proxy: \(proxy)"), "\(plan.stdoutText)")

            // Without allow-insecure-auth the client secret is not sent through it.
            let refusedFile = try oauth2Pipeline(auth: oauth2ClientBlock("proxy: \(proxy)"))
            let refused = try await harness.run(refusedFile)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("through the proxy \(proxy)"), "stderr: \(refused.stderr)")
        }
    }

    @Test("https goes through CONNECT: the proxy sees the host, nginx sees HTTP/2, gzip and the token")
    func httpsThroughConnect() async throws {
        let token = "origin-token-\(UUID().uuidString)"
        let file = try TestNetwork.pagesPipeline(
            """
              server: ${SCREENS_PIPE_TEST_NGINX_URL}
              proxy: ${SCREENS_PIPE_TEST_PROXY_URL}
              auth: { bearer: "${ORIGIN_TOKEN}" }
            """)
        var result: CommandResult?
        var nginxLines: [String] = []
        let proxyLines = try await TestNetwork.logLines("tinyproxy.log") {
            nginxLines = try await TestNetwork.logLines("nginx-access.log") {
                result = try await CommandRunner.run(["run", file, "--events"], environment: ["ORIGIN_TOKEN": token])
            }
        }
        let run = try #require(result)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let rows = try run.jsonLines().filter { $0["event"]?.stringValue == "selected" }
        #expect(rows.count == 7, "\(run.stdoutText)")
        let port = try #require(URLComponents(string: nginx)?.port)
        #expect(proxyLines.contains { $0.contains("CONNECT 127.0.0.1:\(port) HTTP/1.1") }, "\(proxyLines.joined(separator: "\n"))")
        #expect(!proxyLines.contains { $0.contains(token) || $0.lowercased().contains("authorization") })
        let pages = TestNetwork.nginxLines(nginxLines, of: nginx).filter { $0.contains("GET /pages/") }
        #expect(pages.count == 3, "\(nginxLines)")
        #expect(pages.allSatisfy { $0.contains(" 200 HTTP/2.0 ") && $0.contains("authorization=yes") }, "\(pages)")
        #expect(pages.allSatisfy { !$0.contains("gzip_ratio=-") }, "every page comes gzip-compressed: \(pages)")
        #expect(!(run.stdoutText + run.stderr).contains(token))
    }

    @Test("proxy credentials reach the proxy and appear in no output: run, events, plan")
    func authenticatingProxy() async throws {
        let password = try #require(TestNetwork.authProxyPassword)
        let file = try TestNetwork.pagesPipeline(
            """
              server: ${SCREENS_PIPE_TEST_NGINX_URL}
              proxy: { url: "${SCREENS_PIPE_TEST_AUTH_PROXY_URL}", username: screens, password: "${SCREENS_PIPE_TEST_AUTH_PROXY_PASSWORD}" }
            """)
        var result: CommandResult?
        let logged = try await TestNetwork.logLines("tinyproxy-auth.log") {
            result = try await CommandRunner.run(["run", file, "--events"])
        }
        let run = try #require(result)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(try run.jsonLines().filter { $0["event"]?.stringValue == "selected" }.count == 7)
        #expect(logged.contains { $0.contains("CONNECT 127.0.0.1:") }, "\(logged)")
        #expect(!(run.stdoutText + run.stderr).contains(password))

        let plan = try await CommandRunner.run(["plan", file])
        #expect(plan.status == 0, "stderr: \(plan.stderr)")
        let shown = authProxy.replacingOccurrences(of: "http://", with: "http://<redacted>@")
        #expect(plan.stdoutText.contains("proxy: \"\(shown)\"") || plan.stdoutText.contains("proxy: \(shown)"), "\(plan.stdoutText)")
        #expect(!(plan.stdoutText + plan.stderr).contains(password))

        // The same credentials written into the URL.
        let inURLFile = try TestNetwork.pagesPipeline(
            """
              server: ${SCREENS_PIPE_TEST_NGINX_URL}
              proxy: "${PROXY_WITH_CREDENTIALS}"
            """, name: "credentials-in-url")
        let inURL = try await CommandRunner.run(
            ["run", inURLFile, "--events"],
            environment: ["PROXY_WITH_CREDENTIALS": authProxy.replacingOccurrences(of: "http://", with: "http://screens:\(password)@")])
        #expect(inURL.status == 0, "stderr: \(inURL.stderr)")
        #expect(!(inURL.stdoutText + inURL.stderr).contains(password))
    }

    @Test("wrong proxy credentials: a clear error at once, the password in no output")
    func wrongProxyPassword() async throws {
        let file = try TestNetwork.pagesPipeline(
            """
              server: ${SCREENS_PIPE_TEST_NGINX_URL}
              proxy: { url: "${SCREENS_PIPE_TEST_AUTH_PROXY_URL}", username: screens, password: not-the-password-42 }
            """)
        let started = ContinuousClock.now
        let run = try await CommandRunner.run(["run", file])
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(run.status != 0)
        #expect(run.stderr.contains("the proxy http://<redacted>@127.0.0.1:") && run.stderr.contains("asks for credentials"), "stderr: \(run.stderr)")
        #expect(!run.stderr.contains("not-the-password-42"))
    }

    @Test("a proxy that answers 407 forever: a clear, bounded error, not retried", arguments: ["https", "http"])
    func proxyAuthenticationForever(scheme: String) async throws {
        let hostile = try RecordingServer(host: "127.0.0.1") { _ in
            .init(status: 407, headers: [("Proxy-Authenticate", #"Basic realm="forever""#)], body: "")
        }
        defer { hostile.stop() }
        let server = scheme == "https" ? nginx : "http://127.0.0.1:9"
        let file = try TestNetwork.pagesPipeline(
            """
              server: \(server)
              proxy: { url: "\(hostile.origin)", username: screens, password: forever-secret-7 }
              retry: { attempts: 3, backoff: 10ms }
            """)
        let started = ContinuousClock.now
        let run = try await CommandRunner.run(["run", file])
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(run.status != 0)
        #expect(run.stderr.contains("asks for credentials (HTTP 407"), "stderr: \(run.stderr)")
        #expect(!run.stderr.contains("forever-secret-7"))
        // libcurl answers the first 407 with the credentials once; nothing more.
        #expect((1...2).contains(hostile.requests.count), "\(hostile.requests.map(\.head))")
    }

    @Test("a proxy's redirect is not followed, with or without credentials", arguments: ["https", "http"])
    func proxyRedirect(scheme: String) async throws {
        let elsewhere = try RecordingServer(host: "127.0.0.1") { _ in .init(body: #"{"items":[],"next":null}"#) }
        defer { elsewhere.stop() }
        let hostile = try RecordingServer(host: "127.0.0.1") { _ in
            .init(status: 302, headers: [("Location", "\(elsewhere.origin)/stolen")], body: "")
        }
        defer { hostile.stop() }
        let server = scheme == "https" ? nginx : "http://127.0.0.1:9"
        let file = try TestNetwork.pagesPipeline(
            """
              server: \(server)
              proxy: \(hostile.origin)
              auth: { bearer: redirect-token-9 }
              allow-insecure-auth: true
            """)
        let run = try await CommandRunner.run(["run", file])
        #expect(run.status != 0)
        #expect(run.stderr.contains("302"), "stderr: \(run.stderr)")
        #expect(!run.stderr.contains("redirect-token-9"))
        #expect(elsewhere.requests.isEmpty, "\(elsewhere.requests.map(\.head))")
        #expect(!hostile.requests.isEmpty)
    }

    @Test("proxy: env takes https_proxy as curl does, and no_proxy bypasses it")
    func environmentProxy() async throws {
        let file = try TestNetwork.pagesPipeline(
            """
              server: ${SCREENS_PIPE_TEST_NGINX_URL}
              proxy: env
            """)
        var result: CommandResult?
        let logged = try await TestNetwork.logLines("tinyproxy.log") {
            result = try await CommandRunner.run(["run", file], environment: ["https_proxy": proxy, "no_proxy": "", "NO_PROXY": ""])
        }
        let run = try #require(result)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(try TestNetwork.ids(run) == Array(1...7))
        #expect(logged.filter { $0.contains("CONNECT 127.0.0.1:") }.count >= 1, "\(logged)")

        var bypassed: CommandResult?
        let loggedBypassed = try await TestNetwork.logLines("tinyproxy.log") {
            bypassed = try await CommandRunner.run(["run", file], environment: ["https_proxy": proxy, "no_proxy": "localhost,127.0.0.1"])
        }
        #expect(bypassed?.status == 0, "stderr: \(bypassed?.stderr ?? "")")
        #expect(!loggedBypassed.contains { $0.contains("CONNECT") }, "\(loggedBypassed)")

        // The default ignores the environment, as before.
        var direct: CommandResult?
        let loggedDirect = try await TestNetwork.logLines("tinyproxy.log") {
            direct = try await CommandRunner.run(["run", file, "--set", "source.proxy=none"], environment: ["https_proxy": proxy])
        }
        #expect(direct?.status == 0, "stderr: \(direct?.stderr ?? "")")
        #expect(!loggedDirect.contains { $0.contains("CONNECT") }, "\(loggedDirect)")
    }
}
