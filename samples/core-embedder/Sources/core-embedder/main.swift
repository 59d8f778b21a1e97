// Usage: PORTAL_URL=http://127.0.0.1:8080 core-embedder [PIPELINE_FILE]
//
// Loads the bookmarks of a Liferay portal's Guest site over JSON-WS as this program's own
// `Bookmark` values and prints one line per row, "entryId<TAB>name", then a summary on
// stderr. With STOP_AFTER=N it cancels its loop after N rows, as a service stops a load it
// no longer needs. Exit status (this program's own choice): 0 the whole list, 1 a failed
// run (a 401 included: the error names the page and the request), 2 a pipeline file with
// mistakes, 130 stopped.
// It links ScreensPipeCore only: no cache store and no sandbox are linked, so the pipeline
// has no `cache:` section (a file that names one is refused, naming the product that
// provides it), and nothing is written under $HOME.
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

/// One row as this program needs it: decoded from the row's JSON value, 64-bit ids exact.
struct Bookmark: Decodable, Sendable {
    let entryId: Int64
    let name: String
    let createDate: Date?
}

func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

let pipeline: Pipeline
do {
    // Rows reach this program only: the file's own sink is replaced.
    if let file = CommandLine.arguments.dropFirst().first {
        pipeline = try Pipeline(file: file, sink: .discard)
    } else {
        pipeline = try Pipeline(yaml: bookmarks, name: "core-bookmarks", sink: .discard)
    }
} catch {
    printError("\(error)")
    exit(2)
}

// The run's own account of itself, from its `finished` event.
let finished = pipeline.subscribe()
let summaryLine = Task { () -> String? in
    for await event in finished {
        if case .finished(let end) = event { return "\(end.pipeline): \(end.selected) rows in \(end.pages) pages" }
    }
    return nil
}

let stopAfter = ProcessInfo.processInfo.environment["STOP_AFTER"].flatMap { Int($0) }
let loading = Task { () throws(ScreensPipeError) -> Int in
    var count = 0
    for try await bookmark in pipeline.rows(as: Bookmark.self) {
        print("\(bookmark.entryId)\t\(bookmark.name)")
        count += 1
        // Cancelling the task that iterates stops the run: the next row is never fetched.
        if count == stopAfter { withUnsafeCurrentTask { $0?.cancel() } }
    }
    return count
}

let outcome = await loading.result
if let line = await summaryLine.value { printError(line) }
switch outcome {
case .success:
    exit(0)
case .failure(let error as ScreensPipeError) where error.isCancellation:
    printError("stopped after \(error.summary?.selected ?? 0) rows")
    exit(130)
case .failure(let error as ScreensPipeError):
    // One line naming the page and the request (secrets redacted): "page 0: HTTP 401: ...".
    printError("error: \(error)")
    exit(error.code == .configuration ? 2 : 1)
case .failure(let error):
    printError("error: \(error)")
    exit(1)
}
