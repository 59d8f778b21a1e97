import Foundation
import Testing
@testable import ScreensPipeCore
import ScreensPipe

/// `proxy:`, `client-cert:`, `client-key:` and `client-key-passphrase:`: decoding, the
/// environment's proxy variables read as curl reads them, the plain-http rule and `plan`.
@Suite struct ProxySettingTests {
    private func source(_ lines: String, environment: [String: String] = [:]) throws -> SourceSpec {
        try loadPipeline(
            """
            source:
              type: rest
              server: https://api.example.com
              url: /items
              paginate: offset
            \(lines)
            """, environment: environment
        ).source
    }

    @Test func decodesEveryForm() throws {
        #expect(try source("").proxy == .none)
        #expect(try source("  proxy: none").proxy == .none)
        #expect(try source("  proxy: env").proxy == .environment)
        #expect(try source("  proxy: http://proxy.example:3128").proxy == .proxy(ProxyEndpoint(url: "http://proxy.example:3128")))
        let inURL = try source("  proxy: http://alice:p%40ss@proxy.example:3128", environment: [:]).proxy
        #expect(inURL == .proxy(ProxyEndpoint(url: "http://proxy.example:3128", username: "alice", password: Secret("p@ss"))))
        let mapping = try source(
            """
              proxy:
                url: https://proxy.example:3129
                username: alice
                password: ${PROXY_PASSWORD}
            """, environment: ["PROXY_PASSWORD": "s3cret"]
        ).proxy
        #expect(mapping == .proxy(ProxyEndpoint(url: "https://proxy.example:3129", username: "alice", password: Secret("s3cret"))))
    }

    @Test func refusesWhatIsNotAProxy() {
        let base = "source: { type: rest, server: https://api.example.com, url: /items, paginate: offset, proxy: %@ }\n"
        func errors(_ value: String) -> String { configErrors(base.replacingOccurrences(of: "%@", with: value)).joined(separator: "\n") }
        #expect(errors("socks5://proxy:1080").contains("expected 'none', 'env' or an http:// or https:// proxy URL"))
        #expect(errors("proxy.example:3128").contains("expected 'none', 'env'"))
        #expect(errors("\"http://alice:hunter2@proxy.example:3128/path\"").contains("found 'http://<redacted>@proxy.example:3128/path'"))
        #expect(!errors("\"http://alice:hunter2@proxy.example:3128/path\"").contains("hunter2"))
        #expect(errors("{ url: \"http://proxy.example:3128\", password: x }").contains("'password' of source.proxy needs 'username'"))
        #expect(errors("{ url: \"http://a:b@proxy.example:3128\", username: c }").contains("not both"))
        #expect(errors("{ url: \"http://proxy.example:3128\", user: c }").contains("user"))
    }

    @Test func tokenEndpointProxy() throws {
        let spec = try source(
            """
              auth:
                oauth2:
                  client-id: c
                  client-secret: s
                  proxy: { url: "http://idp-proxy.example:8080", username: u, password: "${P}" }
            """, environment: ["P": "hunter2"])
        guard case .oauth2(let oauth2)? = spec.auth else { Issue.record("not oauth2"); return }
        #expect(oauth2.proxy == .proxy(ProxyEndpoint(url: "http://idp-proxy.example:8080", username: "u", password: Secret("hunter2"))))
        #expect(oauth2.tokenEndpointSettings(of: spec).proxy == oauth2.proxy)
        #expect(spec.proxy == .none)
    }

    @Test func clientCertificateKeys() throws {
        let spec = try source(
            """
              client-cert: /etc/pipeline/client.pem
              client-key: /etc/pipeline/client.key
              client-key-passphrase: ${PASS}
            """, environment: ["PASS": "open sesame"])
        #expect(spec.clientCertificate == ClientCertificateSpec(certificateFile: "/etc/pipeline/client.pem", keyFile: "/etc/pipeline/client.key", keyPassphrase: Secret("open sesame")))
        let errors = configErrors(
            """
            source: { type: rest, server: https://api.example.com, url: /items, paginate: offset, client-key: /k.pem }
            """)
        #expect(errors.joined().contains("'client-key' needs 'client-cert'"))
    }

    @Test func planShowsTheProxyRedacted() throws {
        let spec = try loadPipeline(
            """
            source:
              type: rest
              server: https://api.example.com
              url: /items
              paginate: offset
              proxy: { url: "http://proxy.example:3128", username: alice, password: "${PROXY_PASSWORD}" }
              client-cert: /c.pem
              client-key-passphrase: "${PASS}"
            """, environment: ["PROXY_PASSWORD": "hunter2", "PASS": "open sesame"])
        let plan = spec.redactedDescription()
        #expect(plan.contains("proxy: \"http://<redacted>@proxy.example:3128\"") || plan.contains("proxy: http://<redacted>@proxy.example:3128"), "\(plan)")
        #expect(plan.contains("client-key-passphrase: <redacted>"), "\(plan)")
        #expect(!plan.contains("hunter2") && !plan.contains("alice") && !plan.contains("open sesame"))
        #expect(!"\(spec)".contains("hunter2") && !"\(spec)".contains("open sesame"))
    }

    @Test func environmentAsCurlReadsIt() {
        let all = ["http_proxy": "http://plain:1", "HTTP_PROXY": "http://upper:2", "https_proxy": "tls:3", "ALL_PROXY": "http://all:4"]
        #expect(ProxySpec.environment.endpoint(for: "https://a.example/x", environment: all)?.url == "http://tls:3")
        #expect(ProxySpec.environment.endpoint(for: "http://a.example/x", environment: all)?.url == "http://plain:1")
        // HTTP_PROXY is never read (a CGI request can set it); all_proxy is the fallback.
        #expect(ProxySpec.environment.endpoint(for: "http://a.example/x", environment: ["HTTP_PROXY": "http://upper:2", "ALL_PROXY": "http://all:4"])?.url == "http://all:4")
        #expect(ProxySpec.environment.endpoint(for: "https://a.example/x", environment: ["HTTPS_PROXY": "http://u:p@upper:5"])?.username == "u")
        #expect(ProxySpec.environment.endpoint(for: "https://a.example/x", environment: [:]) == nil)
        var bypassing = all
        bypassing["no_proxy"] = "localhost, .corp.example,10.0.0.1"
        #expect(ProxySpec.environment.endpoint(for: "https://api.corp.example/x", environment: bypassing) == nil)
        #expect(ProxySpec.environment.endpoint(for: "https://corp.example/x", environment: bypassing) == nil)
        #expect(ProxySpec.environment.endpoint(for: "http://10.0.0.1:8080/x", environment: bypassing) == nil)
        #expect(ProxySpec.environment.endpoint(for: "https://notcorp.example/x", environment: bypassing) != nil)
        bypassing["no_proxy"] = "*"
        #expect(ProxySpec.environment.endpoint(for: "https://any.example/x", environment: bypassing) == nil)
        #expect(ProxySpec.none.endpoint(for: "https://a.example/x", environment: all) == nil)
    }

    @Test func plainHTTPCredentialsThroughAProxyNeedTheOptIn() throws {
        var spec = SourceSpec(type: .file(FileSourceSpec(path: "")))
        spec.proxy = .proxy(ProxyEndpoint(url: "http://u:secret@proxy.example:3128"))
        let local = URLParts("http://127.0.0.1:8080/api")
        #expect(throws: ScreensPipeError.self) { try CredentialPolicy.requireSafeTransport(local, sendsCredentials: true, source: spec) }
        do {
            try CredentialPolicy.requireSafeTransport(local, sendsCredentials: true, source: spec)
        } catch {
            #expect(error.message.contains("through the proxy http://<redacted>@proxy.example:3128"), "\(error.message)")
            #expect(!error.message.contains("secret"))
        }
        // Without credentials, over https, or opted in: allowed.
        try CredentialPolicy.requireSafeTransport(local, sendsCredentials: false, source: spec)
        try CredentialPolicy.requireSafeTransport(URLParts("https://api.example.com/x"), sendsCredentials: true, source: spec)
        spec.allowInsecureAuth = true
        try CredentialPolicy.requireSafeTransport(local, sendsCredentials: true, source: spec)
        // No proxy: loopback over http stays allowed, as before.
        spec.allowInsecureAuth = false
        spec.proxy = .none
        try CredentialPolicy.requireSafeTransport(local, sendsCredentials: true, source: spec)
    }
}
