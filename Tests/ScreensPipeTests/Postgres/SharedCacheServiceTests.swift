import Foundation
import Logging
import Sandbox
import ScreensBus
import ScreensPipe
import ScreensPipeService
import Synchronization
import Testing

/// The SharedStorage article's sample: two replicas of a service, each a `PipelineService`
/// with its own connections, on one PostgreSQL cache. One of them loads the list from the
/// portal; both deliver it.
@Suite(.enabled(if: PostgresTesting.isAvailable, PostgresTesting.needed))
struct SharedCacheServiceTests {
    /// Keeps the rows one replica saw.
    private final class RowCollector: ListDelegate {
        let rows = Mutex<[JSONValue]>([])
        func onSelected(_ row: SelectedRow) async { rows.withLock { $0.append(row.item) } }
    }

    private func yaml(server: String, cache: PostgresTarget) -> String {
        """
        name: bookmarks
        source:
          type: liferay-jsonws
          server: \(server)
          auth: { basic: { username: test@liferay.com, password: test } }
          rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
          count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
        convert: { model: bookmark }
        cache: { policy: cache-first, ttl: 5m, url: "\(cache.description)", tls: disable }
        """
    }

    @Test func twoReplicasShareOneLoadOfTheList() async throws {
        let portal = try await SandboxServer.start(SandboxConfiguration())
        do {
            // One replica alone, on a database of its own: what one load costs at the portal.
            let alone = RowCollector()
            let single = PipelineService(
                spec: try Pipeline(yaml: yaml(server: portal.baseURL, cache: try await PostgresTesting.freshDatabase()), sink: .discard).spec,
                delegate: alone)
            try await single.run()
            let requestsPerLoad = portal.requestCount

            let shared = try await PostgresTesting.freshDatabase()
            let spec = try Pipeline(yaml: yaml(server: portal.baseURL, cache: shared), sink: .discard).spec
            let collectors = [RowCollector(), RowCollector()]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for collector in collectors {
                    group.addTask { try await PipelineService(spec: spec, delegate: collector).run() }
                }
                try await group.waitForAll()
            }
            #expect(portal.requestCount - requestsPerLoad == requestsPerLoad)
            #expect(alone.rows.withLock { $0.count } == 73)
            for collector in collectors { #expect(collector.rows.withLock { $0 } == alone.rows.withLock { $0 }) }
        } catch {
            try? await portal.stop()
            throw error
        }
        try? await portal.stop()
    }
}
