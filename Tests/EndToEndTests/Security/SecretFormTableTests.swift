import Foundation
import ScreensPipe
import Testing

/// The channel x secret-form table: every way a secret can be written in a pipeline (a
/// secret-named header, a `{secret: value}` header, a secret-named query parameter, a
/// `{secret: value}` query parameter, a token inside the URL's query, URL userinfo, a
/// secret-named JSON-WS parameter, a `{secret: value}` JSON-WS parameter, a basic password),
/// each in every form it could leak in (plain, base64, `user:secret` base64, URL-encoded,
/// form-encoded, JSON-escaped), against every output channel of the real binary.
@Suite("secrets: every secret form through every output channel")
struct SecretFormTableTests {
    /// One secret of the table: where it is written and its value.
    struct Placement: Sendable {
        var name: String
        var value: String
        /// A user name when the secret travels as `user:secret` (basic auth, userinfo).
        var user: String?
    }

    static let namedHeader = Placement(name: "secret-named header (X-Api-Key)", value: "hdrKey/Secret+1")
    static let optInHeader = Placement(name: "{secret:} header (X-Tenant)", value: "tenant/Secret+2")
    static let namedQuery = Placement(name: "secret-named query (api_key)", value: "qKey/Secret+3 &x")
    static let optInQuery = Placement(name: "{secret:} query (team)", value: "team/Secret+4")
    static let inURL = Placement(name: "token inside the URL (access_token)", value: "urlTok/Secret5")
    static let userinfo = Placement(name: "URL userinfo", value: "uiSecret6", user: "bob")
    static let namedParam = Placement(name: "secret-named JSON-WS param (p_auth)", value: "pAuth/Secret+7")
    static let optInParam = Placement(name: "{secret:} JSON-WS param (groupKey)", value: "grp/Secret+8")
    static let basicPassword = Placement(name: "basic password", value: "bpw/Secret+9", user: "alice")

    static let placements = [
        namedHeader, optInHeader, namedQuery, optInQuery, inURL, userinfo, namedParam, optInParam, basicPassword,
    ]

    /// Each form a secret could take on its way out.
    static func forms(of placement: Placement) -> [(form: String, text: String)] {
        let secret = placement.value
        let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret
        var forms = [
            ("plain", secret),
            ("base64", Data(secret.utf8).base64EncodedString()),
            ("URL-encoded", encoded),
            ("form-encoded", encoded.replacingOccurrences(of: "%20", with: "+")),
            ("JSON-escaped", secret.replacingOccurrences(of: "/", with: "\\/")),
        ]
        if let user = placement.user {
            forms.append(("user:secret base64", Data("\(user):\(secret)".utf8).base64EncodedString()))
        }
        return forms
    }

    /// Fails for every placement and form that `text` contains; returns how many cells were checked.
    @discardableResult
    static func assertNoSecret(in text: String, channel: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Int {
        var cells = 0
        for placement in placements {
            for form in forms(of: placement) {
                cells += 1
                #expect(!text.contains(form.text), "\(channel) shows the \(placement.name) \(form.form)", sourceLocation: sourceLocation)
            }
        }
        return cells
    }

    /// A scripted portal: JSON-WS batches get one row and a count, REST gets one row and no next page.
    private static func portal(status: Int = 200) throws -> RecordingServer {
        try RecordingServer(host: "127.0.0.1") { target in
            guard status == 200 else { return .init(status: status, body: #"{"message":"try later"}"#) }
            if target.hasPrefix("/api/jsonws") { return .init(body: #"[[{"entryId":1,"name":"one"}],1]"#) }
            return .init(body: #"{"items":[{"id":1,"title":"one"}],"next":null}"#)
        }
    }

    /// A REST pipeline holding the header, query, URL and userinfo secrets.
    private static func restPipeline(server: RecordingServer, extra: String = "") -> String {
        """
        name: rest-secrets
        source:
          type: rest
          server: http://\(userinfo.user!):\(userinfo.value)@\(server.host):\(server.port)
          url: /items?access_token=urlTok%2FSecret5
          records: items
          paginate: { style: next-link, next-path: next }
          query: { api_key: "\(namedQuery.value)", team: { secret: "${TEAM}" }, q: visible }
          headers: { X-Api-Key: "\(namedHeader.value)", X-Tenant: { secret: "\(optInHeader.value)" }, X-Shown: plain-header }
          retry: { attempts: 2, backoff: 10ms }
        \(extra)
        cache:
          policy: remote-first
        """
    }

    /// A JSON-WS pipeline holding the JSON-WS parameter secrets and a basic password.
    private static func jsonwsPipeline(server: RecordingServer) -> String {
        """
        name: jsonws-secrets
        source:
          type: liferay-jsonws
          server: \(server.origin)
          auth: { basic: { username: \(basicPassword.user!), password: "${PASSWORD}" } }
          rows:
            service: /bookmarks.bookmarksentry/get-entries
            params: { groupId: 20143, folderId: 0, p_auth: "\(namedParam.value)", groupKey: { secret: "\(optInParam.value)" } }
          count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
          retry: { attempts: 1 }
        cache:
          policy: remote-first
        """
    }

    private static let environment = ["TEAM": optInQuery.value, "PASSWORD": basicPassword.value]

    @Test("run events, -v logs, run errors, plan, validate, cache list (text and JSON), the cache files and the spec's reflection")
    func table() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let cacheDirectory = directory.appendingPathComponent("cache")
        var environment = Self.environment
        environment["SCREENS_PIPE_CACHE_DIR"] = cacheDirectory.path
        var channels: [(channel: String, text: String)] = []

        let portal = try Self.portal()
        defer { portal.stop() }
        let rest = directory.appendingPathComponent("rest.yaml").path
        let jsonws = directory.appendingPathComponent("jsonws.yaml").path
        try Self.restPipeline(server: portal).write(toFile: rest, atomically: true, encoding: .utf8)
        try Self.jsonwsPipeline(server: portal).write(toFile: jsonws, atomically: true, encoding: .utf8)

        for file in [rest, jsonws] {
            let run = try await CommandRunner.run(["run", file, "--events", "-v"], environment: environment)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(run.stdoutText.contains("\"one\""), "stdout: \(run.stdoutText)")
            channels.append(("--events JSON (\(URL(fileURLWithPath: file).lastPathComponent))", run.stdoutText))
            channels.append(("-v log (\(URL(fileURLWithPath: file).lastPathComponent))", run.stderr))
            let plan = try await CommandRunner.run(["plan", file], environment: environment)
            #expect(plan.status == 0, "stderr: \(plan.stderr)")
            channels.append(("plan (\(URL(fileURLWithPath: file).lastPathComponent))", plan.stdoutText + plan.stderr))
            let validate = try await CommandRunner.run(["validate", file], environment: environment)
            #expect(validate.status == 0, "stderr: \(validate.stderr)")
            channels.append(("validate (\(URL(fileURLWithPath: file).lastPathComponent))", validate.stdoutText + validate.stderr))
        }

        // The secrets did reach their own origin, in their wire forms: without this the
        // table would prove nothing.
        let heads = portal.requests.map(\.head).joined(separator: "\n")
        let bodies = portal.requests.map(\.body).joined(separator: "\n")
        #expect(heads.contains("X-Api-Key: \(Self.namedHeader.value)"))
        #expect(heads.contains("X-Tenant: \(Self.optInHeader.value)"))
        #expect(heads.contains("X-Shown: plain-header"))
        #expect(heads.contains("api_key=qKey%2FSecret%2B3%20%26x"), "heads: \(heads)")
        #expect(heads.contains("team=team%2FSecret%2B4"))
        #expect(heads.contains("access_token=urlTok%2FSecret5"))
        #expect(heads.contains("Basic " + Data("bob:\(Self.userinfo.value)".utf8).base64EncodedString()))
        #expect(heads.contains("Basic " + Data("alice:\(Self.basicPassword.value)".utf8).base64EncodedString()))
        #expect(bodies.contains(#""p_auth":"pAuth\/Secret+7""#) || bodies.contains(#""p_auth":"pAuth/Secret+7""#), "bodies: \(bodies)")
        #expect(bodies.contains(#""groupKey":"grp\/Secret+8""#) || bodies.contains(#""groupKey":"grp/Secret+8""#))

        // Run errors: a portal that keeps failing, so retries are logged and the run fails.
        let failing = try Self.portal(status: 503)
        defer { failing.stop() }
        let failingFile = directory.appendingPathComponent("failing.yaml").path
        try Self.restPipeline(server: failing).write(toFile: failingFile, atomically: true, encoding: .utf8)
        let failed = try await CommandRunner.run(["run", failingFile, "--events", "-v", "--policy", "remote-only"], environment: environment)
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("503"), "stderr: \(failed.stderr)")
        channels.append(("run error (--events, -v)", failed.stdoutText + failed.stderr))
        let missing = try await CommandRunner.run(
            ["run", rest, "--events", "--policy", "cache-only", "--set", "source.pagination.page-size=7"], environment: environment)
        #expect(missing.status != 0)
        channels.append(("cache-only error", missing.stdoutText + missing.stderr))

        // validate errors: the same secrets in a file with mistakes.
        let invalid = directory.appendingPathComponent("invalid.yaml").path
        try Self.restPipeline(server: portal, extra: "  bogus-key: 1\n  timeout: soon")
            .replacingOccurrences(of: "server: http://", with: "server: htp://")
            .write(toFile: invalid, atomically: true, encoding: .utf8)
        let invalidResult = try await CommandRunner.run(["validate", invalid], environment: environment)
        #expect(invalidResult.status != 0)
        #expect(invalidResult.stderr.contains("bogus-key"), "stderr: \(invalidResult.stderr)")
        channels.append(("validate errors", invalidResult.stdoutText + invalidResult.stderr))

        let listed = try await CommandRunner.run(["cache", "list", "--cache-dir", cacheDirectory.path])
        #expect(listed.status == 0, "stderr: \(listed.stderr)")
        #expect(listed.stdoutText.contains("visible"))
        channels.append(("cache list", listed.stdoutText + listed.stderr))
        let listedJSON = try await CommandRunner.run(["cache", "list", "--json", "--cache-dir", cacheDirectory.path])
        #expect(listedJSON.status == 0)
        channels.append(("cache list --json", listedJSON.stdoutText + listedJSON.stderr))

        // Every file under the cache directory (the database, any journal beside it, the
        // run locks' files and the holders they name).
        let cacheFiles = try FileManager.default.subpathsOfDirectory(atPath: cacheDirectory.path)
        #expect(cacheFiles.contains("cache.sqlite"))
        #expect(cacheFiles.contains { $0.hasPrefix("locks/") && $0.hasSuffix(".lock") })
        for name in cacheFiles {
            let url = cacheDirectory.appendingPathComponent(name)
            guard (try url.resourceValues(forKeys: [.isDirectoryKey])).isDirectory != true else { continue }
            let bytes = try Data(contentsOf: url)
            channels.append(("cache file \(name)", String(decoding: bytes, as: UTF8.self)))
        }

        // The spec as the library holds it: every way Swift can show a value.
        for file in [rest, jsonws] {
            let spec = try PipelineLoader(environment: environment).load(file: file)
            var dumped = ""
            dump(spec, to: &dumped)
            dump(spec.source.type, to: &dumped)
            dump(spec.source.headers, to: &dumped)
            dump(spec.source.server, to: &dumped)
            let shown = [
                dumped, String(reflecting: spec), String(describing: spec), "\(spec.source.headers)",
                String(reflecting: spec.source.type), "\(spec.source.type)", spec.redactedDescription(),
            ].joined(separator: "\n")
            channels.append(("dump / String(reflecting:) of the spec", shown))
        }

        var cells = 0
        for channel in channels {
            cells += Self.assertNoSecret(in: channel.text, channel: channel.channel)
        }
        #expect(cells == channels.count * Self.placements.reduce(0) { $0 + Self.forms(of: $1).count })
    }

    @Test("the secrets reach their own origin and not a second one (127.0.0.2) a next link leads to")
    func secretsStayWithTheirOrigin() async throws {
        let stranger = try RecordingServer(host: "127.0.0.2") { _ in .init(body: #"{"items":[{"id":2}],"next":null}"#) }
        defer { stranger.stop() }
        let portal = try RecordingServer(host: "127.0.0.1") { _ in
            .init(body: #"{"items":[{"id":1}],"next":"\#(stranger.origin)/page2"}"#)
        }
        defer { portal.stop() }
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("p.yaml").path
        try Self.restPipeline(server: portal, extra: "  follow-other-origins: true")
            .write(toFile: file, atomically: true, encoding: .utf8)
        var environment = Self.environment
        environment["SCREENS_PIPE_CACHE_DIR"] = directory.appendingPathComponent("cache").path
        let result = try await CommandRunner.run(["run", file, "--policy", "remote-only"], environment: environment)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutLines.count == 2)

        let mine = try #require(portal.requests.first?.head)
        #expect(mine.contains("X-Api-Key: \(Self.namedHeader.value)"))
        #expect(mine.contains("X-Tenant: \(Self.optInHeader.value)"))
        #expect(mine.contains("team=team%2FSecret%2B4"))
        let theirs = try #require(stranger.requests.first?.head)
        #expect(theirs.contains("X-Shown: plain-header"), "plain headers still go: \(theirs)")
        #expect(!theirs.lowercased().contains("authorization"))
        Self.assertNoSecret(in: theirs, channel: "the second origin's request")
    }
}
