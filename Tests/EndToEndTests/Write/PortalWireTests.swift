import Foundation
import Sandbox
import ScreensBus
import Testing

/// Writes as a real portal takes them (issue 35): values placed in a path cannot change
/// it, `contentFieldValue.data` is a string, and every auth, OAuth 2 included, reaches
/// the write path under the rules reads follow.
@Suite("write: requests a real portal accepts")
struct PortalWireTests {
    @Test("an externalReferenceCode with / ? # % stays one path segment and reads back unchanged; . and .. are rejects with their lines")
    func externalReferenceCodesInThePath() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let codes = ["wc-a/b", "wc-q?x=1", "wc-h#frag", "wc-p%2Fq", "wc-dots..", ".", "..", "wc-ü ok"]
        let lines = codes.enumerated().map { index, code in
            #"{"externalReferenceCode":\#(JSONValue.string(code).jsonString),"title":"code \#(index + 1)"}"#
        }
        let input = try workspace.save("codes.jsonl", lines.joined(separator: "\n") + "\n")
        try await withSandbox { harness in
            let result = try await workspace.write(try workspace.webContentPipeline(server: harness.server.baseURL), ["--input", input])
            #expect(result.status == 1, "stderr: \(result.stderr)")
            let rejects = try workspace.rejects()
            #expect(rejects.map { $0["line"]?.int64Value } == [6, 7])
            #expect(rejects.allSatisfy { $0["reason"]?.stringValue?.contains("which a URL path reads as a step") == true })
            let written = try await workspace.readBackWebContent(server: harness.server.baseURL)
            #expect(Set(written.compactMap { $0["externalReferenceCode"]?.stringValue }) == Set(codes).subtracting([".", ".."]))
            for row in written {
                let code = row["externalReferenceCode"]?.stringValue ?? ""
                #expect(row["title"]?.stringValue == "code \((codes.firstIndex(of: code) ?? -1) + 1)", "\(code)")
            }
        }
    }

    @Test("contentFieldValue.data goes out as a string: a number or boolean row is written as its text")
    func dataIsAString() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let input = try workspace.save(
            "data.jsonl",
            #"{"externalReferenceCode":"wc-n","title":"numbers","contentFields":[{"name":"Count","contentFieldValue":{"data":42}},{"name":"Ratio","contentFieldValue":{"data":1.25}},{"name":"Shown","contentFieldValue":{"data":true}}]}"#
                + "\n")
        try await withSandbox { harness in
            let dry = try await workspace.write(try workspace.webContentPipeline(server: harness.server.baseURL), ["--input", input, "--dry-run"])
            let request = try #require(try dry.jsonLines().first { $0["event"] == "custom" && $0["name"] == "request" })
            let fields = request["payload"]?["body"]?["contentFields"]?.arrayValue ?? []
            #expect(fields.map { $0["contentFieldValue"]?["data"] } == ["42", "1.25", "true"])
            let result = try await workspace.write(try workspace.webContentPipeline(server: harness.server.baseURL), ["--input", input])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let written = try await workspace.readBackWebContent(server: harness.server.baseURL)
            #expect(written.first?["contentFields"]?.arrayValue?.map { $0["contentFieldValue"]?["data"] } == ["42", "1.25", "true"])
        }
    }

    /// A headless web content pipeline whose sink authenticates with the sandbox's OAuth 2 client.
    private func oauth2WritePipeline(_ workspace: WriteWorkspace, server: String, scope: String?, service: String) throws -> String {
        let scopeLine = scope.map { "\n      scope: \($0)" } ?? ""
        let target =
            service == "bookmark"
            ? "  service: bookmark\n  folder-id: 20201"
            : "  service: web-content\n  transport: headless\n  content-structure-id: 20701"
        return try workspace.save(
            "oauth2-write-\(service).yaml",
            """
            name: oauth2-write
            sink:
              type: liferay
              server: \(server)
              auth:
                oauth2:
                  grant: client-credentials
                  client-id: sandbox-client
                  client-secret: sandbox-secret\(scopeLine)
            \(target)
              group-id: 20143
              retry: { attempts: 2, backoff: 20ms, max-backoff: 100ms }
            """)
    }

    @Test("auth: oauth2 on a write: one token for the run, every row written over headless and JSON-WS, no token or secret in any output")
    func oauth2Writes() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withOAuth2Sandbox { harness in
            let server = harness.server.baseURL
            let headless = try await workspace.write(
                try oauth2WritePipeline(workspace, server: server, scope: nil, service: "web-content"), ["--input", try workspace.articles(5)])
            #expect(headless.status == 0, "stderr: \(headless.stderr)")
            #expect(try headless.jsonLines().map { $0["outcome"]?.stringValue } == Array(repeating: "created", count: 5))
            #expect(harness.server.oauth2TokensIssued == 1)
            let bookmarks = try await workspace.write(
                try oauth2WritePipeline(workspace, server: server, scope: nil, service: "bookmark"), ["--input", try workspace.rows(4)])
            #expect(bookmarks.status == 0, "stderr: \(bookmarks.stderr)")
            #expect(try await workspace.readBack(server: server).count == 4)
            for output in [headless.stdoutText + headless.stderr, bookmarks.stdoutText + bookmarks.stderr] {
                #expect(!output.contains("sandbox-secret"))
                for token in harness.server.oauth2IssuedTokens { #expect(!output.contains(token)) }
            }
            let dry = try await workspace.write(
                try oauth2WritePipeline(workspace, server: server, scope: nil, service: "bookmark"), ["--input", try workspace.rows(1), "--dry-run"])
            let request = try #require(try dry.jsonLines().first { $0["event"] == "custom" && $0["name"] == "request" })
            #expect(request["payload"]?["headers"]?["Authorization"] == "<redacted>", "a dry run shows the token's place, never a token")
        }
    }

    @Test("auth: oauth2 with a read-only scope: the portal refuses the writes (403), each row a reject naming it")
    func oauth2ReadOnlyScope() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withOAuth2Sandbox { harness in
            let result = try await workspace.write(
                try oauth2WritePipeline(workspace, server: harness.server.baseURL, scope: "Liferay.Headless.Delivery.everything.read", service: "web-content"),
                ["--input", try workspace.articles(2)])
            #expect(result.status != 0)
            let rejects = try workspace.rejects()
            #expect(rejects.count == 2)
            #expect(rejects.allSatisfy { $0["reason"]?.stringValue?.contains("HTTP 403") == true }, "\(rejects)")
        }
    }
}
