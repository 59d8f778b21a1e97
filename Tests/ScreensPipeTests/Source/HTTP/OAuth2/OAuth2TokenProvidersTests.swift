import Logging
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// Which pipelines of one process share an OAuth 2 token: the same credentials and the same
/// TLS settings, never less, because a token request carries the client secret.
@Suite("OAuth2 token providers")
struct OAuth2TokenProvidersTests {
    private let spec = OAuth2Spec(clientID: "client-\(Int.random(in: 0..<1_000_000))", clientSecret: Secret("s3cret"))
    private let tokenURL = "https://portal.example/o/oauth2/token"
    private let logger = Logger(label: "test")

    private func source(caFile: String? = nil, insecure: Bool = false) -> SourceSpec {
        var source = SourceSpec(type: .file(FileSourceSpec(path: "rows.json")))
        source.caFile = caFile
        source.insecureSkipTLSVerify = insecure
        return source
    }

    @Test("pipelines with the same credentials and TLS settings share one provider (one token)")
    func sameSettingsShare() {
        let first = OAuth2TokenProviders.shared.provider(spec: spec, tokenURL: tokenURL, source: source(caFile: "/ca.pem"), logger: logger)
        let second = OAuth2TokenProviders.shared.provider(spec: spec, tokenURL: tokenURL, source: source(caFile: "/ca.pem"), logger: logger)
        #expect(first === second)
    }

    @Test("a pipeline that skips TLS verification or trusts another CA never shares a verified pipeline's provider")
    func tlsSettingsSeparate() {
        let verified = OAuth2TokenProviders.shared.provider(spec: spec, tokenURL: tokenURL, source: source(), logger: logger)
        let insecure = OAuth2TokenProviders.shared.provider(spec: spec, tokenURL: tokenURL, source: source(insecure: true), logger: logger)
        let otherCA = OAuth2TokenProviders.shared.provider(spec: spec, tokenURL: tokenURL, source: source(caFile: "/other-ca.pem"), logger: logger)
        #expect(verified !== insecure)
        #expect(verified !== otherCA)
        #expect(insecure !== otherCA)
    }

    @Test("another client secret is another provider")
    func secretSeparates() {
        var other = spec
        other.clientSecret = Secret("another")
        let first = OAuth2TokenProviders.shared.provider(spec: spec, tokenURL: tokenURL, source: source(), logger: logger)
        let second = OAuth2TokenProviders.shared.provider(spec: other, tokenURL: tokenURL, source: source(), logger: logger)
        #expect(first !== second)
    }

    /// RFC 6749 §2.3.1 is for clients with a password; a public client names itself with
    /// client_id in the body (§3.2.1), as the Mobile SDK's TokenRequester does.
    @Test("client-auth basic without a secret sends client_id in the form, not Basic 'id:'")
    func publicClientUsesTheForm() async {
        let client = OAuth2Spec(
            grant: .password(username: "joe@liferay.com", password: Secret("joe")), clientID: "public id", clientSecret: nil,
            clientAuthentication: .basic)
        let request = await OAuth2TokenProvider(spec: client, tokenURL: tokenURL, logger: logger).tokenRequest(source: source())
        let body = String(decoding: request.body ?? [], as: UTF8.self)
        #expect(body.contains("client_id=public%20id") && request.headers["Authorization"] == nil, "\(body)")
        // With a secret, Basic as configured, and no client_id in the form.
        var confidential = client
        confidential.clientSecret = Secret("s3cret")
        let basic = await OAuth2TokenProvider(spec: confidential, tokenURL: tokenURL, logger: logger).tokenRequest(source: source())
        #expect(basic.headers["Authorization"]?.hasPrefix("Basic ") == true)
        #expect(!String(decoding: basic.body ?? [], as: UTF8.self).contains("client_id"))
    }
}
