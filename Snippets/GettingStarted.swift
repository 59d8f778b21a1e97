// Getting started: load a pipeline file, watch its events, and stop it.
// (Built by `swift build` as a snippet: the guide's code cannot drift from the API.)

// snippet.load
import Sandbox
import ScreensBus
import ScreensPipe

let pipeline = try Pipeline(
    file: "pipelines/bookmarks.yaml",
    sink: .discard,                                    // this program reads the bus instead
    environment: .current(
        sandbox: BundledSandbox(),                     // the bundled portal for `server: sandbox`
        cacheDirectory: .userCache))                   // the file's cache: in ~/.cache/screens-pipe
// snippet.end

// snippet.watch
let events = pipeline.subscribe()
let run = Task { try await pipeline.run() }
for await event in events {
    switch event {
    case .selected(let row): print(row.item.jsonString)
    case .error(let error): print("error:", error.message)
    default: break
    }
}
let summary = try await run.value   // throws if the run failed: a 401, a 500, a bad row
print(summary.selected, "rows")
// snippet.end
