import Foundation
import Testing

/// Every secret form through every output channel of the real binary: the secret as
/// written, base64 as it travels in Basic auth, and URL-encoded as it travels in a query.
/// None may appear on stdout (events), stderr (errors, -v debug log), in `plan`,
/// `validate`, `cache list` (text and JSON), the cache-only error, or the SQLite file.
@Suite("secrets: no output channel shows a secret in any form")
struct SecretChannelTests {
    static let password = "pw/Secret+1"
    static let apiKey = "key Secret&2"
    static let pAuth = "pauthSecret3"
    static let cookie = "sidSecret4"

    /// Each secret in each form it could be written in.
    static var forms: [(name: String, text: String)] {
        var forms: [(String, String)] = []
        for secret in [password, apiKey, pAuth, cookie] {
            forms.append(("plain \(secret)", secret))
            let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret
            forms.append(("url-encoded \(secret)", encoded))
            forms.append(("form-encoded \(secret)", encoded.replacingOccurrences(of: "%20", with: "+")))
        }
        forms.append(("base64 basic", Data("alice:\(password)".utf8).base64EncodedString()))
        return forms
    }

    private func assertAbsent(_ text: String, channel: String) {
        for form in Self.forms {
            #expect(!text.contains(form.text), "\(channel) shows \(form.name)")
        }
    }

    @Test("run events, -v log, errors, plan, validate, cache list, cache-only error and the database")
    func everyChannel() async throws {
        let portal = try RecordingServer(host: "127.0.0.1") { _ in .init(body: #"{"items":[{"id":1,"title":"one"}]}"#) }
        defer { portal.stop() }
        let directory = try CommandRunner.temporaryDirectory()
        let cacheDirectory = directory.appendingPathComponent("cache")
        let file = directory.appendingPathComponent("p.yaml").path
        try """
            name: channels
            source:
              type: rest
              server: \(portal.origin)
              url: /items?access_token=${LINK_TOKEN}
              records: items
              paginate: offset
              query: { api_key: "\(Self.apiKey)", p_auth: "\(Self.pAuth)", q: visible }
              headers: { Cookie: "sid=\(Self.cookie)" }
              auth: { basic: { username: alice, password: "${PASSWORD}" } }
            cache:
              policy: remote-first
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let environment = [
            "PASSWORD": Self.password, "LINK_TOKEN": Self.pAuth, "SCREENS_PIPE_CACHE_DIR": cacheDirectory.path,
        ]

        let run = try await CommandRunner.run(["run", file, "--events", "-v"], environment: environment)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        // The secrets did reach the portal: the test would prove nothing otherwise.
        let head = try #require(portal.requests.first?.head)
        #expect(head.contains("Authorization: Basic " + Data("alice:\(Self.password)".utf8).base64EncodedString()))
        #expect(head.contains(Self.cookie))
        assertAbsent(run.stdoutText, channel: "run stdout events")
        assertAbsent(run.stderr, channel: "run -v stderr")

        let plan = try await CommandRunner.run(["plan", file], environment: environment)
        #expect(plan.status == 0, "stderr: \(plan.stderr)")
        assertAbsent(plan.stdoutText + plan.stderr, channel: "plan")

        let listed = try await CommandRunner.run(["cache", "list", "--cache-dir", cacheDirectory.path])
        #expect(listed.status == 0, "stderr: \(listed.stderr)")
        #expect(listed.stdoutText.contains("visible"))
        assertAbsent(listed.stdoutText + listed.stderr, channel: "cache list")
        let listedJSON = try await CommandRunner.run(["cache", "list", "--json", "--cache-dir", cacheDirectory.path])
        #expect(listedJSON.status == 0)
        assertAbsent(listedJSON.stdoutText + listedJSON.stderr, channel: "cache list --json")

        let missing = try await CommandRunner.run(
            ["run", file, "--policy", "cache-only", "--set", "source.pagination.page-size=7"], environment: environment)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("not in the cache"), "stderr: \(missing.stderr)")
        assertAbsent(missing.stderr, channel: "cache-only error")

        let database = try Data(contentsOf: cacheDirectory.appendingPathComponent("cache.sqlite"))
        assertAbsent(String(decoding: database, as: UTF8.self), channel: "SQLite file")
        #expect(database.count > 0)

        // validate: a bad server with a password, and a required variable whose message names a secret.
        let invalid = directory.appendingPathComponent("bad.yaml").path
        try """
            name: bad
            source:
              type: rest
              server: htp://alice:\(Self.password)@portal.example.com
              url: /x?token=${MISSING:?set MISSING, not ${PASSWORD}}
              paginate: offset
            """.write(toFile: invalid, atomically: true, encoding: .utf8)
        let validate = try await CommandRunner.run(["validate", invalid], environment: environment)
        #expect(validate.status != 0)
        assertAbsent(validate.stdoutText + validate.stderr, channel: "validate")
    }

    @Test("the same next-page link twice: the error names the link without its access_token")
    func repeatedLinkRedacted() async throws {
        // Each page has other rows (so the repeated-page check stays quiet) and the same link.
        let portal = try RecordingServer(host: "127.0.0.1") { target in
            let id = target.contains("access_token") ? 2 : 1
            return .init(body: #"{"items":[{"id":\#(id)}],"next":"/items?access_token=\#(Self.pAuth)"}"#)
        }
        defer { portal.stop() }
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("p.yaml").path
        try """
            name: loop
            source:
              type: rest
              server: \(portal.origin)
              url: /items
              records: items
              paginate: { style: next-link, next-path: next }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", file, "--events", "-v"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("names the same next page"), "stderr: \(result.stderr)")
        assertAbsent(result.stdoutText + result.stderr, channel: "repeated-link error")
    }
}
