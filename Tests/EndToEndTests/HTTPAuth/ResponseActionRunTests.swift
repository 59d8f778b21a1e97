import Foundation
import ScreensBus
import Synchronization
import Testing

/// `on-response:` rules through the real binary against a scripted server: each action,
/// and each reported where the user sees it (the page's event, `finished`, stderr).
@Suite("run: response actions end to end")
struct ResponseActionRunTests {
    /// Rows `start..<end` of a 30-row list, as `{"id": n}`.
    private static func rows(_ start: Int, _ end: Int) -> String {
        "[" + (start..<end).map { "{\"id\":\($0)}" }.joined(separator: ",") + "]"
    }

    private static func offset(of target: String) -> Int {
        guard let range = target.range(of: "offset=") else { return 0 }
        return Int(target[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }

    private func run(
        rules: String, total: Bool = true, paginate: String = "offset", arguments: [String] = ["--events"],
        reply: @escaping @Sendable (String) -> RecordingServer.Reply
    ) async throws -> CommandResult {
        let server = try RecordingServer(host: "127.0.0.1", reply: reply)
        defer { server.stop() }
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("actions.yaml")
        try """
            name: actions
            source:
              type: rest
              server: \(server.origin)
              url: /items
              records: items
            \(total ? "  total: total" : "")
              paginate: \(paginate)
              pagination: { first-page-size: 10, page-size: 10, prefetch: 1 }
              retry: { attempts: 3, backoff: 10ms }
              on-response:
            \(rules.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
            """.write(to: file, atomically: true, encoding: .utf8)
        return try await CommandRunner.run(["run", file.path] + arguments)
    }

    private func events(_ result: CommandResult, _ name: String) throws -> [JSONValue] {
        try result.jsonLines().filter { $0["event"]?.stringValue == name }
    }

    @Test("end-list on a 404: the rows before it, exit 0, and the ending says which page and rule")
    func endList() async throws {
        let result = try await run(rules: "- { status: 404, action: end-list, message: the folder is gone }", total: false) { target in
            Self.offset(of: target) >= 20
                ? .init(status: 404, body: #"{"error":"No folder"}"#)
                : .init(body: #"{"items":\#(Self.rows(Self.offset(of: target), Self.offset(of: target) + 10))}"#)
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let selected = try events(result, "selected")
        #expect(selected.compactMap { $0["item"]?["id"]?.int64Value } == Array(0..<20))
        let ended = try #require(try events(result, "response").last)
        #expect(ended["page"]?.int64Value == 2)
        #expect(ended["action"]?.stringValue == "end-list")
        let finished = try #require(try events(result, "finished").first)
        #expect(finished["end"]?.stringValue == "response-action")
        let warning = try #require(finished["endWarning"]?.stringValue)
        #expect(warning.contains("page 2") && warning.contains("status 404") && warning.contains("the folder is gone"), "\(warning)")
        #expect(result.stderr.contains("the folder is gone"), "stderr: \(result.stderr)")
    }

    @Test("skip-page on a body match: the other pages' rows, and finished names the skipped page")
    func skipPage() async throws {
        let result = try await run(rules: #"- { body-contains: "being reindexed", action: skip-page }"#) { target in
            let offset = Self.offset(of: target)
            if offset == 10 { return .init(body: #"{"message":"folder 10 is being reindexed"}"#) }
            return .init(body: #"{"items":\#(Self.rows(offset, min(30, offset + 10))),"total":30}"#)
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let ids = try events(result, "selected").compactMap { $0["item"]?["id"]?.int64Value }
        #expect(ids == Array(0..<10) + Array(20..<30))
        let skipped = try events(result, "response").filter { $0["action"]?.stringValue == "skip-page" }
        #expect(skipped.map { $0["page"]?.int64Value } == [1])
        let finished = try #require(try events(result, "finished").first)
        #expect(finished["end"]?.stringValue == "row-count")
        #expect(finished["endWarning"]?.stringValue?.contains("page 1") == true, "\(finished)")
    }

    @Test("retry on a JSON error code: the page is asked again and the run completes")
    func retry() async throws {
        let busy = Atomic<Int>(0)
        let result = try await run(
            rules: "- { json: { path: error.code, equals: BUSY }, action: retry }", arguments: ["-v"]
        ) { target in
            let offset = Self.offset(of: target)
            if offset == 10, busy.add(1, ordering: .relaxed).newValue == 1 {
                return .init(body: #"{"error":{"code":"BUSY"}}"#)
            }
            return .init(body: #"{"items":\#(Self.rows(offset, min(30, offset + 10))),"total":30}"#)
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutLines.count == 30)
        #expect(result.stderr.contains("retrying"), "stderr: \(result.stderr)")
        #expect(busy.load(ordering: .relaxed) == 2)
    }

    @Test("fail on a JSON value: a non-zero exit naming the page, the rule and its message")
    func fail() async throws {
        let result = try await run(rules: "- { status: [200, 403], json: { path: error.code, equals: 7 }, action: fail, message: access revoked }") { target in
            Self.offset(of: target) == 10
                ? .init(body: #"{"error":{"code":7}}"#)
                : .init(body: #"{"items":\#(Self.rows(Self.offset(of: target), Self.offset(of: target) + 10)),"total":30}"#)
        }
        #expect(result.status != 0)
        #expect(result.stderr.contains("page 1"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("on-response rule 1"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("access revoked"), "stderr: \(result.stderr)")
    }

    @Test("skip-page in a cursor list is an error: a skipped page names no next page")
    func skipInChainedList() async throws {
        let result = try await run(rules: "- { status: 404, action: skip-page }", total: false, paginate: "{ style: cursor, cursor-path: next }") { target in
            target.contains("cursor=") ? .init(status: 404, body: "{}") : .init(body: #"{"items":\#(Self.rows(0, 10)),"next":"c2"}"#)
        }
        #expect(result.status != 0)
        #expect(result.stderr.contains("skip-page cannot go on"), "stderr: \(result.stderr)")
    }

    @Test("a huge body is matched within its first MiB, in bounded time")
    func hugeBody() async throws {
        let padding = String(repeating: "a", count: 3 << 20)
        let result = try await run(rules: #"- { body-contains: "needle-after-the-limit", action: fail }"#) { _ in
            .init(status: 500, body: padding + "needle-after-the-limit")
        }
        #expect(result.status != 0)
        #expect(!result.stderr.contains("on-response rule"), "stderr: \(result.stderr.prefix(500))")
        #expect(result.stderr.contains("HTTP 500"), "stderr: \(result.stderr.prefix(500))")
    }
}
