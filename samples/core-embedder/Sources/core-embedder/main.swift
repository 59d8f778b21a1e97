// Usage: PORTAL_URL=http://127.0.0.1:8080 core-embedder [PIPELINE_FILE]
//
// Loads the bookmarks of a Liferay portal's Guest site over JSON-WS into this program's own
// subscriber and prints one line per row, "entryId<TAB>name", then a summary on stderr.
// It links ScreensPipeCore only: no cache store is linked, so the pipeline has no `cache:`
// section (a file that names one is refused, naming the product that provides it).
import Foundation
import ScreensPipeCore

/// The list, as a pipeline file would hold it; `${PORTAL_URL}` and the credentials come
/// from the process environment.
let bookmarks = """
    name: core-bookmarks
    source:
      type: liferay-jsonws
      server: ${PORTAL_URL}
      auth:
        basic: { username: "${PORTAL_USER:-test@liferay.com}", password: "${PORTAL_PASSWORD:-test}" }
      rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
      count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
      pagination: { page-size: 25 }
    convert:
      model: bookmark
    """

func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

let pipeline: Pipeline
do {
    // Rows reach this program's subscriber only: the file's own sink is replaced.
    if let file = CommandLine.arguments.dropFirst().first {
        pipeline = try Pipeline(file: file, sink: .discard)
    } else {
        pipeline = try Pipeline(yaml: bookmarks, name: "core-bookmarks", sink: .discard)
    }
} catch {
    printError("\(error)")
    exit(2)
}

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
        let id = row.item["entryId"]?.jsonString ?? ""
        let name = row.item["name"]?.stringValue ?? ""
        print("\(id)\t\(name)")
    case .error(let error):
        failed = true
        printError("error: \(error.message)")
    case .finished(let finished):
        printError("\(finished.pipeline): \(finished.selected) rows in \(finished.pages) pages")
    default:
        break
    }
}

switch await run.value {
case .success(let summary): exit(failed ? 1 : summary.exitCode)
case .failure(let error):
    printError("error: \(error.message)")
    exit(error.exitCode)
}
