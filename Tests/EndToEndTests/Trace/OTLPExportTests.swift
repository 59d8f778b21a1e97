import Foundation
import Sandbox
import ScreensBus
import Testing

/// The binary built with the `OTLP` trait exports its spans to a real OTLP/HTTP receiver
/// (scripts/otlp_receiver.py, which decodes them with the official `opentelemetry-proto`
/// definitions). `make test-otlp` builds that binary and sets the variables below.
enum OTLPTesting {
    static let binary = ProcessInfo.processInfo.environment["SCREENS_PIPE_OTLP_BIN"].flatMap { $0.isEmpty ? nil : $0 }
    static let python = ProcessInfo.processInfo.environment["SCREENS_PIPE_OTLP_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
    static let needed: Comment = "needs the OTLP build and receiver (SCREENS_PIPE_OTLP_BIN, SCREENS_PIPE_OTLP_PYTHON; make test-otlp sets them)"
    static var available: Bool { binary != nil && python != nil }
}

@Suite("OTLP: spans exported to a real receiver", .enabled(if: OTLPTesting.available, OTLPTesting.needed))
struct OTLPExportTests {
    static let password = "pw-SECRET-8080"
    static let token = "tok-SECRET-6060"
    static let apiKey = "key-SECRET-4040"

    /// The sandbox's data with the test user's password and token replaced by recognisable ones.
    static func dataDirectory() throws -> String {
        let bundled = CommandRunner.packageRoot.appendingPathComponent("Sources/Sandbox/Data")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-data-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: bundled, to: copy)
        let users = copy.appendingPathComponent("users.json")
        let text = try String(contentsOf: users, encoding: .utf8)
            .replacingOccurrences(of: #""password": "test""#, with: #""password": "\#(password)""#)
            .replacingOccurrences(of: #""sandbox-token""#, with: #""\#(token)""#)
        try text.write(to: users, atomically: true, encoding: .utf8)
        return copy.path
    }

    struct Span {
        var json: [String: Any]
        var name: String { json["name"] as? String ?? "" }
        var id: String { json["span_id"] as? String ?? "" }
        var parent: String? { json["parent_span_id"] as? String }
        var attributes: [String: Any] { json["attributes"] as? [String: Any] ?? [:] }
        var status: String { (json["status"] as? [String: Any])?["code"] as? String ?? "" }
        func string(_ key: String) -> String? { attributes[key] as? String }
        func int(_ key: String) -> Int? { (attributes[key] as? NSNumber)?.intValue }
    }

    struct Export {
        var result: CommandResult
        var spans: [Span]
        var raw: Data
        var tree: String
    }

    /// Runs the OTLP build on `yaml` under the receiver; returns what it received.
    static func export(_ yaml: String, server: String) async throws -> Export {
        let directory = try CommandRunner.temporaryDirectory()
        let pipeline = directory.appendingPathComponent("traced.yaml").path
        try yaml.write(toFile: pipeline, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("spans.jsonl").path
        let receiver = CommandRunner.packageRoot.appendingPathComponent("scripts/otlp_receiver.py").path
        let result = try await CommandRunner.shell(
            #""$PY" "$RECEIVER" --out "$OUT" -- "$OTLP_BIN" run "$PIPELINE" && "$PY" "$RECEIVER" --tree "$OUT" >&2"#,
            environment: [
                "PY": try #require(OTLPTesting.python), "RECEIVER": receiver, "OUT": out, "OTLP_BIN": try #require(OTLPTesting.binary),
                "PIPELINE": pipeline, "LIFERAY_SERVER": server, "API_TOKEN": token, "OTEL_SERVICE_NAME": "screens-pipe-e2e",
            ])
        let lines = (try? String(contentsOfFile: out, encoding: .utf8))?.split(separator: "\n") ?? []
        let spans = try lines.map { Span(json: try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])) }
        let raw = (try? Data(contentsOf: URL(fileURLWithPath: out + ".raw"))) ?? Data()
        return Export(result: result, spans: spans, raw: raw, tree: result.stderr)
    }

    /// Every secret, in the forms it could leak in: as written, percent-encoded, in Basic's base64.
    static var secretForms: [String] {
        [password, token, apiKey, "Bearer", Data("test@liferay.com:\(password)".utf8).base64EncodedString()]
    }

    @Test("a fan-out run arrives as run > list > page > attempt, child lists under the parent's list, attributes set, no secret anywhere")
    func fanOut() async throws {
        let data = try Self.dataDirectory()
        try await withConfiguredSandbox({ $0.dataDirectory = data }) { harness in try await fanOut(harness) }
    }

    func fanOut(_ harness: SandboxHarness) async throws {
        let yaml = """
            name: contents
            source:
              type: liferay-headless
              server: ${LIFERAY_SERVER}
              auth: { bearer: "${API_TOKEN}" }
              path: /o/headless-delivery/v1.0/sites/${site.id}/structured-contents
              query: { flatten: "true", api_key: \(Self.apiKey) }
              pagination: { page-size: 10, prefetch: 2 }
              for-each:
                as: site
                concurrency: 2
                list: { type: liferay-headless, path: /o/headless-admin-user/v1.0/my-user-account/sites, pagination: { page-size: 1 } }
            convert:
              fields: { id: id, title: title }
            """
        let export = try await Self.export(yaml, server: harness.server.baseURL)
        #expect(export.result.status == 0, "\(export.result.stderr)")
        #expect(export.result.stdoutLines.count == 73 + 24)
        let spans = export.spans
        let runs = spans.filter { $0.name == "screens-pipe run" }
        try #require(runs.count == 1, "\(export.tree)")
        #expect(runs[0].parent == nil)
        #expect(runs[0].string("screens_pipe.pipeline") == "contents")
        #expect(runs[0].int("screens_pipe.rows") == 73 + 24)
        #expect((runs[0].json["resource"] as? [String: Any])?["service.name"] as? String == "screens-pipe-e2e")

        let lists = spans.filter { $0.name == "screens-pipe list" }
        let sites = lists.filter { $0.parent == runs[0].id }
        try #require(sites.count == 1, "\(export.tree)")
        let children = lists.filter { $0.parent == sites[0].id }
        #expect(children.count == lists.count - 1 && children.count >= 2, "\(export.tree)")
        #expect(children.allSatisfy { $0.string("screens_pipe.parent")?.hasPrefix("site #") == true })

        let pages = spans.filter { $0.name == "screens-pipe page" }
        #expect(pages.allSatisfy { page in lists.contains { $0.id == page.parent } }, "\(export.tree)")
        #expect(pages.allSatisfy { $0.int("screens_pipe.page.index") != nil })
        let attempts = spans.filter { $0.name == "GET" }
        #expect(attempts.count == pages.count)
        for attempt in attempts {
            #expect(pages.contains { $0.id == attempt.parent })
            #expect(attempt.json["kind"] as? String == "SPAN_KIND_CLIENT")
            #expect(attempt.string("http.request.method") == "GET")
            #expect(attempt.string("server.address") == "127.0.0.1")
            #expect(attempt.int("server.port") == harness.server.port)
            #expect(attempt.int("http.response.status_code") == 200)
            #expect(attempt.string("url.full")?.hasPrefix("http://127.0.0.1:") == true)
        }
        #expect(attempts.contains { $0.string("url.full")?.contains("api_key=REDACTED") == true })

        let raw = String(decoding: export.raw, as: UTF8.self)
        #expect(!export.raw.isEmpty)
        for secret in Self.secretForms { #expect(!raw.contains(secret), "\(secret) in the export") }
    }

    @Test("OTEL_EXPORTER_OTLP_PROTOCOL=grpc in the OTLP build: refused with a warning, not swift-otel's fatal error; the run completes")
    func grpcRefused() async throws {
        let result = try await CommandRunner.execute(
            try #require(OTLPTesting.binary), ["run", "pipelines/bookmarks.yaml", "--quiet"],
            environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"], directory: nil)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.count == 73 && result.stderr.contains("grpc is not supported"), "\(result.stderr)")
    }

    @Test("a password in the server URL appears nowhere in the export; url.full shows userinfo as REDACTED:REDACTED")
    func passwordInURL() async throws {
        let data = try Self.dataDirectory()
        try await withConfiguredSandbox({ $0.dataDirectory = data }) { harness in try await passwordInURL(harness) }
    }

    func passwordInURL(_ harness: SandboxHarness) async throws {
        let yaml = """
            name: bookmarks
            source:
              type: liferay-jsonws
              server: ${LIFERAY_SERVER}
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
              pagination: { page-size: 25 }
            """
        let base = harness.server.baseURL.replacingOccurrences(of: "http://", with: "http://test%40liferay.com:\(Self.password)@")
        let export = try await Self.export(yaml, server: base)
        #expect(export.result.status == 0, "\(export.result.stderr)")
        let attempts = export.spans.filter { $0.name == "POST" }
        #expect(!attempts.isEmpty, "\(export.tree)")
        // As OpenTelemetry's HTTP conventions write credentials in url.full.
        #expect(attempts.allSatisfy { $0.string("url.full")?.hasPrefix("http://REDACTED:REDACTED@127.0.0.1:") == true })
        let raw = String(decoding: export.raw, as: UTF8.self)
        for secret in Self.secretForms { #expect(!raw.contains(secret), "\(secret) in the export") }
    }
}
