import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

/// Full load, changes in the sandbox, then an incremental run through the real binary: the
/// second run delivers exactly the rows added or modified, each once, for every source type.
@Suite(.serialized) struct IncrementalRunTests {
    @Test func jsonwsDeliversExactlyTheChangedRowsInListOrder() async throws {
        try await withSandbox { sandbox in
            let workspace = try IncrementalWorkspace()
            let file = try workspace.pipeline("inc-jsonws", source: IncrementalWorkspace.jsonwsBookmarks)
            let fullRequestsBefore = sandbox.server.requestCount
            let full = try await sandbox.run(file)
            let fullRequests = sandbox.server.requestCount - fullRequestsBefore
            #expect(full.status == 0, "\(full.stderr)")
            let before = try full.values("entryId")
            #expect(before.count == 73)

            // Sorted newest first by EntryModifiedDateComparator, even on the first run.
            let fullDates = try full.jsonLines().compactMap { $0["modifiedDate"]?.int64Value }
            #expect(fullDates == fullDates.sorted(by: >))

            let report = try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 11, add: 3, modify: 5, delete: 2))
            let requestsBefore = sandbox.server.requestCount
            let changed = try await sandbox.run(file, ["--events"])
            #expect(changed.status == 0, "\(changed.stderr)")
            let (started, finished, selected) = try changed.runEvents()
            let delivered = selected.compactMap { $0["entryId"]?.int64Value }
            // Exactly the changed rows, newest first (each change has a second of its own),
            // and the list ends at the first page behind the cursor.
            #expect(Set(delivered) == Set(report.modified + report.added) && delivered.count == report.modified.count + report.added.count)
            let dates = selected.compactMap { $0["modifiedDate"]?.int64Value }
            #expect(dates == dates.sorted(by: >))
            let newest = try #require(fullDates.first)
            #expect(started?["cursor"]?.stringValue == ISODate.format(epochMilliseconds: newest))
            #expect(started?["cursorPushed"]?.boolValue == true)
            #expect(finished?["end"]?.stringValue == "cursor")
            #expect(finished?["cursor"]?.stringValue == ISODate.format(epochMilliseconds: report.clock))
            // Eight changed rows fit the first two pages (10 + 7); pages prefetched past the
            // end are the only others.
            #expect(sandbox.server.requestCount - requestsBefore < fullRequests)

            let unchanged = try await sandbox.run(file)
            #expect(unchanged.status == 0 && unchanged.stdoutLines.isEmpty)
        }
    }

    @Test func headlessPushesTheCursorAndDeliversExactlyTheChangedRows() async throws {
        try await withSandbox { sandbox in
            let workspace = try IncrementalWorkspace()
            let file = try workspace.pipeline("inc-headless", source: IncrementalWorkspace.headlessArticles, cursor: "dateModified")
            let full = try await sandbox.run(file, ["--events"])
            #expect(full.status == 0, "\(full.stderr)")
            #expect(try full.runEvents().started?["cursorPushed"]?.boolValue == false)
            #expect(try full.runEvents().selected.count == 73)

            let report = try sandbox.server.applyChanges(SandboxChangeRequest(list: .articles, seed: 5, add: 2, modify: 4, delete: 1))
            let requestsBefore = sandbox.server.requestCount
            let changed = try await sandbox.run(file, ["--events"])
            #expect(changed.status == 0, "\(changed.stderr)")
            let (started, _, selected) = try changed.runEvents()
            #expect(started?["cursorPushed"]?.boolValue == true)
            // Sorted by dateModified ascending on the server: the order of the changes.
            #expect(selected.compactMap { $0["id"]?.int64Value } == report.modified + report.added)
            // `ge` also brings the row at the old cursor (dropped by its digest): seven rows,
            // two pages of six, where a full load takes thirteen.
            #expect(sandbox.server.requestCount - requestsBefore == 2)
            let plan = try await CommandRunner.run(["plan", file], environment: ["LIFERAY_SERVER": sandbox.server.baseURL])
            #expect(plan.stdoutText.contains("# incremental: pushed to the server as filter=dateModified ge <cursor>"))
        }
    }

    @Test func restPushesTheCursorThroughTheQueryTemplate() async throws {
        try await withSandbox { sandbox in
            let workspace = try IncrementalWorkspace()
            let file = try workspace.pipeline("inc-rest", source: IncrementalWorkspace.restBookmarks)
            let full = try await sandbox.run(file)
            #expect(full.status == 0, "\(full.stderr)")
            let before = try full.values("entryId")
            #expect(before.count == 73)
            let report = try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 2, add: 1, modify: 3))
            let requestsBefore = sandbox.server.requestCount
            let changed = try await sandbox.run(file, ["--events"])
            #expect(changed.status == 0, "\(changed.stderr)")
            let (started, _, selected) = try changed.runEvents()
            #expect(started?["cursorPushed"]?.boolValue == true)
            #expect(selected.compactMap { $0["entryId"]?.int64Value } == before.filter { Set(report.modified).contains($0) } + report.added)
            #expect(sandbox.server.requestCount - requestsBefore == 1)
        }
    }

    @Test func fileSourceFiltersClientSide() async throws {
        let workspace = try IncrementalWorkspace()
        let rows = workspace.path("rows.json")
        func save(_ values: [(Int64, Int64)]) throws {
            let array = JSONValue.array(values.map { ["id": .int($0.0), "modifiedDate": .int($0.1)] })
            try array.jsonString.write(toFile: rows, atomically: true, encoding: .utf8)
        }
        try save((1...12).map { ($0, 1_000 * $0) })
        let file = try workspace.pipeline("inc-file", source: "type: file\npath: \(rows)\npagination: { first-page-size: 5, page-size: 5 }")
        let full = try await CommandRunner.run(["run", file])
        #expect(try full.values("id") == Array(1...12))
        try save((1...12).map { ($0, $0 == 4 ? 50_000 : 1_000 * $0) } + [(13, 13_000)])
        #expect(try await CommandRunner.run(["run", file]).values("id") == [4, 13])
        let plan = try await CommandRunner.run(["plan", file])
        #expect(plan.stdoutText.contains("# incremental: client-side only (a file source has no generic filter; every row is read)"))
    }

    /// Rows that share the committed cursor's second, written after the run that committed
    /// it, on both sides of a page boundary: each is delivered once, by the next run.
    @Test(arguments: ["jsonws", "headless"])
    func equalCursorValuesAtAPageBoundaryAreDeliveredOnce(_ kind: String) async throws {
        try await withSandbox { sandbox in
            let workspace = try IncrementalWorkspace()
            let headless = kind == "headless"
            let file = try workspace.pipeline(
                "inc-equal-\(kind)", source: headless ? IncrementalWorkspace.headlessArticles : IncrementalWorkspace.jsonwsBookmarks,
                cursor: headless ? "dateModified" : "modifiedDate")
            let id = headless ? "id" : "entryId"
            func ids(_ result: CommandResult) throws -> [Int64] { try result.runEvents().selected.compactMap { $0[id]?.int64Value } }
            _ = try await sandbox.run(file)
            let list: SandboxChangeList = headless ? .articles : .bookmarks
            // Nine rows with one modifiedDate: more than a page of six (headless), across
            // the 10/7 page boundaries of JSON-WS.
            let first = try sandbox.server.applyChanges(SandboxChangeRequest(list: list, seed: 9, modify: 9, sameTime: true))
            let run1 = try ids(try await sandbox.run(file, ["--events"]))
            #expect(Set(run1) == Set(first.modified) && run1.count == 9)
            // Three rows written in that same second after the run: the committed cursor's value.
            var late = SandboxChangeRequest(list: list, seed: 10, add: 3)
            late.atPreviousTime = true
            let added = try sandbox.server.applyChanges(late)
            #expect(added.clock == first.clock)
            let run2 = try ids(try await sandbox.run(file, ["--events"]))
            if headless {
                #expect(run2 == added.added)
            } else {
                // Newest first: rows of one second come in the portal's order for ties.
                #expect(Set(run2) == Set(added.added) && run2.count == added.added.count)
            }
            #expect(try ids(try await sandbox.run(file, ["--events"])).isEmpty)
        }
    }
}
