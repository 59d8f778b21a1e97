import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `run --follow` of a list with `incremental:` and `follow: { sweep-every }` through the
/// binary against the sandbox: its cursor polls read only changed rows, so only the key sweep
/// (headless `fields=id`) finds the rows deleted with `POST /_sandbox/changes`.
@Suite(.serialized) struct FollowKeySweepTests {
    /// A filter every article passes and every key-only row fails (`starts-with` on a missing
    /// field is false): were it run on the sweep's rows, it would drop them all and every row
    /// would come out deleted.
    private static let extra = """
        incremental: { cursor: dateModified, type: date }
        filter: { where: 'title starts-with ""' }
        follow: { sweep-every: 1 }
        """

    @Test func rowsDeletedInTheSandboxComeOutOnceAsDeleted() async throws {
        try await withSandbox { sandbox in
            let workspace = try FollowWorkspace("sweep-headless", source: FollowSources.headlessArticles, extra: Self.extra)
            let running = try workspace.start(sandbox)
            let first = try await workspace.waitForChanges(73)
            #expect(first.count == 73)
            #expect(first.allSatisfy { $0.kind == "added" })

            let report = try sandbox.server.applyChanges(SandboxChangeRequest(list: .articles, seed: 5, add: 2, modify: 3, delete: 2))
            // The sandbox may give a deleted row's id to a row it adds: that key's content changed.
            let reused = Set(report.added).intersection(report.deleted)
            let added = Set(report.added).subtracting(reused), deleted = Set(report.deleted).subtracting(reused)
            let updated = Set(report.modified).union(reused)
            #expect(!deleted.isEmpty)
            let count = added.count + updated.count + deleted.count
            // Several polls and sweeps more: a deletion written twice, or a row the filter
            // would have dropped, would show.
            let all = try await workspace.waitForChanges(73 + count, settle: .seconds(2))
            let changes = Array(all.dropFirst(73))
            #expect(all.numberedInOrder, "\(all.map(\.sequence))")
            #expect(changes.count == count, "\(changes)")
            #expect(Set(changes.keys("added")) == added)
            #expect(Set(changes.keys("updated")) == updated)
            #expect(changes.keys("deleted").sorted() == deleted.sorted())
            #expect(changes.filter { $0.kind == "deleted" }.allSatisfy { $0.item == nil })
            let replay = FollowReplay(all)
            #expect(replay.problems.isEmpty, "\(replay.problems)")

            running.send(SIGTERM)
            let (status, stderr) = await running.wait()
            #expect(status == 143, "\(stderr)")
            #expect(stderr.contains("\(73 + added.count) added, \(updated.count) updated, \(deleted.count) deleted"), "\(stderr)")
        }
    }

    /// Every sweep fails on its third page (`fields=id&page=3`: the fault hits only the sweep,
    /// which proves it asks for the keys only): the deletions are never written, while the
    /// cursor polls go on writing additions and updates.
    @Test func aSweepThatFailsHalfWayDeletesNothing() async throws {
        var faults = FaultPlan()
        faults.failMatching = "fields=id&page=3"
        try await withSandbox(faults: faults) { sandbox in
            let source = FollowSources.headlessArticles + "\nretry: { attempts: 1 }"
            let workspace = try FollowWorkspace("sweep-fails", source: source, extra: Self.extra)
            let running = try workspace.start(sandbox)
            _ = try await workspace.waitForChanges(73)

            let report = try sandbox.server.applyChanges(SandboxChangeRequest(list: .articles, seed: 6, add: 1, delete: 2))
            let added = Set(report.added).subtracting(report.deleted)
            #expect(!added.isEmpty)
            let all = try await workspace.waitForChanges(73 + added.count, settle: .seconds(2))
            #expect(Array(all.dropFirst(73)).keys("added").sorted() == added.sorted(), "\(all.dropFirst(73))")
            #expect(all.keys("deleted").isEmpty, "\(all.dropFirst(73))")
            #expect(all.numberedInOrder)

            running.send(SIGTERM)
            let (status, stderr) = await running.wait()
            #expect(status == 143, "\(stderr)")
            #expect(stderr.contains("the key sweep (which deletes nothing unless complete) failed"), "\(stderr)")
            #expect(stderr.contains("0 deleted"), "\(stderr)")
        }
    }

    /// `follow.sweep-every` without a cursor is refused before anything runs.
    @Test func aSweepWithoutACursorIsAConfigurationError() async throws {
        try await withSandbox { sandbox in
            let workspace = try FollowWorkspace("sweep-no-cursor", source: FollowSources.headlessArticles, extra: "follow: { sweep-every: 1 }")
            let result = try await CommandRunner.run(
                ["run", workspace.pipeline, "--follow", "200ms", "-o", workspace.output], environment: ["LIFERAY_SERVER": sandbox.server.baseURL])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("'follow.sweep-every' needs 'incremental:'"), "\(result.stderr)")
        }
    }
}
