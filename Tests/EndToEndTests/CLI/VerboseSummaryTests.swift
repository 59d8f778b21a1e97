import Foundation
import Testing

/// The `-v` closing line counts with nouns that agree: "1 page", not "1 pages".
@Suite("run -v summary line")
struct VerboseSummaryTests {
    @Test func singularCountsAreSingular() async throws {
        let result = try await CommandRunner.run(["run", "pipelines/offline-bookmarks.yaml", "-v", "--limit", "3"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("offline-bookmarks: 1 page, 4 rows, 3 selected, 0 errors"), "\(result.stderr)")
    }
}
