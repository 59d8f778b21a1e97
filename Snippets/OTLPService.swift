// A scheduled pipeline whose spans go to an OTLP collector when OTEL_EXPORTER_OTLP_ENDPOINT is set.

// snippet.otlp
import Logging
import Sandbox
import ScreensPipe
import ScreensPipeService
import ServiceLifecycle

let logger = Logger(label: "bookmarks")
let export = OTLPExport.start(logger: logger)  // nil unless OTEL_EXPORTER_OTLP_ENDPOINT is set
let service = try PipelineService(
    file: "pipelines/bookmarks.yaml", environment: .current(sandbox: BundledSandbox(), cacheDirectory: .userCache), logger: logger)
try await ServiceGroup(services: [service], gracefulShutdownSignals: [.sigterm], logger: logger).run()
await export?.shutdown()  // sends the spans not sent yet
// snippet.end
