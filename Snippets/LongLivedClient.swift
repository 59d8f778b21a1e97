// Many pipelines over one connection pool and one cache, and metrics on the app's own route.

// snippet.client
import Logging
import Prometheus
import ScreensPipe
import ScreensPipeService
import ServiceLifecycle

let logger = Logger(label: "lists")
let registry = PrometheusCollectorRegistry()
var environment = PipelineEnvironment.current(cacheDirectory: .userCache)
environment.metricsFactory = PrometheusMetricsFactory(registry: registry)

// One HTTP client and one open cache store for every run below.
let client = ScreensPipeClient(environment: environment)
let bookmarks = try PipelineService(
    file: "pipelines/bookmarks.yaml", environment: client.environment, schedule: .every(.seconds(60)), logger: logger)
let articles = try PipelineService(
    file: "pipelines/structured-contents.yaml", environment: client.environment, schedule: .every(.seconds(60)), logger: logger)

// First in the list, so it shuts down last, once both services have stopped.
let group = ServiceGroup(
    services: [ScreensPipeClientService(client), bookmarks, articles], gracefulShutdownSignals: [.sigterm], logger: logger)
try await group.run()
// snippet.end

// snippet.one-off
// A run on the same pool, from a request handler of the app:
let summary = try await client.pipeline(file: "pipelines/bookmarks.yaml", sink: .discard).run()
print(summary.selected)
// snippet.end

// snippet.responder
// `GET /metrics` of the app's own server: the framework's route calls the responder.
let responder = MetricsResponder(registry: registry)
let scrape = responder.response(method: "GET")
print(scrape.status, scrape.headers.map { "\($0.name): \($0.value)" }, scrape.body.count)
// snippet.end
