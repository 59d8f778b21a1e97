// A scheduled pipeline and its Prometheus metrics in one ServiceGroup.

// snippet.service
import Logging
import Prometheus
import Sandbox
import ScreensPipe
import ScreensPipeService
import ServiceLifecycle

let logger = Logger(label: "bookmarks")
let registry = PrometheusCollectorRegistry()
var environment = PipelineEnvironment.current(sandbox: BundledSandbox(), cacheDirectory: .userCache)
environment.metricsFactory = PrometheusMetricsFactory(registry: registry)
let pipeline = try PipelineService(
    file: "pipelines/bookmarks.yaml", environment: environment, schedule: .every(.seconds(300)), logger: logger)
let metrics = try await MetricsEndpoint.bind(host: "127.0.0.1", port: 9464, registry: registry)
let group = ServiceGroup(services: [pipeline, metrics], gracefulShutdownSignals: [.sigterm], logger: logger)
try await group.run()
// curl http://127.0.0.1:9464/metrics
// snippet.end
