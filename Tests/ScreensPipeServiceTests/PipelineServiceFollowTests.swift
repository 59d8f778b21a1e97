import Foundation
import Logging
import Sandbox
import ScreensPipe
import ScreensPipeService
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

/// `PipelineService(following:)` in a real `ServiceGroup` against a sandbox portal on
/// 127.0.0.1: changes made with the sandbox's change endpoint reach the service's output
/// once each, and a graceful shutdown returns with the last complete poll committed.
@Suite("Pipeline service follow", .serialized)
struct PipelineServiceFollowTests {
    private let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    private static func bookmarks(directory: URL) -> String {
        """
        name: followed-bookmarks
        source:
          type: liferay-jsonws
          server: ${LIFERAY_SERVER}
          auth: { basic: { username: test@liferay.com, password: test } }
          rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
          count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
          pagination: { first-page-size: 20, page-size: 20 }
        cache: { policy: remote-only, path: \(directory.appendingPathComponent("cache.sqlite").path) }
        """
    }

    private static func startPortal() async throws -> SandboxServer {
        // Loading the portal's data is synchronous work: on a thread of its own, off the pool.
        let loader = DedicatedThreadExecutor(name: "sandbox-start")
        defer { loader.stop() }
        return try await withTaskExecutorPreference(loader) { try await SandboxServer.start(SandboxConfiguration()) }
    }

    /// Runs a following service in a group until `body` returns, then shuts it down
    /// gracefully and returns what `run()` did.
    private func follow(
        _ spec: PipelineSpec, _ environment: PipelineEnvironment, into output: CollectedChanges, _ body: () async throws -> Void
    ) async throws -> Result<Void, any Error> {
        let service = PipelineService(
            following: spec, environment: environment, options: FollowOptions(interval: .milliseconds(200)), output: output, logger: logger)
        let group = ServiceGroup(services: [service], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        let running = Task { try await group.run() }
        do {
            try await body()
        } catch {
            await group.triggerGracefulShutdown()
            _ = await running.result
            throw error
        }
        await group.triggerGracefulShutdown()
        let outcome = await completion(within: .seconds(30)) { await running.result }
        return try #require(outcome, "the service did not return after the graceful shutdown")
    }

    @Test("changes come once each, and a service started again goes on from the last complete poll")
    func followUntilGracefulShutdown() async throws {
        let portal = try await Self.startPortal()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("screens-pipe-follow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = PipelineEnvironment(variables: ["LIFERAY_SERVER": portal.baseURL])
        let spec = try Pipeline(yaml: Self.bookmarks(directory: directory), sink: .discard, environment: environment).spec
        let output = CollectedChanges()

        var expected = 73
        let first = try await follow(spec, environment, into: output) {
            try await output.waitFor(73)
            let report = try portal.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 5, add: 2, modify: 3))
            expected += Set(report.added).union(report.modified).count
            try await output.waitFor(expected)
        }
        #expect(throws: Never.self) { try first.get() }
        let changes = output.changes.withLock { $0 }
        #expect(changes.map(\.sequence) == Array(1...Int64(expected)))
        #expect(changes.prefix(73).allSatisfy { $0.kind == .added })
        #expect(changes.dropFirst(73).map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.added, .added, .updated, .updated, .updated])

        // While it was down the portal changed once; the restarted service writes just that.
        let report = try portal.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 9, modify: 1))
        let second = try await follow(spec, environment, into: output) {
            try await output.waitFor(expected + 1)
            try await Task.sleep(for: .milliseconds(600))
        }
        #expect(throws: Never.self) { try second.get() }
        let after = output.changes.withLock { $0 }.dropFirst(expected)
        #expect(after.map(\.kind) == [.updated])
        #expect(after.map(\.sequence) == [Int64(expected + 1)])
        #expect(after.first?.key["entryId"]?.int64Value == report.modified.first)
        try await portal.stop()
    }

    @Test("a .follow schedule without a change output is refused")
    func followScheduleNeedsAnOutput() async throws {
        let environment = PipelineEnvironment(variables: ["LIFERAY_SERVER": "http://127.0.0.1:9"])
        let spec = try Pipeline(yaml: Self.bookmarks(directory: FileManager.default.temporaryDirectory), sink: .discard, environment: environment).spec
        let service = PipelineService(spec: spec, environment: environment, schedule: .follow(FollowOptions()), logger: logger)
        let error = await #expect(throws: ScreensPipeError.self) { try await service.run() }
        #expect(error?.code == .configuration)
    }
}

/// A change output that keeps changes in memory and names the last one it holds, as a
/// table the changes are applied to would.
private final class CollectedChanges: ChangeOutput {
    let changes = Mutex<[ListChange]>([])

    func lastSequence() async throws(ScreensPipeError) -> Int64? { changes.withLock { $0.last?.sequence ?? 0 } }

    func write(_ batch: [ListChange]) async throws(ScreensPipeError) { changes.withLock { $0.append(contentsOf: batch) } }

    func waitFor(_ count: Int) async throws {
        // A bound that catches a hang only (see ChangeSequenceTests): the full parallel run
        // was measured starving this in-process follow past 60 s.
        let deadline = ContinuousClock.now + .seconds(300)
        while changes.withLock({ $0.count }) < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try #require(changes.withLock { $0.count } >= count, "\(changes.withLock { $0.count }) changes, waited for \(count)")
    }
}
