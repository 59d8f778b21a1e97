// Following a list from Swift: its changes as an async sequence, and as a service.

// snippet.changes
import ScreensPipe

// LIFERAY_SERVER names the portal (`screens-pipe sandbox --port 8091` for a try).
let bookmarks = try Pipeline(file: "pipelines/bookmarks.yaml", environment: .current(cacheDirectory: .userCache))
let following = Task {
    for try await change in bookmarks.changes(every: .seconds(30)) {
        // The loop asking for the next change is what marks this one handled.
        print(change.sequence, change.kind, change.key.jsonString, change.item?["name"]?.stringValue ?? "")
    }
}
// Later: the poll under way is abandoned, the last complete poll stays committed.
following.cancel()
try await following.value
// snippet.end

// snippet.service
import Logging
import ScreensPipeService
import ServiceLifecycle
import Synchronization

/// Applies the changes to a table of its own; `lastSequence` lets a restart skip a batch
/// a crash interrupted after it was applied.
final class BookmarkTable: ChangeOutput {
    let rows = Mutex<(last: Int64, byKey: [String: JSONValue])>((0, [:]))

    func lastSequence() async throws(ScreensPipeError) -> Int64? { rows.withLock { $0.last } }

    func write(_ changes: [ListChange]) async throws(ScreensPipeError) {
        rows.withLock { rows in
            for change in changes {
                rows.byKey[change.key.jsonString] = change.item   // nil for `deleted`
                rows.last = change.sequence
            }
        }
    }
}

let logger = Logger(label: "bookmarks")
let service = PipelineService(
    following: bookmarks.spec, environment: bookmarks.environment,
    options: FollowOptions(interval: .seconds(30)), output: BookmarkTable(), logger: logger)
let group = ServiceGroup(services: [service], gracefulShutdownSignals: [.sigterm], logger: logger)
try await group.run()
// snippet.end
