import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// kill -9 at several points of incremental runs, then a clean rerun: across every output
/// that was published (renamed into place), each changed row appears exactly once and no
/// unchanged row appears at all.
@Suite(.serialized) struct IncrementalCrashTests {
    @Test func killNineAnywhereNeitherLosesNorRepeatsARow() async throws {
        try await withSandbox(faults: FaultPlan(latency: .milliseconds(40))) { sandbox in
            let workspace = try IncrementalWorkspace()
            let file = try workspace.pipeline("inc-crash", source: IncrementalWorkspace.jsonwsBookmarks)
            let environment = ["LIFERAY_SERVER": sandbox.server.baseURL]
            let full = try await sandbox.run(file, ["-o", workspace.path("out-full.jsonl")])
            #expect(full.status == 0, "\(full.stderr)")

            var published: [String] = []
            var changed = Set<Int64>()
            for (round, delay) in [0, 30, 90, 160, 250, 400].enumerated() {
                let report = try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: UInt64(round + 20), add: 1, modify: 2))
                changed.formUnion(report.added + report.modified)
                let output = workspace.path("out-\(round).jsonl")
                let running = try RunningCommand(["run", file, "-o", output], environment: environment)
                try await Task.sleep(for: .milliseconds(delay))
                running.send(SIGKILL)
                _ = await running.wait()
                if FileManager.default.fileExists(atPath: output) { published.append(output) }
            }
            let final = workspace.path("out-final.jsonl")
            let rerun = try await sandbox.run(file, ["-o", final])
            #expect(rerun.status == 0, "\(rerun.stderr)")
            published.append(final)

            // Every version of a row is published at most once; every changed row is published.
            var versions: [String: Int] = [:]
            var ids = Set<Int64>()
            for path in published {
                let text = try String(contentsOfFile: path, encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let row = try JSONValue(parsing: String(line))
                    let id = try #require(row["entryId"]?.int64Value)
                    ids.insert(id)
                    versions["\(id) \(row["modifiedDate"]?.jsonString ?? "-")", default: 0] += 1
                }
            }
            #expect(ids == changed)
            #expect(versions.values.allSatisfy { $0 == 1 }, "\(versions.filter { $0.value > 1 })")
        }
    }
}

/// Hostile state and cursor data through the binary.
@Suite(.serialized) struct IncrementalHostileTests {
    @Test func aCorruptStateIsAClearErrorAndStateResetRecovers() async throws {
        let workspace = try IncrementalWorkspace()
        let rows = workspace.path("rows.json")
        try #"[{"id":1,"modifiedDate":1000},{"id":2,"modifiedDate":2000}]"#.write(toFile: rows, atomically: true, encoding: .utf8)
        let file = try workspace.pipeline("inc-corrupt", source: "type: file\npath: \(rows)")
        #expect(try await CommandRunner.run(["run", file]).stdoutLines.count == 2)

        let spec = try PipelineLoader().load(file: file)
        let store = SQLiteListStateStore(cache: try CacheStore(path: workspace.cachePath))
        try await store.commit(ListStateRecord(document: #"{"version":1,"type":"date","cursor":"not a date","boundary":[]}"#, committedAt: Date()), for: try spec.stateKey())

        let failed = try await CommandRunner.run(["run", file])
        #expect(failed.status == 1)
        #expect(failed.stdoutLines.isEmpty)
        #expect(failed.stderr.contains("the stored state of pipeline inc-corrupt cannot be used: its cursor is not a date"), "\(failed.stderr)")
        let shown = try await CommandRunner.run(["state", "show", file])
        #expect(shown.status == 0)
        #expect(try JSONValue(parsing: shown.stdoutText)["state"]?["cursor"]?.stringValue == "not a date")
        let reset = try await CommandRunner.run(["state", "reset", file])
        #expect(reset.status == 0 && reset.stderr.contains("reset the state of inc-corrupt"))
        #expect(try await CommandRunner.run(["run", file]).stdoutLines.count == 2)
        let after = try JSONValue(parsing: try await CommandRunner.run(["state", "show", file]).stdoutText)
        #expect(after["state"]?["cursor"]?.stringValue == "1970-01-01T00:00:02Z")
    }

    @Test func aCursorOfTheWrongTypeOrUnparsableTextFailsNamingTheRow() async throws {
        let workspace = try IncrementalWorkspace()
        let rows = workspace.path("rows.json")
        try #"[{"id":1,"modifiedDate":1000},{"id":2,"modifiedDate":{"$date":"x"}},{"id":3,"modifiedDate":"2026-13-45T99:00:00Z"}]"#
            .write(toFile: rows, atomically: true, encoding: .utf8)
        let file = try workspace.pipeline("inc-bad-row", source: "type: file\npath: \(rows)")
        let result = try await CommandRunner.run(["run", file, "-o", workspace.path("out.jsonl")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("row 1: the incremental cursor 'modifiedDate' is not a date: found {\"$date\":\"x\"}"), "\(result.stderr)")
        #expect(result.stderr.contains("row 2: the incremental cursor 'modifiedDate' is not a date"), "\(result.stderr)")
        // Nothing was committed: the state is still empty.
        let shown = try JSONValue(parsing: try await CommandRunner.run(["state", "show", file]).stdoutText)
        #expect(shown["state"] == .null)
    }
}
