import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The token endpoint's answers: good ones read, hostile ones clear errors that show no token.
@Suite("OAuth2 token responses")
struct OAuth2TokenResponseTests {
    private func parse(_ text: String) throws(ScreensPipeError) -> OAuth2TokenResponse {
        try OAuth2TokenResponse.parse(Array(text.utf8))
    }

    @Test("Liferay's answer: token, lifetime and a rotated refresh token")
    func liferayAnswer() throws {
        let answer = try parse(
            #"{"access_token":"a1b2.c3-d4_e5","token_type":"Bearer","expires_in":600,"refresh_token":"r-9","scope":"x"}"#)
        #expect(answer.accessToken.revealed == "a1b2.c3-d4_e5")
        #expect(answer.lifetime == .seconds(600))
        #expect(answer.refreshToken?.revealed == "r-9")
    }

    @Test("token_type is compared without case; expires_in may be a numeric string")
    func lenientForms() throws {
        let answer = try parse(#"{"access_token":"t","token_type":"bearer","expires_in":"30"}"#)
        #expect(answer.lifetime == .seconds(30))
    }

    @Test(
        "hostile answers are authentication errors naming the problem",
        arguments: [
            ("not json at all", "not valid JSON"),
            ("[1,2]", "not a JSON object"),
            (#"{"token_type":"Bearer","expires_in":60}"#, "no access_token"),
            (#"{"access_token":"","token_type":"Bearer","expires_in":60}"#, "no access_token"),
            (#"{"access_token":"SECRET-tok","token_type":"mac","expires_in":60}"#, "not Bearer"),
            (#"{"access_token":"SECRET-tok","expires_in":60}"#, "no token_type"),
            (#"{"access_token":"SECRET-tok","token_type":"Bearer"}"#, "no expires_in"),
            (#"{"access_token":"SECRET-tok","token_type":"Bearer","expires_in":-5}"#, "outside 1..."),
            (#"{"access_token":"SECRET-tok","token_type":"Bearer","expires_in":0}"#, "outside 1..."),
            (#"{"access_token":"SECRET-tok","token_type":"Bearer","expires_in":99999999999}"#, "outside 1..."),
            (#"{"access_token":"SECRET-tok","token_type":"Bearer","expires_in":1.5}"#, "whole number"),
            (#"{"access_token":"SECRET-tok","token_type":"Bearer","expires_in":"soon"}"#, "whole number"),
            (#"{"access_token":"SECRET tok\r\nX: y","token_type":"Bearer","expires_in":60}"#, "characters a bearer token"),
            (#"{"access_token":"SECRET-tok","token_type":"Bearer","expires_in":60,"refresh_token":7}"#, "refresh_token"),
        ])
    func hostile(_ body: String, _ problem: String) {
        do {
            _ = try parse(body)
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.code == .authentication)
            #expect(error.message.contains(problem), "\(error.message)")
            #expect(!error.message.contains("SECRET"))
        }
    }

    @Test("a huge answer is refused by its size, and a huge token by its length")
    func huge() {
        let padding = String(repeating: " ", count: OAuth2TokenResponse.maximumBodySize)
        #expect(throws: ScreensPipeError.self) { try parse(#"{"access_token":"t","token_type":"Bearer","expires_in":60}"# + padding) }
        let long = String(repeating: "a", count: OAuth2TokenResponse.maximumTokenLength + 1)
        do {
            _ = try parse(#"{"access_token":"\#(long)","token_type":"Bearer","expires_in":60}"#)
            Issue.record("accepted a huge token")
        } catch {
            #expect(error.message.contains("longer than"))
        }
    }

    @Test("a refusal names the RFC 6749 error code and hides the secrets the server echoes")
    func refusal() {
        let body = Array(#"{"error":"invalid_client","error_description":"bad secret s3cr3t-X\u001b[31m"}"#.utf8)
        let message = OAuth2TokenResponse.refusal(status: 401, body: body, secrets: ["s3cr3t-X"])
        #expect(message.contains("HTTP 401: invalid_client (the client id or secret is wrong)"))
        #expect(!message.contains("s3cr3t-X"))
        #expect(!message.contains("\u{1b}"))
        #expect(OAuth2TokenResponse.refusal(status: 500, body: Array("<html>".utf8), secrets: []) == "the token endpoint answered HTTP 500")
    }

    @Test("invalid_grant says what it means for the grant asked, and an echoed password is taken out")
    func invalidGrantMeaning() {
        let body = Array(#"{"error":"invalid_grant","error_description":"bad credentials for joe: pa55-w0rd-Q"}"#.utf8)
        let message = OAuth2TokenResponse.refusal(
            status: 400, body: body, secrets: ["pa55-w0rd-Q"], invalidGrantMeans: "the username or password is wrong")
        #expect(message.contains("HTTP 400: invalid_grant (the username or password is wrong)"), "\(message)")
        #expect(!message.contains("pa55-w0rd-Q"))
        #expect(OAuth2TokenResponse.errorCode(body) == "invalid_grant")
        #expect(OAuth2TokenResponse.errorCode(Array("not json".utf8)) == nil)
    }
}

@Suite("OAuth2 pipeline keys")
struct OAuth2SpecDecodingTests {
    private func source(_ auth: String) -> String {
        """
        source:
          type: rest
          server: https://portal.example.com
          url: /items
          records: items
          paginate: { style: offset }
          auth:
            oauth2:
        \(auth.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
        """
    }

    @Test("a client-credentials block decodes, with Liferay's token path by default")
    func decodes() throws {
        let spec = try loadPipeline(source("client-id: app\nclient-secret: ${S}\nscope: a b"), environment: ["S": "shh-1"])
        guard case .oauth2(let oauth2) = spec.source.auth else {
            Issue.record("not oauth2")
            return
        }
        #expect(oauth2.tokenURL == "/o/oauth2/token")
        #expect(oauth2.grant == .clientCredentials)
        #expect(oauth2.clientSecret?.revealed == "shh-1")
        #expect(oauth2.scope == "a b")
        #expect(!"\(spec.source.auth!)".contains("shh-1"))
        #expect(!spec.redactedDescription().contains("shh-1"))
    }

    @Test("a password block decodes without a client secret; plan and reflection show the user, never the password")
    func decodesPasswordGrant() throws {
        let spec = try loadPipeline(
            source("grant: password\nclient-id: app\nusername: joe@liferay.com\npassword: ${P}"), environment: ["P": "pa55-w0rd-Q"])
        guard case .oauth2(let oauth2) = spec.source.auth else {
            Issue.record("not oauth2")
            return
        }
        #expect(oauth2.grant == .password(username: "joe@liferay.com", password: Secret("pa55-w0rd-Q")))
        #expect(oauth2.clientSecret == nil)
        let plan = spec.redactedDescription()
        #expect(plan.contains("joe@liferay.com"), "\(plan)")
        #expect(plan.contains("grant: password"), "\(plan)")
        for shown in [plan, "\(spec.source.auth!)", "\(spec.source)", String(reflecting: spec.source.auth!)] {
            #expect(!shown.contains("pa55-w0rd-Q"))
        }
    }

    @Test("the password grant's cache key separates users and holds neither the user nor the password in the clear")
    func passwordGrantCacheKey() throws {
        func key(_ user: String, _ password: String) throws -> String {
            let spec = try loadPipeline(
                source("grant: password\nclient-id: app\nusername: \(user)\npassword: \(password)"))
            return try CacheKey(spec: spec).text
        }
        let joe = try key("joe@liferay.com", "pa55-w0rd-Q")
        #expect(joe != (try key("test@liferay.com", "pa55-w0rd-Q")))
        #expect(joe == (try key("joe@liferay.com", "another-pw")), "the password is who signs in, not whose rows these are")
        #expect(!joe.contains("pa55-w0rd-Q"))
    }

    @Test(
        "missing or contradictory keys are errors with positions",
        arguments: [
            ("client-secret: x", "client-id"),
            ("client-id: app", "needs 'client-secret'"),
            ("client-id: app\nclient-secret: x\ngrant: implicit", "expected one of client-credentials, refresh-token, password"),
            ("client-id: app\ngrant: password\nusername: joe@liferay.com", "'password'"),
            ("client-id: app\ngrant: password\npassword: p", "'username'"),
            ("client-id: app\ngrant: password\nusername: u\npassword: \"\"", "password"),
            ("client-id: app\nclient-secret: x\nusername: u", "applies to grant password only"),
            ("client-id: app\ngrant: password\nusername: u\npassword: p\nrefresh-token: r", "applies to grant refresh-token only"),
            ("client-id: app\ngrant: refresh-token", "needs 'refresh-token'"),
            ("client-id: app\nclient-secret: x\nrefresh-token: r", "applies to grant refresh-token only"),
            ("client-id: app\nclient-secret: x\nclient-auth: jwt", "expected one of form, basic"),
            ("client-id: app\nclient-secret: x\ntoken-uri: /t", "token-uri"),
        ])
    func refused(_ auth: String, _ message: String) {
        let errors = configErrors(source(auth))
        #expect(errors.contains { $0.contains(message) }, "\(errors)")
    }

    @Test("the token endpoint must be on the source's origin unless allowed, and never plain http elsewhere")
    func tokenOrigin() throws {
        let source = SourceSpec(type: .file(FileSourceSpec(path: "")))
        let home = "https://portal.example.com/o/x"
        let spec = OAuth2Spec(tokenURL: "https://idp.example.com/token", clientID: "a", clientSecret: "s")
        #expect(throws: ScreensPipeError.self) { try spec.resolvedTokenURL(against: home, source: source) }
        var allowed = spec
        allowed.allowOtherTokenOrigin = true
        #expect(try allowed.resolvedTokenURL(against: home, source: source) == "https://idp.example.com/token")
        var plain = allowed
        plain.tokenURL = "http://idp.example.com/token"
        #expect(throws: ScreensPipeError.self) { try plain.resolvedTokenURL(against: home, source: source) }
        let relative = OAuth2Spec(clientID: "a", clientSecret: "s")
        #expect(try relative.resolvedTokenURL(against: home, source: source) == "https://portal.example.com/o/oauth2/token")
    }
}
