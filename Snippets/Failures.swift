// When a run fails: one error type, thrown, with the run's summary.

// snippet.hide
import Sandbox
import ScreensPipe

let bookmarks = try Pipeline(
    file: "pipelines/bookmarks.yaml", sink: .discard,
    environment: .current(sandbox: BundledSandbox(), cacheDirectory: .userCache))
// snippet.show
// snippet.failures
do throws(ScreensPipeError) {
    let summary = try await bookmarks.run()
    print("\(summary.selected) rows")
} catch let error where error.isCancellation {
    print("stopped after \(error.summary?.selected ?? 0) rows")
} catch {
    // "page 0: HTTP 401: Authenticated access required (POST http://127.0.0.1:.../api/jsonws/invoke)"
    print("failed: \(error)", error.code, error.page ?? -1, error.summary?.failureCount ?? 0)
}
// snippet.end

// snippet.interrupt
let pipeline = try Pipeline(
    file: "pipelines/bookmarks.yaml", sink: .discard,
    environment: .current(sandbox: BundledSandbox(), cacheDirectory: .userCache))
async let summary = pipeline.run()
pipeline.interrupt(signal: "SIGTERM")       // from a signal handler, a UI button, a deadline...
do {
    _ = try await summary
} catch let error as ScreensPipeError where error.isCancellation {
    print(error.summary?.ending.signal ?? "")  // SIGTERM
}
// snippet.end
