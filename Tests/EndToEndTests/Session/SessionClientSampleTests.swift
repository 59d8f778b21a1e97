import Foundation
import Testing

/// samples/session-client, the Python client (standard library only), against the real
/// binary and the sandbox: the protocol is usable from outside Swift.
@Suite("session: the Python sample client")
struct SessionClientSampleTests {
    @Test("scrolling loads pages as the cursor nears the end; select and refresh work")
    func scriptedScroll() async throws {
        try await withSandbox { harness in
            let result = try await CommandRunner.shell(
                """
                python3 samples/session-client/session_client.py pipelines/bookmarks.yaml --bin "$SP" \
                  --script "scroll:55,select:52,refresh,close" -- \
                  --policy remote-only --set source.pagination.first-page-size=10 --set source.pagination.page-size=10
                """,
                environment: ["LIFERAY_SERVER": harness.server.baseURL])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let lines = result.stdoutLines
            // Cursor at row 55 with 3 rows of margin: pages 0 to 5 (rows 0-59), no more.
            let pages = lines.filter { $0.hasPrefix("page ") }
            #expect(pages.first == "page 0: 10 rows from row 0 of 73")
            #expect(pages.map { $0.prefix(7) } == ["page 0:", "page 1:", "page 2:", "page 3:", "page 4:", "page 5:", "page 0:"])
            #expect(lines.filter { $0.hasPrefix("  [") }.count == 70)
            #expect(lines.contains { $0.hasPrefix("selected row 52: {") })
            #expect(lines.last == "finished: 7 pages, 70 rows, 1 selected, 0 errors")
            #expect(harness.server.requestCount == 7)
        }
    }
}
