import Foundation
import Testing

/// Secrets whose names do not say so (`{ secret: value }` on a query parameter or a header)
/// and JSON-WS secret parameters are typed secrets from the loader to libcurl: they reach
/// their origin, and no channel shows them in any form (plain, URL-encoded, JSON-escaped).
@Suite("secrets: typed header and parameter values through every channel")
struct SecretTypingRunTests {
    static let querySecret = "q/Secret+5 x"
    static let headerSecret = "h-Secret\"6"
    static let pAuth = "pauth-Secret-7"

    static var forms: [(name: String, text: String)] {
        var forms: [(String, String)] = []
        for secret in [querySecret, headerSecret, pAuth] {
            forms.append(("plain \(secret)", secret))
            forms.append(("url-encoded \(secret)", secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret))
            forms.append(("json \(secret)", secret.replacingOccurrences(of: "\"", with: "\\\"")))
        }
        return forms
    }

    private func assertAbsent(_ text: String, channel: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        for form in Self.forms {
            #expect(!text.contains(form.text), "\(channel) shows \(form.name)", sourceLocation: sourceLocation)
        }
    }

    @Test func restWithMarkedSecrets() async throws {
        let portal = try RecordingServer(host: "127.0.0.1") { _ in .init(body: #"{"items":[{"id":1}]}"#) }
        defer { portal.stop() }
        let directory = try CommandRunner.temporaryDirectory()
        let cache = directory.appendingPathComponent("cache")
        let file = directory.appendingPathComponent("p.yaml").path
        try """
            name: marked
            source:
              type: rest
              server: \(portal.origin)
              url: /items
              records: items
              paginate: offset
              query: { tenant: { secret: "\(Self.querySecret)" }, q: visible }
              headers: { X-Tenant: { secret: '\(Self.headerSecret)' } }
            cache: { policy: remote-first }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let environment = ["SCREENS_PIPE_CACHE_DIR": cache.path]
        let run = try await CommandRunner.run(["run", file, "--events", "-v"], environment: environment)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        // The secrets did reach their own origin.
        let head = try #require(portal.requests.first?.head)
        #expect(head.contains("X-Tenant: \(Self.headerSecret)"), "\(head)")
        #expect(head.contains("tenant=" + (Self.querySecret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")) || head.contains("tenant=q%2FSecret%2B5%20x"), "\(head)")
        assertAbsent(run.stdoutText + run.stderr, channel: "run --events -v")

        let plan = try await CommandRunner.run(["plan", file], environment: environment)
        #expect(plan.status == 0, "stderr: \(plan.stderr)")
        #expect(plan.stdoutText.contains("visible"))
        assertAbsent(plan.stdoutText + plan.stderr, channel: "plan")

        let listed = try await CommandRunner.run(["cache", "list", "--json", "--cache-dir", cache.path])
        assertAbsent(listed.stdoutText + listed.stderr, channel: "cache list --json")
        let database = try Data(contentsOf: cache.appendingPathComponent("cache.sqlite"))
        assertAbsent(String(decoding: database, as: UTF8.self), channel: "SQLite file")

        // A failing request names the request without the secrets.
        try await portal.stopRefusing()
        let failed = try await CommandRunner.run(["run", file, "--policy", "remote-only", "-v"], environment: environment)
        #expect(failed.status == 1)
        assertAbsent(failed.stdoutText + failed.stderr, channel: "connection error")
    }

    @Test func jsonWSSecretParameters() async throws {
        let portal = try RecordingServer(host: "127.0.0.1") { _ in .init(body: #"[[{"entryId":1}]]"#) }
        defer { portal.stop() }
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("p.yaml").path
        try """
            name: pauth
            source:
              type: liferay-jsonws
              server: \(portal.origin)
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0, p_auth: "\(Self.pAuth)" } }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try await CommandRunner.run(["run", file, "--events", "-v"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        assertAbsent(run.stdoutText + run.stderr, channel: "JSON-WS run")
        let plan = try await CommandRunner.run(["plan", file])
        #expect(plan.stdoutText.contains("p_auth"))
        assertAbsent(plan.stdoutText + plan.stderr, channel: "JSON-WS plan")
    }
}
