import Foundation
import ScreensBus
import Testing

/// `paginate: auto` through the real binary: each of the sandbox's paging styles is found
/// from the first page and walked to the same rows as the JSON-WS sample.
@Suite("run: paginate auto end to end")
struct AutoPaginateRunTests {
    static let endpoints: [(path: String, chosen: String)] = [
        ("/rest/bookmarks/offset", "offset with total: 'meta.total'"),
        ("/rest/bookmarks/pages", "{ style: page, page-param: page, first-page: 1 } with total-pages: 'total_pages'"),
        ("/rest/bookmarks/cursor", "{ style: cursor, cursor-path: 'next_cursor', cursor-param: cursor, size-param: null }"),
        ("/rest/bookmarks/next-link", "{ style: next-link, next-path: 'next' }"),
        ("/rest/bookmarks/link-header", "link-header"),
    ]

    private func pipeline(url: String) throws -> String {
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("auto.yaml")
        try """
            name: auto
            source:
              type: rest
              server: ${REST_SERVER}
              url: \(url)
              paginate: auto
            convert:
              model: bookmark
            """.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    @Test("each paging style is detected from the first page; every row once, in order", arguments: endpoints.map(\.path))
    func detects(path: String) async throws {
        let chosen = try #require(Self.endpoints.first { $0.path == path }?.chosen)
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        try await withSandbox { harness in
            let environment = ["REST_SERVER": harness.server.baseURL]
            let result = try await CommandRunner.run(["run", try pipeline(url: path)], environment: environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
            let events = try await CommandRunner.run(["run", try pipeline(url: path), "--events"], environment: environment)
            let responses = try events.jsonLines().filter { $0["event"]?.stringValue == "response" }
            #expect(!responses.isEmpty)
            #expect(responses.allSatisfy { $0["paginator"]?.stringValue == chosen }, "\(responses.first.map { "\($0)" } ?? "")")
            let started = try #require(try events.jsonLines().first { $0["event"]?.stringValue == "started" })
            #expect(started["source"]?.stringValue?.contains("paginate: auto") == true, "\(started)")
        }
    }

    @Test("plan says the paginator is decided at run time from the first page")
    func plan() async throws {
        let result = try await CommandRunner.run(["plan", "pipelines/rest-auto.yaml"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutText.contains("decided at run time from the first page"), "\(result.stdoutText)")
    }

    @Test("an ambiguous first page is an error that lists the candidates")
    func ambiguous() async throws {
        let server = try RecordingServer(host: "127.0.0.1") { _ in
            .init(body: #"{"items":[{"id":1}],"next":"/items?after=1","next_cursor":"abc"}"#)
        }
        defer { server.stop() }
        let result = try await CommandRunner.run(["run", try pipeline(url: "/items")], environment: ["REST_SERVER": server.origin])
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot decide"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("next-path: 'next'") && result.stderr.contains("cursor-path: 'next_cursor'"), "stderr: \(result.stderr)")
    }

    @Test("a first page with nothing to page by is an error saying what was looked for")
    func nothing() async throws {
        let server = try RecordingServer(host: "127.0.0.1") { _ in .init(body: #"{"items":[{"id":1}]}"#) }
        defer { server.stop() }
        let result = try await CommandRunner.run(["run", try pipeline(url: "/items")], environment: ["REST_SERVER": server.origin])
        #expect(result.status != 0)
        #expect(result.stderr.contains("found nothing that names the next page"), "stderr: \(result.stderr)")
    }
}
