import Foundation
import Sandbox
import ScreensBus
import Testing

/// Paged APIs that end their lists as their own protocols say (the sandbox's shapes of
/// GitHub, OData v4 server-driven paging, Spring HAL, Stripe, a `has_next` flag, a cursor
/// header and a quoted total: Sources/Sandbox/REST/RESTProtocolShapes.swift), read
/// through the real binary, configured explicitly and with `paginate: auto`, by `run` and
/// by a session: every row once, in order, exit 0.
@Suite("run and session: lists that end as their protocols say")
struct ProtocolEndingRunTests {
    struct Shape: Sendable, CustomStringConvertible {
        var name: String
        /// The `source` keys after `type: rest` and `server`.
        var explicit: String
        /// The same list with `paginate: auto`; nil where auto cannot know the API's cursor.
        var auto: String?
        /// Rows hidden by permission (short pages mid-list).
        var hideEvery: Int? = nil
        var description: String { name }
    }

    static let shapes: [Shape] = [
        Shape(
            name: "github",
            explicit: """
                  url: /rest/bookmarks/github
                  paginate: { style: link-header, size-param: per_page }
                """,
            auto: """
                  url: /rest/bookmarks/github?per_page=10
                  paginate: auto
                """),
        Shape(
            name: "odata",
            explicit: """
                  url: /rest/bookmarks/odata
                  records: value
                  paginate: { style: next-link, next-path: '["@odata.nextLink"]' }
                """,
            auto: """
                  url: /rest/bookmarks/odata
                  paginate: auto
                """),
        Shape(
            name: "hal",
            explicit: """
                  url: /rest/bookmarks/hal
                  records: _embedded.bookmarks
                  query: { size: "10" }
                  paginate: { style: next-link, next-path: _links.next.href }
                """,
            auto: """
                  url: /rest/bookmarks/hal?size=10
                  paginate: auto
                """),
        Shape(
            name: "stripe",
            explicit: """
                  url: /rest/bookmarks/stripe
                  records: data
                  has-more: has_more
                  paginate: { style: cursor, cursor-path: 'data[-1].entryId', cursor-param: starting_after, size-param: limit }
                """,
            auto: nil),
        Shape(
            name: "has-more",
            explicit: """
                  url: /rest/bookmarks/has-more
                  records: items
                  has-more: meta.has_next
                  paginate: offset
                """,
            auto: """
                  url: /rest/bookmarks/has-more
                  paginate: auto
                """),
        Shape(
            name: "header-cursor",
            explicit: """
                  url: /rest/bookmarks/header-cursor
                  paginate: { style: cursor, cursor-header: X-Next-Cursor, cursor-param: cursor, size-param: limit }
                """,
            auto: """
                  url: /rest/bookmarks/header-cursor
                  paginate: auto
                """),
        Shape(
            name: "string-total",
            explicit: """
                  url: /rest/bookmarks/string-total
                  records: data.records
                  total: meta.total
                  paginate: offset
                """,
            auto: """
                  url: /rest/bookmarks/string-total
                  paginate: auto
                """),
    ]

    static func pipeline(_ name: String, source: String) throws -> URL {
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("\(name).yaml")
        try """
            name: \(name)
            source:
              type: rest
              server: ${REST_SERVER}
            \(source)
              pagination: { first-page-size: 10, page-size: 10, prefetch: 3 }
            convert:
              model: bookmark
            """.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    static var configurations: [(Shape, Bool)] {
        shapes.flatMap { shape in [(shape, false)] + (shape.auto == nil ? [] : [(shape, true)]) }
    }

    @Test("run: every row once, in order, exit 0, the end named", arguments: configurations)
    func run(shape: Shape, auto: Bool) async throws {
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        let file = try Self.pipeline("\(shape.name)-\(auto ? "auto" : "explicit")", source: auto ? shape.auto! : shape.explicit)
        try await withSandbox { harness in
            let result = try await CommandRunner.run(
                ["run", "--events", file.path], environment: ["REST_SERVER": harness.server.baseURL])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let events = try result.stdoutLines.map { try JSONValue(parsing: $0) }
            let items = events.filter { $0["event"] == "selected" }.compactMap { $0["item"]?.jsonString }
            #expect(items == reference)
            let finished = try #require(events.last { $0["event"] == "finished" })
            #expect(finished["succeeded"] == true)
            #expect(finished["end"] != nil, "\(finished)")
            #expect(!result.stderr.contains("may be missing"), "stderr: \(result.stderr)")
        }
    }

    @Test("session: next after next reads the same rows and sees the last page", arguments: configurations)
    func session(shape: Shape, auto: Bool) async throws {
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        let file = try Self.pipeline("\(shape.name)-session-\(auto ? "auto" : "explicit")", source: auto ? shape.auto! : shape.explicit)
        try await withSandbox { harness in
            let session = try SessionProcess([file.path], environment: ["REST_SERVER": harness.server.baseURL])
            var items: [String] = []
            var events = try await session.ask(#"{"op":"load","id":0}"#)
            var last = false
            for id in 1...40 {
                #expect(!events.contains { $0["event"] == "error" }, "\(events)")
                items += events.filter { $0["event"] == "row" }.compactMap { $0["item"]?.jsonString }
                last = events.contains { $0["event"] == "response" && $0["last"] == true }
                if last || events.contains(where: { $0["event"] == "error" }) { break }
                events = try await session.ask(#"{"op":"next","id":\#(id)}"#)
            }
            #expect(last)
            #expect(items == reference)
            session.send(#"{"op":"close"}"#)
            let end = try await session.finish()
            #expect(end.status == 0, "stderr: \(end.stderr)")
        }
    }

    @Test("a has-more list whose portal hides rows goes on past its short pages")
    func hasMoreWithHiddenRows() async throws {
        // The count-based paginator over the same hidden rows is the reference: it reads
        // every visible row (its count says where the list ends).
        let counted = try Self.pipeline("offset-counted", source: """
              url: /rest/bookmarks/offset
              records: data.records
              total: meta.total
              paginate: offset
            """)
        let flagged = try Self.pipeline("has-more-hidden", source: Self.shapes.first { $0.name == "has-more" }!.explicit)
        let noFlag = try Self.pipeline("has-more-ignored", source: """
              url: /rest/bookmarks/has-more
              records: items
              paginate: offset
            """)
        try await withSandbox(hideEvery: 4) { harness in
            let environment = ["REST_SERVER": harness.server.baseURL]
            let reference = try await CommandRunner.run(["run", counted.path], environment: environment)
            #expect(reference.status == 0, "stderr: \(reference.stderr)")
            let result = try await CommandRunner.run(["run", flagged.path], environment: environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference.stdoutLines)
            #expect(result.stdoutLines.count > 40)
            // Without the flag the first short page ends the list: fewer rows, and a warning.
            let guessed = try await CommandRunner.run(["run", noFlag.path], environment: environment)
            #expect(guessed.stdoutLines.count < reference.stdoutLines.count)
            #expect(guessed.stderr.contains("may be missing"))
        }
    }

    @Test("a GitHub list of exactly one full page has no Link header and ends there")
    func githubOnePage() async throws {
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("github-one.yaml")
        try """
            name: github-one
            source:
              type: rest
              server: ${REST_SERVER}
              url: /rest/bookmarks/github
              paginate: { style: link-header, size-param: per_page }
              pagination: { page-size: 73 }
            convert:
              model: bookmark
            """.write(to: file, atomically: true, encoding: .utf8)
        try await withSandbox { harness in
            let result = try await CommandRunner.run(["run", file.path], environment: ["REST_SERVER": harness.server.baseURL])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
            #expect(result.stderr.isEmpty, "stderr: \(result.stderr)")
            let plan = try await CommandRunner.run(["plan", file.path], environment: ["REST_SERVER": harness.server.baseURL])
            #expect(plan.stdoutText.contains("per_page=73"), "\(plan.stdoutText)")
        }
    }

    @Test("a mistyped next path on a one-page list is a warning that names it")
    func mistypedPathOnOnePage() async throws {
        let file = try Self.pipeline("odata-typo", source: """
              url: /rest/bookmarks/odata
              records: value
              paginate: { style: next-link, next-path: nextLink }
            """)
        try await withSandbox { harness in
            let result = try await CommandRunner.run(["run", file.path], environment: ["REST_SERVER": harness.server.baseURL])
            #expect(result.status == 0)
            #expect(result.stdoutLines.count == 25)
            #expect(result.stderr.contains("'nextLink'"), "stderr: \(result.stderr)")
        }
    }

    @Test("a total that is too low (\"12\" for 23 rows) is an error naming the page past it, not rows lost unnoticed")
    func totalTooLow() async throws {
        // 23 rows, offset/limit, a quoted total of 12: page 1 (rows 10..<20) goes past it.
        let server = try RecordingServer(host: "127.0.0.1") { head in
            let target = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            let offset = target.split(separator: "offset=").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
            let rows = (offset..<min(23, offset + 10)).map { #"{"id":\#($0)}"# }.joined(separator: ",")
            return .init(body: #"{"items":[\#(rows)],"total":"12"}"#)
        }
        defer { server.stop() }
        let file = try Self.pipeline("too-low", source: """
              url: /items
              records: items
              total: total
              paginate: offset
            """).path
        let text = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "convert:\n  model: bookmark", with: "")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", file], environment: ["REST_SERVER": server.origin])
        #expect(result.status == 1)
        #expect(result.stdoutLines.count == 10)
        #expect(result.stderr.contains("page 1") && result.stderr.contains("reported 12 rows"), "stderr: \(result.stderr)")
    }

    @Test("max-offset ends a capped list cleanly and says where")
    func maxOffset() async throws {
        let file = try Self.pipeline("capped", source: """
              url: /rest/bookmarks/has-more
              records: items
              has-more: meta.has_next
              paginate: { style: offset, max-offset: 30 }
            """)
        let reference = try await ReferenceOutputs.shared.lines(for: "pipelines/bookmarks.yaml")
        try await withSandbox { harness in
            let result = try await CommandRunner.run(["run", "--events", file.path], environment: ["REST_SERVER": harness.server.baseURL])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let events = try result.stdoutLines.map { try JSONValue(parsing: $0) }
            let items = events.filter { $0["event"] == "selected" }.compactMap { $0["item"]?.jsonString }
            #expect(items == Array(reference.prefix(30)))
            #expect(events.last { $0["event"] == "finished" }?["end"] == "paging-cap")
        }
    }
}
