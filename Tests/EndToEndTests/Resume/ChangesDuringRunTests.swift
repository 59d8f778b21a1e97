import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

/// Rows changed while an incremental run pages through the list: with a lookback as long
/// as the run, the next run delivers every version the first one missed. The list is the
/// sandbox's REST bookmarks in list order (the cursor applied client-side), which a
/// modification leaves in place.
@Suite(.serialized) struct ChangesDuringRunTests {
    @Test func rowsModifiedBetweenPagesComeWithTheNextRunWithinTheLookback() async throws {
        // One page at a time, 100 ms each, and every third answer held for two seconds: after
        // its first pages the run has seconds to go, and the changes land between its pages.
        // A test process starved by parallel suites may still wake after the run's end: such
        // an attempt proves nothing and is made again, up to three times.
        try await withSandbox(faults: FaultPlan(latency: .milliseconds(100), stallEvery: 3, stallDuration: .seconds(2))) { sandbox in
          for attempt in 1...3 {
            let workspace = try IncrementalWorkspace()
            let file = workspace.path("during.yaml")
            try """
                name: inc-during
                source:
                  type: rest
                  server: ${LIFERAY_SERVER}
                  url: /rest/bookmarks/offset
                  records: data.records
                  total: meta.total
                  paginate: offset
                  pagination: { first-page-size: 7, page-size: 7, prefetch: 1 }
                cache: { policy: remote-only, path: \(workspace.cachePath) }
                incremental: { cursor: modifiedDate, type: date, lookback: 1h }
                """.write(toFile: file, atomically: true, encoding: .utf8)
            let environment = ["LIFERAY_SERVER": sandbox.server.baseURL]
            let first = workspace.path("first.jsonl")
            let running = try RunningCommand(["run", file, "-o", first], environment: environment)
            // The first checkpoint syncs the rows of page 0 into the temporary file: the run is under way.
            try await waitUntil {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: workspace.directory.path)) ?? []
                return names.contains { $0.hasPrefix(".first.jsonl.") && (Self.size(of: workspace.path($0)) ?? 0) > 0 }
            }
            // Modifications only: rows added mid-run would take the list past the count page 0
            // reported, which is an error naming the page (the count is stale; rows after it
            // could be lost), not what this test is about.
            let report = try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: UInt64(30 + attempt), add: 0, modify: 14))
            // The changes landed before the run's end: its output was not in place yet.
            let landedMidRun = !FileManager.default.fileExists(atPath: first)
            let (status, stderr) = await running.wait()
            #expect(status == 0, "\(stderr)")
            if !landedMidRun, attempt < 3 { continue }
            #expect(landedMidRun, "the changes landed after the run on three attempts")

            let second = workspace.path("second.jsonl")
            let next = try await sandbox.run(file, ["-o", second])
            #expect(next.status == 0, "\(next.stderr)")

            // Every current version of a changed row is in one of the two outputs.
            let now = try await sandbox.run(file, ["--full-refresh", "-o", workspace.path("now.jsonl")])
            #expect(now.status == 0, "\(now.stderr)")
            let delivered = try Self.versions(first).union(try Self.versions(second))
            let current = try Self.rows(workspace.path("now.jsonl"))
            let changed = Set(report.modified + report.added)
            let changedVersions = current.filter { changed.contains($0.id) }
            #expect(changedVersions.count == 14)
            for version in changedVersions {
                #expect(delivered.contains("\(version.id) \(version.modified)"), "row \(version.id) as modified at \(version.modified) was never delivered")
            }
            // And the first run delivered every row, in some version, exactly once.
            let firstIds = try Self.rows(first).map(\.id)
            #expect(Set(firstIds).count == firstIds.count)
            #expect(firstIds.count >= 73)
            break
          }
        }
    }

    private static func size(of path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }

    private static func rows(_ path: String) throws -> [(id: Int64, modified: Int64)] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            let row = try JSONValue(parsing: String(line))
            return (try #require(row["entryId"]?.int64Value), try #require(row["modifiedDate"]?.int64Value))
        }
    }

    private static func versions(_ path: String) throws -> Set<String> {
        Set(try rows(path).map { "\($0.id) \($0.modified)" })
    }
}
