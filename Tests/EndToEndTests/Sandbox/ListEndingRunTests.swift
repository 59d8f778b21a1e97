import Foundation
import Sandbox
import ScreensBus
import Testing

/// The one rule that ends each paginator's list, and every other ending as an error naming
/// the page, through the real binary against a sandbox that misbehaves on request
/// (`X-Sandbox-Misbehave`, see Sources/Sandbox/Faults/PagingMisbehaviour.swift).
@Suite("run: how each paginator's list ends")
struct ListEndingRunTests {
    /// The `source` keys (after `type`/`server`) of each paginator, over the 73 bookmarks.
    static let sources: [String: String] = [
        "jsonws": """
              type: liferay-jsonws
              auth: { basic: { username: test@liferay.com, password: test } }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
            """,
        "jsonws-no-count": """
              type: liferay-jsonws
              auth: { basic: { username: test@liferay.com, password: test } }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
            """,
        "headless": """
              type: liferay-headless
              auth: { basic: { username: test@liferay.com, password: test } }
              path: /o/headless-delivery/v1.0/sites/20143/structured-contents
              query: { flatten: "true" }
            """,
        "offset": """
              type: rest
              url: /rest/bookmarks/offset
              records: data.records
              total: meta.total
              paginate: offset
            """,
        "offset-no-total": """
              type: rest
              url: /rest/bookmarks/offset
              records: data.records
              paginate: offset
            """,
        "page": """
              type: rest
              url: /rest/bookmarks/pages
              records: items
              total: total
              paginate: { style: page, page-param: page, size-param: per_page, first-page: 1 }
            """,
        "cursor": """
              type: rest
              url: /rest/bookmarks/cursor
              records: results
              paginate: { style: cursor, cursor-path: next_cursor }
            """,
        "next-link": """
              type: rest
              url: /rest/bookmarks/next-link
              records: items
              query: { limit: "10" }
              paginate: { style: next-link, next-path: next }
            """,
        "link-header": """
              type: rest
              url: /rest/bookmarks/link-header
              query: { per_page: "10" }
              paginate: link-header
            """,
    ]

    /// Writes a pipeline for `source` with pages of 10, sending `headers` with every request.
    static func pipeline(_ source: String, headers: [String: String] = [:]) throws -> String {
        let keys = try #require(sources[source])
        let headerLines = headers.map { "    \($0.key): '\($0.value)'" }.joined(separator: "\n")
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("\(source).yaml")
        try """
            name: \(source)
            source:
              server: ${ENDING_SERVER}
            \(keys)
              pagination: { first-page-size: 10, page-size: 10, prefetch: 3 }
            \(headers.isEmpty ? "" : "  headers:\n" + headerLines)
            """.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    struct Run {
        var result: CommandResult
        var items: [JSONValue]
        var responses: [JSONValue]
        var finished: JSONValue?
    }

    /// Runs `source` with `--events` against a fresh sandbox; `misbehave` picks the fault.
    static func run(_ source: String, misbehave: String? = nil, headers: [String: String] = [:]) async throws -> Run {
        var headers = headers
        if let misbehave { headers["X-Sandbox-Misbehave"] = misbehave }
        let file = try pipeline(source, headers: headers)
        let harness = try await SandboxHarness.start()
        let result = try await CommandRunner.run(["run", file, "--events"], environment: ["ENDING_SERVER": harness.server.baseURL])
        await harness.stop()
        let events = try result.jsonLines()
        return Run(
            result: result,
            items: events.filter { $0["event"] == "selected" }.compactMap { $0["item"] },
            responses: events.filter { $0["event"] == "response" },
            finished: events.last { $0["event"] == "finished" })
    }

    // MARK: - The rule that ends each list

    @Test("a list with a row count ends at the count", arguments: ["jsonws", "headless", "offset", "page"])
    func endsAtTheCount(source: String) async throws {
        let run = try await Self.run(source)
        #expect(run.result.status == 0, "stderr: \(run.result.stderr)")
        #expect(run.items.count == 73)
        #expect(run.finished?["end"] == "row-count")
        #expect(run.finished?["reason"] == "completed")
        #expect(run.finished?["endWarning"] == nil)
        #expect(!run.result.stderr.contains("warning"))
    }

    @Test("a chained list ends on the page whose next marker is null or absent from the Link header", arguments: ["cursor", "next-link", "link-header"])
    func endsOnTheMarkedLastPage(source: String) async throws {
        let run = try await Self.run(source)
        #expect(run.result.status == 0, "stderr: \(run.result.stderr)")
        #expect(run.items.count == 73)
        #expect(run.finished?["end"] == "last-page")
        #expect(!run.result.stderr.contains("warning"))
    }

    @Test("a list without a count ends on a short page, and says the end is ambiguous", arguments: ["jsonws-no-count", "offset-no-total"])
    func shortPageEndingIsAmbiguous(source: String) async throws {
        let run = try await Self.run(source)
        #expect(run.result.status == 0, "stderr: \(run.result.stderr)")
        #expect(run.items.count == 73)
        #expect(run.finished?["end"] == "short-page")
        let warning = try #require(run.finished?["endWarning"]?.stringValue)
        #expect(warning.contains("page 7") && warning.contains("3 of 10 rows"))
        #expect(warning.contains("count (liferay-jsonws) or total (rest)"))
        #expect(run.result.stderr.contains("screens-pipe: warning: the list ended on page 7"))
    }

    @Test("a chained list goes on past an empty page that has a next link", arguments: ["cursor", "next-link", "link-header"])
    func emptyPageWithNextLink(source: String) async throws {
        let run = try await Self.run(source, misbehave: "empty-first")
        #expect(run.result.status == 0, "stderr: \(run.result.stderr)")
        #expect(run.items.count == 73)
        #expect(run.responses.first?["rows"] == 0)
        #expect(run.finished?["end"] == "last-page")
    }

    // MARK: - Every other ending is an error naming the page

    @Test("a server that ignores the end of the range: an error on page 0, no row delivered", arguments: ["jsonws", "headless", "offset", "page"])
    func ignoredEnd(source: String) async throws {
        let run = try await Self.run(source, misbehave: "ignore-end")
        #expect(run.result.status == 1)
        #expect(run.items.isEmpty)
        #expect(run.result.stderr.contains("page 0: the server sent"))
        #expect(run.result.stderr.contains("for a page of 10"))
        #expect(run.finished?["reason"] == "failed")
    }

    @Test("pages that repeat (indexed, or chained with fresh links): an error naming both pages", arguments: ["jsonws", "headless", "offset", "page", "cursor", "next-link", "link-header"])
    func repeatedPages(source: String) async throws {
        let run = try await Self.run(source, misbehave: "repeat-pages")
        #expect(run.result.status == 1)
        #expect(run.items.count == 10)
        #expect(Set(run.items.map(\.jsonString)).count == 10)
        #expect(run.result.stderr.contains("page 1: the page repeats the 10 rows of page 0"))
    }

    @Test("a page without a next marker ends the list as its protocol says; on page 0 the path is named", arguments: ["cursor", "next-link", "link-header"])
    func droppedNextMarker(source: String) async throws {
        let run = try await Self.run(source, misbehave: "drop-next")
        #expect(run.result.status == 0, "stderr: \(run.result.stderr)")
        #expect(run.items.count == 10)
        #expect(run.finished?["end"] == "last-page")
        // A body path left out of the only page may be mistyped: said, naming it. A missing
        // Link header is how GitHub answers a one-page list: nothing to say.
        #expect(run.result.stderr.contains("page 0 had no '") == (source != "link-header"), "stderr: \(run.result.stderr)")
    }

    @Test("a wrong next-path with the server's own page size: 25 rows, exit 0, and a warning naming the path")
    func wrongNextPath() async throws {
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("wrong-path.yaml")
        try """
            name: wrong-path
            source:
              type: rest
              server: ${ENDING_SERVER}
              url: /rest/bookmarks/next-link
              records: items
              paginate: { style: next-link, next-path: nxt }
            """.write(to: file, atomically: true, encoding: .utf8)
        let harness = try await SandboxHarness.start()
        let result = try await CommandRunner.run(["run", file.path], environment: ["ENDING_SERVER": harness.server.baseURL])
        await harness.stop()
        #expect(result.status == 0)
        #expect(result.stdoutLines.count == 25)
        #expect(result.stderr.contains("page 0 had no 'nxt' (next-path) in the body"), "stderr: \(result.stderr)")
    }

    @Test("a next link or cursor that repeats: an error naming both pages", arguments: ["cursor", "next-link", "link-header"])
    func repeatedNextLink(source: String) async throws {
        let run = try await Self.run(source, misbehave: "repeat-link")
        #expect(run.result.status == 1)
        #expect(run.items.count == 20)
        #expect(run.result.stderr.contains("page 1: the page names the same next page as page 0 did"))
        // The link itself is not printed (next links can carry tokens).
        #expect(!run.result.stderr.contains("/rest/bookmarks/"))
    }

    // MARK: - Row indices

    @Test("chained pages count the rows actually received, whatever the configured page size")
    func chainedRowIndices() async throws {
        // The server sends 7 rows a page; the pipeline's page size says 10.
        let file = try Self.pipeline("next-link")
        let text = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "limit: \"10\"", with: "limit: \"7\"")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let harness = try await SandboxHarness.start()
        let result = try await CommandRunner.run(["run", file, "--events"], environment: ["ENDING_SERVER": harness.server.baseURL])
        await harness.stop()
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let events = try result.jsonLines()
        let ranges = events.filter { $0["event"] == "response" }.map { [$0["startRow"]?.int64Value ?? -1, $0["endRow"]?.int64Value ?? -1] }
        #expect(ranges.count == 11)
        #expect(ranges.first == [0, 7])
        #expect(ranges.dropFirst().first == [7, 14])
        #expect(ranges.last == [70, 73])
        let rows = events.filter { $0["event"] == "selected" }.compactMap { $0["row"]?.int64Value }
        #expect(rows == Array(0..<73))
    }
}
