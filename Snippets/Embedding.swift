// Embedding the library: build, subscribe to, run as a service, and feed pipelines.

// snippet.build
import Sandbox
import ScreensPipe

let sandboxed = PipelineEnvironment.current(sandbox: BundledSandbox(), cacheDirectory: .userCache)

// 1. A file; `sink: .discard` because this service reads the bus instead of stdout.
let bookmarks = try Pipeline(
    file: "pipelines/bookmarks.yaml", overrides: ["filter.limit=10"], sink: .discard, environment: sandboxed)

// 2. YAML text.
let notes = try Pipeline(yaml: """
    name: notes
    source:
      type: liferay-jsonws
      server: sandbox
      auth: { bearer: sandbox-token }
      rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
    filter: { where: 'name contains "notes"' }
    """, sink: .discard, environment: sandboxed)

// 3. Typed stage values.
let offline = Pipeline(spec: PipelineSpec(
    name: "offline",
    source: SourceSpec(type: .file(FileSourceSpec(path: "samples/offline/bookmarks.json"))),
    convert: ConvertSpec(model: .bookmark),
    filter: FilterSpec(expression: #"url contains "liferay""#),
    sink: SinkSpec(destination: .discard)))
// snippet.end

// snippet.settings
let loaded = try PipelineLoader().load(file: "pipelines/rest-bookmarks.yaml")
if let rest = loaded.source.type.settings(as: RESTSourceSpec.self) {
    print(loaded.source.type.typeName, rest.url)             // rest /rest/bookmarks/cursor
}
// snippet.end

// snippet.subscribe
let events = bookmarks.subscribe()            // an AsyncSequence of PipelineEvent
let run = Task { try await bookmarks.run() }
for await event in events {
    if case .selected(let row) = event { print(row.row, row.item.jsonString) }
}
let summary = try await run.value             // pages, rows, selected; throws if the run failed
// snippet.end

// snippet.delegate
struct Printer: ListDelegate {
    func onListResponse(_ response: ListResponse) async { print("page", response.page, response.rows) }
    func onListError(_ error: ListError) async { print("error:", error.message) }
    func onSelected(_ row: SelectedRow) async { print(row.item.jsonString) }
}
let delivered = notes.attach(Printer())       // before run()
_ = try await notes.run()
await delivered.value                         // the delegate has seen the last event
// snippet.end

// snippet.counter
import Synchronization

final class Counter: ListDelegate {
    let total = Mutex(0)
    func onPage(_ page: PageEvents) async { total.withLock { $0 += page.selectedCount } }
}
// snippet.end

// snippet.custom-events
await bookmarks.publish("index-rebuilt", payload: ["entries": 73])
await bookmarks.bus.publish(custom: "audit", pipeline: "bookmarks", payload: .null)
// snippet.end

// snippet.hide
/// A source the embedder writes: here, an in-memory inventory paged like a server.
struct MyInventorySource: PageFetcher {
    let client: [JSONValue]
    var identity: String { "inventory" }
    var summary: String { "inventory (\(client.count) items)" }
    func fetch(_ request: PageRequest, provisional: @Sendable (FetchedPage) async -> Void) async throws(ScreensPipeError) -> FetchedPage {
        FetchedPage(serving: client, for: request)
    }
    func plan(_ request: PageRequest) -> [PlannedRequest] { [] }
    func shutdown() async {}
}
let client: [JSONValue] = [["sku": "A-1"], ["sku": "B-2"]]
let directory = "/tmp/inventory-cache"
// snippet.show
// snippet.custom-source
let source = MyInventorySource(client: client)          // conforms to PageFetcher
let inventory = PipelineSpec(
    name: "inventory",
    source: SourceSpec(type: .custom(source), pagination: PaginationSpec(firstPageSize: 100, pageSize: 100)),
    cache: CacheSpec(policy: .remoteFirst))
let inventoryRun = try await Pipeline(spec: inventory, environment: PipelineEnvironment(cacheDirectory: .directory(directory))).run()
// snippet.end
_ = (offline, summary, inventoryRun)
