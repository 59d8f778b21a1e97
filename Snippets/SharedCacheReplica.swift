// Two or more replicas of one service on one PostgreSQL database (README, "What it promises").

// snippet.hide
import Logging
import ScreensPipe
import ScreensPipeService
import ServiceLifecycle

/// The service's own index of bookmarks, fed by the pipeline's rows.
struct BookmarkIndex: ListDelegate {
    func onSelected(_ row: SelectedRow) async { print(row.item.jsonString) }
}
let logger = Logger(label: "bookmarks")
let index = BookmarkIndex()
// snippet.show
// snippet.readme
// Run this in each replica; the pipeline's cache names the shared database.
let service = try PipelineService(file: "samples/shared-cache/bookmarks.yaml", schedule: .every(.seconds(300)), delegate: index)
try await ServiceGroup(services: [service], gracefulShutdownSignals: [.sigterm], logger: logger).run()
// snippet.end
