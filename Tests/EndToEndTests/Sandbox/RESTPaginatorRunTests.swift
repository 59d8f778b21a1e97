import Foundation
import Sandbox
import Testing

/// The `rest` source's paginators through the real binary: each walks the sandbox's REST
/// copy of the 73 bookmarks and must write exactly what the JSON-WS pipeline writes.
@Suite("run: REST paginators end to end")
struct RESTPaginatorRunTests {
    /// Style name -> the `source` keys that select it on the sandbox.
    static let styles: [(name: String, source: String)] = [
        ("offset", """
              url: /rest/bookmarks/offset
              records: data.records
              total: meta.total
              paginate: offset
            """),
        ("page", """
              url: /rest/bookmarks/pages
              records: items
              total: total
              paginate: { style: page, page-param: page, size-param: per_page, first-page: 1 }
            """),
        ("cursor", """
              url: /rest/bookmarks/cursor
              records: results
              paginate: { style: cursor, cursor-path: next_cursor }
            """),
        ("next-link", """
              url: /rest/bookmarks/next-link
              records: items
              query: { limit: "10" }
              paginate: { style: next-link, next-path: next }
            """),
        ("link-header", """
              url: /rest/bookmarks/link-header
              query: { per_page: "10" }
              paginate: link-header
            """),
    ]

    @Test("each paginator delivers the whole list, in order, each row once", arguments: styles.map(\.name))
    func paginator(style: String) async throws {
        let source = try #require(Self.styles.first { $0.name == style }?.source)
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("rest-\(style).yaml")
        try """
            name: rest-\(style)
            source:
              type: rest
              server: ${REST_SERVER}
            \(source)
              pagination: { first-page-size: 10, page-size: 10, prefetch: 3 }
            convert:
              model: bookmark
            """.write(to: file, atomically: true, encoding: .utf8)
        try await withSandbox { harness in
            let result = try await CommandRunner.run(["run", file.path], environment: ["REST_SERVER": harness.server.baseURL])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
        }
    }

    @Test("pipelines/rest-bookmarks.yaml runs against the in-process sandbox")
    func samplePipeline() async throws {
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        let result = try await CommandRunner.run(["run", "pipelines/rest-bookmarks.yaml"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutLines == reference)
    }
}
