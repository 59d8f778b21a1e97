// Usage: embed-sample [PIPELINE_FILE]   (default: pipelines/bookmarks.yaml, from the repository root)
//
// Prints one line per selected row, "entryId<TAB>name<TAB>url", then a summary line on stderr.
import Foundation
import Sandbox
import ScreensBus
import ScreensPipe

/// Diagnostics go to stderr; stdout carries only the rows.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

let file = CommandLine.arguments.dropFirst().first ?? "pipelines/bookmarks.yaml"

let pipeline: Pipeline
do {
    // The file's own sink would print JSON lines on stdout too: this service prints its own.
    // pipelines/bookmarks.yaml caches in the default place: as the command line does, this
    // program asks for ~/.cache/screens-pipe (unless SCREENS_PIPE_CACHE_DIR names another).
    pipeline = try Pipeline(
        file: file, sink: .discard, environment: .current(sandbox: BundledSandbox(), cacheDirectory: .userCache))
} catch {
    printError("\(error)")
    exit(2)
}

// Subscribe before running, so the first event is seen too.
let events = pipeline.subscribe()
let run = Task { () async -> Result<RunSummary, ScreensPipeError> in
    do throws(ScreensPipeError) {
        return .success(try await pipeline.run())
    } catch {
        return .failure(error)
    }
}

var failed = false
for await event in events {
    switch event {
    case .selected(let row):
        let item = row.item.objectValue ?? [:]
        let fields = ["entryId", "name", "url"].map { key in
            switch item[key] {
            case .string(let text)?: text
            case let other?: other.jsonString
            case nil: ""
            }
        }
        print(fields.joined(separator: "\t"))
    case .error(let error):
        failed = true
        printError("error: \(error.message)")
    case .finished(let finished):
        printError("\(finished.pipeline): \(finished.selected) rows in \(finished.pages) pages")
    default:
        break
    }
}

// run() throws for a run that did not deliver every row (each error was an event above).
switch await run.value {
case .success: exit(failed ? 1 : 0)
case .failure(let error): exit(error.code == .configuration ? 2 : 1)
}
