// A pipeline run every five minutes in a swift-service-lifecycle ServiceGroup.

// snippet.hide
import ScreensBus

struct Printer: ListDelegate {
    func onSelected(_ row: SelectedRow) async { print(row.item.jsonString) }
}
// snippet.show
// snippet.service
import Logging
import Sandbox
import ScreensPipe
import ScreensPipeService
import ServiceLifecycle

let logger = Logger(label: "bookmarks")
let service = try PipelineService(
    file: "pipelines/bookmarks.yaml",                  // sink: .discard unless told otherwise
    environment: .current(sandbox: BundledSandbox(), cacheDirectory: .userCache),
    schedule: .every(.seconds(300)),
    delegate: Printer(),
    logger: logger)
let group = ServiceGroup(services: [service], gracefulShutdownSignals: [.sigterm], logger: logger)
try await group.run()
// snippet.end
