import Foundation
import Sandbox
import Testing

/// `method: POST` with a body template through the real binary, against the sandbox's
/// search endpoint: the same 73 bookmarks as the JSON-WS sample, each once, in order.
@Suite("run: POST paging end to end")
struct PostPagingRunTests {
    static let styles: [(name: String, source: String)] = [
        ("offset", """
              paginate: offset
              body: { offset: "{offset}", limit: "{limit}", filter: { folderId: 0 } }
            """),
        ("page", """
              paginate: { style: page, first-page: 1 }
              body: { page: "{page}", pageSize: "{pageSize}" }
            """),
        ("cursor", """
              paginate: { style: cursor, cursor-path: nextCursor, size-param: null }
              body: { cursor: "{cursor}", limit: "{limit}" }
            """),
    ]

    private func pipeline(_ source: String, extra: String = "", prefetch: Int = 3) throws -> String {
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("post.yaml")
        try """
            name: post-search
            source:
              type: rest
              server: ${LIFERAY_SERVER}
              url: /rest/search/bookmarks
              method: POST
              records: items
              total: totalCount
            \(source)
              pagination: { first-page-size: 10, page-size: 10, prefetch: \(prefetch) }
            \(extra)
            convert:
              model: bookmark
            """.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    @Test("each paginator pages through the POST body: every row once, in order", arguments: styles.map(\.name))
    func postPaging(style: String) async throws {
        let source = try #require(Self.styles.first { $0.name == style }?.source)
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        try await withSandbox { harness in
            let result = try await harness.run(try pipeline(source))
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
        }
    }

    @Test("plan shows the POST and its first body with the placeholders filled")
    func plan() async throws {
        let file = try pipeline(Self.styles[0].source)
        let result = try await CommandRunner.run(["plan", file], environment: ["LIFERAY_SERVER": "http://127.0.0.1:9"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutText.contains("POST http://127.0.0.1:9/rest/search/bookmarks"), "\(result.stdoutText)")
        #expect(result.stdoutText.contains(#""offset":0"#), "\(result.stdoutText)")
        #expect(result.stdoutText.contains(#""limit":10"#), "\(result.stdoutText)")
    }

    @Test("POST retries like a read by default; idempotent: false sends each page once")
    func idempotence() async throws {
        // One page at a time: every second request fails, so each page fails once and then
        // succeeds, whatever the timing.
        let faults = FaultPlan(failEvery: 2, failStatus: 503)
        try await withSandbox(faults: faults) { harness in
            let retried = try await harness.run(try pipeline(Self.styles[0].source, extra: "  retry: { attempts: 3, backoff: 10ms }", prefetch: 1))
            #expect(retried.status == 0, "stderr: \(retried.stderr)")
            #expect(retried.stdoutLines.count == 73)
        }
        try await withSandbox(faults: faults) { harness in
            let once = try await harness.run(try pipeline(Self.styles[0].source, extra: "  idempotent: false\n  retry: { attempts: 3, backoff: 10ms }", prefetch: 1))
            #expect(once.status != 0)
            #expect(once.stderr.contains("HTTP 503"), "stderr: \(once.stderr)")
            #expect(!once.stderr.contains("retrying"), "stderr: \(once.stderr)")
        }
    }
}
