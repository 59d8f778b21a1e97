import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Synchronization
import TestSupport
import Testing

/// `pipeline.changes(every:)` against the sandbox: the library's follow, the same state and
/// crash safety as `run --follow`, ended by cancelling the task that iterates.
@Suite(.serialized) struct ChangeSequenceTests {
    /// Iterates `changes` in a task of its own, collecting every change, until the task is
    /// cancelled or the sequence ends (or `stopAfter` changes were taken: then it breaks).
    private final class Collector: Sendable {
        /// What the loop took, and how it ended: nil while it runs, "" when the sequence
        /// ended, else the error.
        private final class Taken: Sendable {
            let changes = Mutex<[ListChange]>([])
            let ended = Mutex<String?>(nil)
        }

        private let state: Taken
        let task: Task<Void, Never>

        init(_ sequence: ListChanges, stopAfter: Int? = nil) {
            let state = Taken()
            self.state = state
            task = Task {
                do throws(ScreensPipeError) {
                    for try await change in sequence {
                        let count = state.changes.withLock { $0.append(change); return $0.count }
                        if let stopAfter, count >= stopAfter { break }
                    }
                    state.ended.withLock { $0 = "" }
                } catch {
                    state.ended.withLock { $0 = error.description }
                }
            }
        }

        var ended: String? { state.ended.withLock { $0 } }

        var taken: [ListChange] { state.changes.withLock { $0 } }

        func waitFor(_ count: Int, settle: Duration = .milliseconds(900)) async throws -> [ListChange] {
            // A bound that catches a hang only: in the full parallel run the in-process
            // follow shares two cores with every other suite, and its first poll was
            // measured waiting past 60 s there (it takes about 1 s alone).
            try await waitUntil(timeout: .seconds(300)) { taken.count >= count }
            try await Task.sleep(for: settle)
            return taken
        }

        /// Cancels the iterating task and waits (bounded) until the sequence ended.
        func cancel() async throws -> String {
            task.cancel()
            let finished: Void? = await completion(within: .seconds(30)) { [task] in await task.value }
            try #require(finished != nil, "the sequence did not end after its task was cancelled")
            return try #require(ended)
        }
    }

    private func pipeline(_ workspace: FollowWorkspace, _ sandbox: SandboxHarness) throws -> Pipeline {
        try Pipeline(file: workspace.pipeline, environment: PipelineEnvironment(variables: ["LIFERAY_SERVER": sandbox.server.baseURL]))
    }

    /// The first load as `added`, one batch of changes with the right kinds, a clean end by
    /// cancellation, and a second follow that hands over only what changed since.
    @Test func changesComeOnceEachAndCancellationEndsCleanly() async throws {
        try await withSandbox { sandbox in
            let workspace = try FollowWorkspace("sequence-jsonws", source: FollowSources.jsonwsBookmarks)
            let first = Collector(try pipeline(workspace, sandbox).changes(every: .milliseconds(200)))
            let loaded = try await first.waitFor(73)
            #expect(loaded.count == 73)
            #expect(loaded.allSatisfy { $0.kind == .added && $0.item != nil })
            #expect(loaded.map(\.sequence) == Array(1...73))

            let report = try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 5, add: 2, modify: 3, delete: 2))
            let reused = Set(report.added).intersection(report.deleted)
            let added = Set(report.added).subtracting(reused), deleted = Set(report.deleted).subtracting(reused)
            let updated = Set(report.modified).union(reused)
            let count = added.count + updated.count + deleted.count
            let all = try await first.waitFor(73 + count)
            let changes = all.dropFirst(73)
            #expect(all.map(\.sequence) == Array(1...Int64(73 + count)))
            func keys(_ kind: ChangeKind) -> Set<Int64> { Set(changes.filter { $0.kind == kind }.compactMap { $0.key["entryId"]?.int64Value }) }
            #expect(keys(.added) == Set(added))
            #expect(keys(.updated) == Set(updated))
            #expect(keys(.deleted) == Set(deleted))
            #expect(changes.filter { $0.kind == .deleted }.allSatisfy { $0.item == nil })
            #expect(try await first.cancel() == "")

            // The state of the last poll was committed: a new follow starts from it.
            let second = Collector(try pipeline(workspace, sandbox).changes(every: .milliseconds(200)))
            try await Task.sleep(for: .seconds(1))
            #expect(second.taken.isEmpty, "\(second.taken.map(\.line))")
            let more = try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 9, modify: 1))
            let next = try await second.waitFor(1)
            #expect(next.map(\.kind) == [.updated])
            #expect(next.map(\.sequence) == [Int64(74 + count)])
            #expect(next.first?.key["entryId"]?.int64Value == more.modified.first)
            #expect(try await second.cancel() == "")
        }
    }

    /// A loop left mid-batch handled only part of it: the next follow hands over the rest,
    /// numbered as before, from the change after `after:`.
    @Test func aLoopLeftMidBatchGetsTheRestAgain() async throws {
        try await withSandbox { sandbox in
            let workspace = try FollowWorkspace("sequence-break", source: FollowSources.jsonwsBookmarks)
            let first = Collector(try pipeline(workspace, sandbox).changes(every: .milliseconds(200)), stopAfter: 10)
            _ = await completion(within: .seconds(60)) { [task = first.task] in await task.value }
            #expect(first.taken.map(\.sequence) == Array(1...10))
            #expect(first.ended == "")

            // Without `after:` the whole pending batch comes again, with the same numbers.
            let again = Collector(try pipeline(workspace, sandbox).changes(every: .milliseconds(200)), stopAfter: 20)
            _ = await completion(within: .seconds(60)) { [task = again.task] in await task.value }
            #expect(again.taken.map(\.sequence) == Array(1...20))
            #expect(again.taken.prefix(10) == first.taken[...])

            let rest = Collector(try pipeline(workspace, sandbox).changes(every: .milliseconds(200), after: 20))
            let taken = try await rest.waitFor(53)
            #expect(taken.map(\.sequence) == Array(21...73))
            #expect(Set((again.taken + taken).compactMap { $0.key["entryId"]?.int64Value }).count == 73)
            #expect(try await rest.cancel() == "")
        }
    }

    /// A sequence that cannot follow (an interval under the minimum) throws at once.
    @Test func aTooShortIntervalIsAConfigurationError() async throws {
        let workspace = try FollowWorkspace("sequence-interval", source: FollowSources.jsonwsBookmarks)
        let pipeline = try Pipeline(file: workspace.pipeline, environment: PipelineEnvironment(variables: ["LIFERAY_SERVER": "http://127.0.0.1:9"]))
        let error = await #expect(throws: ScreensPipeError.self) {
            for try await _ in pipeline.changes(every: .milliseconds(10)) {}
        }
        #expect(error?.code == .configuration)
    }
}
