import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

/// JSON-WS has no generic filter: an incremental `get-articles` is sorted newest first by
/// the modified-date comparator and ends at the first page wholly behind the cursor,
/// reported as `end: cursor`.
@Suite(.serialized) struct IncrementalEarlyEndTests {
    static let articles = """
        type: liferay-jsonws
        server: ${LIFERAY_SERVER}
        auth: { basic: { username: test@liferay.com, password: test } }
        rows: { service: /journal.journalarticle/get-articles, params: { groupId: 20143, folderId: 0 } }
        count: { service: /journal.journalarticle/get-articles-count, params: { groupId: 20143, folderId: 0 } }
        pagination: { first-page-size: 10, page-size: 7, prefetch: 1 }
        """

    @Test func jsonwsEndsAtTheFirstPageBehindTheCursorWithExactlyTheChangedRows() async throws {
        try await withSandbox { sandbox in
            let workspace = try IncrementalWorkspace()
            let file = try workspace.pipeline("inc-articles", source: Self.articles)
            let plain = workspace.path("plain.yaml")
            // The ranged get-articles overload takes a comparator: any order will do for the truth.
            let plainSource = Self.articles + "\nsort: com.liferay.journal.util.comparator.ArticleIDComparator"
            try "name: plain\nsource:\n\(plainSource.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))\n"
                .write(toFile: plain, atomically: true, encoding: .utf8)

            let first = try await sandbox.run(file, ["--events"])
            #expect(first.status == 0, "\(first.stderr)")
            let (started, finished, selected) = try first.runEvents()
            #expect(started?["cursorPushed"]?.boolValue == false)
            #expect(selected.count == 60)
            #expect(finished?["end"]?.stringValue == "row-count")
            let cursor = try #require(finished?["cursor"]?.stringValue.flatMap(ISODate.parse))

            try sandbox.server.applyChanges(SandboxChangeRequest(list: .articles, seed: 4, add: 2, modify: 12))
            let truth = try await sandbox.run(plain)
            let expected = try truth.jsonLines().filter { ($0["modifiedDate"]?.int64Value ?? 0) > cursor }
                .compactMap { $0["resourcePrimKey"]?.int64Value }
            #expect(truth.status == 0 && !expected.isEmpty, "\(truth.status) \(truth.stderr) \(truth.stdoutLines.count)")

            let requestsBefore = sandbox.server.requestCount
            let changed = try await sandbox.run(file, ["--events"])
            #expect(changed.status == 0, "\(changed.stderr)")
            let run = try changed.runEvents()
            #expect(run.started?["cursorPushed"]?.boolValue == true)
            #expect(run.finished?["end"]?.stringValue == "cursor")
            #expect(run.finished?["succeeded"]?.boolValue == true)
            let ids = run.selected.compactMap { $0["resourcePrimKey"]?.int64Value }
            #expect(Set(ids) == Set(expected) && ids.count == expected.count)
            // Newest first, and fewer pages than the nine of a full load.
            let dates = run.selected.compactMap { $0["modifiedDate"]?.int64Value }
            #expect(dates == dates.sorted(by: >))
            #expect(sandbox.server.requestCount - requestsBefore < 9)

            let plan = try await CommandRunner.run(["plan", file], environment: ["LIFERAY_SERVER": sandbox.server.baseURL])
            #expect(plan.stdoutText.contains("# incremental: sorted newest first by com.liferay.journal.util.comparator.ArticleModifiedDateComparator"))
        }
    }
}
