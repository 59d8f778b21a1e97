import Foundation
import Testing

/// Row counts and totals come from servers: the largest and the negative ones end the run
/// with a message naming page 0 and exit 1, never a trap (`Int.max` rows once overflowed
/// the page arithmetic and killed the process with a signal).
@Suite("hostile servers: impossible row counts")
struct HostileCountRunTests {
    /// One JSON-WS page of three rows with `count` as its row count.
    private func runJSONWS(count: String) async throws -> CommandResult {
        let portal = try RecordingServer(host: "127.0.0.1") { _ in
            .init(body: #"[[{"entryId":1,"name":"a"},{"entryId":2,"name":"b"},{"entryId":3,"name":"c"}], "# + count + "]")
        }
        defer { portal.stop() }
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("count.yaml").path
        try """
            name: count
            source:
              type: liferay-jsonws
              server: \(portal.origin)
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
              pagination: { page-size: 100 }     # first-page-size 50: Int.max - 50 + 99 overflowed
            """.write(toFile: file, atomically: true, encoding: .utf8)
        return try await CommandRunner.run(["run", file])
    }

    @Test("Int64.max rows, Int64.max - 1 rows and more rows than max-pages can hold",
          arguments: ["9223372036854775807", "9223372036854775806", "1000001"])
    func hugeCount(count: String) async throws {
        let run = try await runJSONWS(count: count)
        #expect(run.status == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("page 0"), "stderr: \(run.stderr)")
        #expect(run.stderr.contains("\(count) rows"), "stderr: \(run.stderr)")
        #expect(run.stderr.contains("max-pages"), "stderr: \(run.stderr)")
        #expect(run.stdoutLines.isEmpty)
    }

    @Test("a negative count, and a count past Int64", arguments: ["-1", "-9223372036854775808", "9223372036854775808", "1e300"])
    func impossibleCount(count: String) async throws {
        let run = try await runJSONWS(count: count)
        #expect(run.status == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("page 0"), "stderr: \(run.stderr)")
        #expect(run.stdoutLines.isEmpty)
    }

    @Test("headless totalCount of Int64.max")
    func headlessTotal() async throws {
        let portal = try RecordingServer(host: "127.0.0.1") { _ in
            .init(body: #"{"items":[{"id":1}],"page":1,"pageSize":20,"totalCount":9223372036854775807,"lastPage":1}"#)
        }
        defer { portal.stop() }
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("headless.yaml").path
        try """
            name: headless
            source:
              type: liferay-headless
              server: \(portal.origin)
              path: /o/headless-delivery/v1.0/sites/20143/structured-contents
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try await CommandRunner.run(["run", file])
        #expect(run.status == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("page 0"), "stderr: \(run.stderr)")
    }
}
