import Foundation
import ScreensBus
import Testing

/// Headless `lastPage` through the real binary, against a scripted server that answers
/// headless `Page` bodies: the end of a list without `totalCount`, and numbers that disagree.
@Suite("run: headless lastPage")
struct HeadlessLastPageRunTests {
    /// 25 items in pages of 10; `numbers` gives each page's extra keys by 1-based page number.
    static func server(_ numbers: @escaping @Sendable (Int) -> String, rowsOnPage: @escaping @Sendable (Int) -> Int) throws -> RecordingServer {
        try RecordingServer(host: "127.0.0.1") { target in
            let page = target.split(separator: "?").last?.split(separator: "&")
                .first { $0.hasPrefix("page=") }.flatMap { Int($0.dropFirst(5)) } ?? 1
            let first = (page - 1) * 10
            let items = (0..<rowsOnPage(page)).map { #"{"id":\#(first + $0 + 1)}"# }.joined(separator: ",")
            return .init(body: #"{"items":[\#(items)],"page":\#(page),"pageSize":10\#(numbers(page))}"#)
        }
    }

    static func run(
        _ server: RecordingServer, _ arguments: [String] = [], cache: URL? = nil
    ) async throws -> (CommandResult, [JSONValue]) {
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("headless.yaml")
        try """
            name: headless
            source:
              type: liferay-headless
              server: \(server.origin)
              path: /o/headless-delivery/v1.0/sites/20143/structured-contents
              pagination: { page-size: 10, prefetch: 2 }
            \(cache.map { "cache: { policy: remote-first, path: \($0.path) }" } ?? "")
            """.write(to: file, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", file.path, "--events"] + arguments)
        return (result, try result.jsonLines())
    }

    @Test("without totalCount, lastPage ends the list, even past a short page a portal shortened")
    func lastPageEndsTheList() async throws {
        // Page 2 lost 3 rows to permission filtering; page 3 is the last.
        let server = try Self.server({ _ in #","lastPage":3"# }, rowsOnPage: { [1: 10, 2: 7, 3: 5][$0] ?? 0 })
        defer { server.stop() }
        let (result, events) = try await Self.run(server)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(events.filter { $0["event"] == "selected" }.count == 22)
        let finished = events.last { $0["event"] == "finished" }
        #expect(finished?["end"] == "last-page")
        #expect(finished?["endWarning"] == nil)
        #expect(server.requests.count == 3)
    }

    @Test("a cached load ends at the stored lastPage, as the remote one did")
    func cachedLastPage() async throws {
        let server = try Self.server({ _ in #","lastPage":3"# }, rowsOnPage: { [1: 10, 2: 7, 3: 5][$0] ?? 0 })
        let cache = try CommandRunner.temporaryDirectory().appendingPathComponent("cache.sqlite")
        let (remote, _) = try await Self.run(server, cache: cache)
        #expect(remote.status == 0, "stderr: \(remote.stderr)")
        server.stop()
        let (cached, events) = try await Self.run(server, ["--policy", "cache-only"], cache: cache)
        #expect(cached.status == 0, "stderr: \(cached.stderr)")
        #expect(events.filter { $0["event"] == "selected" }.count == 22)
        #expect(events.last { $0["event"] == "finished" }?["end"] == "last-page")
        #expect(server.requests.count == 3)
    }

    @Test("totalCount and lastPage that disagree are an error naming the page")
    func disagreement() async throws {
        let server = try Self.server({ _ in #","totalCount":25,"lastPage":4"# }, rowsOnPage: { $0 < 3 ? 10 : 5 })
        defer { server.stop() }
        let (result, events) = try await Self.run(server)
        #expect(result.status == 1)
        #expect(events.filter { $0["event"] == "selected" }.isEmpty)
        #expect(result.stderr.contains("page 0: lastPage is 4 but totalCount 25 in pages of 10 makes 3"), "stderr: \(result.stderr)")
    }

    @Test("a hostile lastPage is an error, not a run of pages")
    func hostileLastPage() async throws {
        let server = try Self.server({ _ in #","lastPage":-5"# }, rowsOnPage: { _ in 10 })
        defer { server.stop() }
        let (result, _) = try await Self.run(server)
        #expect(result.status == 1)
        #expect(result.stderr.contains("lastPage must be an integer of at least 1, found -5"), "stderr: \(result.stderr)")
        #expect(server.requests.count == 1)
    }
}
