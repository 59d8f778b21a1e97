import Foundation
import Sandbox
import ScreensBus
import Testing

/// `Link` headers as servers write them, followed end to end: the sandbox sends each
/// template (`X-Sandbox-Link`, `{q}` = the next page's query) and the run must deliver the
/// 73 bookmarks exactly once, in order. A wrong parse or resolution follows another link,
/// and the repeated-page or repeated-link rule then fails the run.
@Suite("run: Link header parsing and URL resolution end to end")
struct LinkHeaderRunTests {
    static let templates: [(name: String, header: String)] = [
        ("relative query (RFC 3986 §5.2.2, ?y)", "<?{q}>; rel=\"next\""),
        ("network-path reference (//g)", "<//{host}/rest/bookmarks/link-header?{q}>; rel=next"),
        ("dot segments (§5.2.4)", "</rest/x/../bookmarks/./link-header?{q}>; rel=next"),
        ("relative path (g?y)", "<link-header?{q}>; rel=next"),
        ("comma and semicolon inside <...>", "<http://{host}/rest/bookmarks/link-header?{q}&x=a,b;c>; rel=\"next\""),
        ("quoted parameter holding a comma, a semicolon and rel=", "<?page=1&per_page=10>; title=\"next, page; rel=next\"; rel=\"prev\", <?{q}>; rel=\"next\""),
        ("only the first rel counts, names are case-insensitive", "<?page=1&per_page=10>; rel=\"prev\"; rel=\"next\", <?{q}>; REL=\"Next\""),
        ("several relation types in one rel", "<?{q}>; rel=\"last next\""),
    ]

    @Test("each template delivers the whole list", arguments: templates.indices)
    func template(index: Int) async throws {
        let (name, header) = Self.templates[index]
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        let file = try ListEndingRunTests.pipeline("link-header", headers: ["X-Sandbox-Link": header])
        // Raw rows: compare the ids with the converted reference.
        let result = try await withSandbox { harness in
            try await CommandRunner.run(["run", file], environment: ["ENDING_SERVER": harness.server.baseURL])
        }
        #expect(result.status == 0, "\(name): \(result.stderr)")
        let ids = try result.jsonLines().map { $0["entryId"] }
        let expected = try reference.map { try JSONValue(parsing: $0)["entryId"] }
        #expect(ids == expected, "\(name)")
    }

    @Test("a link whose first rel is not next is never followed")
    func firstRelWins() async throws {
        let file = try ListEndingRunTests.pipeline("link-header", headers: ["X-Sandbox-Link": "<?{q}>; rel=\"prev\"; rel=\"next\""])
        let result = try await withSandbox { harness in
            try await CommandRunner.run(["run", file, "--events"], environment: ["ENDING_SERVER": harness.server.baseURL])
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let events = try result.jsonLines()
        #expect(events.filter { $0["event"] == "selected" }.count == 10)
        #expect(events.last?["end"] == "last-page")
    }
}
