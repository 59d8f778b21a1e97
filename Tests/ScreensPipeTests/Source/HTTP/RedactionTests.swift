import Foundation
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite("Redaction of secrets")
struct RedactionTests {
    @Test func userinfoIsStrippedFromURLs() {
        #expect(redactedURL("http://test%40liferay.com:s3cret@127.0.0.1:8080/api/jsonws/invoke") == "http://127.0.0.1:8080/api/jsonws/invoke")
        #expect(redactedURL("https://user@example.com") == "https://example.com")
        #expect(redactedURL("http://127.0.0.1:8080/a@b") == "http://127.0.0.1:8080/a@b")
    }

    @Test func secretQueryValuesAreRedactedAndTheRestKept() {
        let url = "https://h/o/api?page=2&access_token=abc123&api_key=k1&p_auth=zz&password=pw&pageSize=25&apiKey=k2&key=k3#frag"
        let redacted = redactedURL(url)
        #expect(redacted == "https://h/o/api?page=2&access_token=<redacted>&api_key=<redacted>&p_auth=<redacted>&password=<redacted>&pageSize=25&apiKey=<redacted>&key=<redacted>#frag")
        for secret in ["abc123", "k1", "zz", "pw", "k2", "k3"] { #expect(!redacted.contains("=\(secret)")) }
        #expect(redactedURL("http://h/p?api%5Fkey=x1") == "http://h/p?api%5Fkey=<redacted>")
        #expect(redactedURL("http://h/p?keyword=liferay&flag") == "http://h/p?keyword=liferay&flag")
    }

    @Test func secretHeadersAreRedacted() {
        let headers: [(name: String, value: String)] = [
            ("Authorization", "Basic dGVzdEBsaWZlcmF5LmNvbTp0ZXN0"), ("Content-Type", "application/json"),
            ("cookie", "JSESSIONID=1"), ("X-Api-Key", "k"), ("X-Auth-Token", "t"), ("Accept-Language", "es-ES"),
        ]
        let redacted = redactedHeaders(headers)
        #expect(redacted.map(\.name) == headers.map(\.name))
        #expect(redacted.map(\.value) == ["<redacted>", "application/json", "<redacted>", "<redacted>", "<redacted>", "es-ES"])
        let described = HTTPHeaders(headers).description
        #expect(!described.contains("dGVzdEBsaWZlcmF5LmNvbTp0ZXN0") && described.contains("Content-Type: application/json"))
    }

    @Test func requestDescriptionsAreRedacted() {
        let request = HTTPRequest(
            method: "POST", url: "http://me:pw@127.0.0.1:8080/api/jsonws/invoke?token=t0k",
            headers: ["Authorization": "Bearer t0k"])
        #expect(request.requestDescription == "POST http://127.0.0.1:8080/api/jsonws/invoke?token=<redacted>")
        #expect("\(request)" == request.requestDescription)
    }

    @Test func transportErrorsNeverShowCredentials() async throws {
        let port = try closedPort()
        try await withClient { client in
            let request = HTTPRequest(
                url: "http://admin:hunter2@127.0.0.1:\(port)/o/api?access_token=tok3n",
                headers: ["Authorization": "Bearer tok3n"])
            let error = try #require(await httpError { () async throws(HTTPError) in try await client.send(request) })
            #expect(error.kind == .connectionRefused)
            let everything = "\(error) \(error.message) \(error.request)"
            for secret in ["hunter2", "admin:", "tok3n"] { #expect(!everything.contains(secret)) }
            #expect(everything.contains("127.0.0.1:\(port)"))
        }
    }

    @Test func userinfoQuotedByLibcurlIsScrubbed() {
        let url = "http://admin:hunter2@h/"
        #expect(scrubbingUserinfo(of: url, from: "could not reach http://admin:hunter2@h/") == "could not reach http://h/")
        #expect(scrubbingUserinfo(of: url, from: "password hunter2 rejected") == "password <redacted> rejected")
    }
}
