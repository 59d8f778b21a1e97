// Usage: embed-sample [--stop-after N] [--service] [PIPELINE_FILE] [key.path=value ...]
//        (default file: pipelines/bookmarks.yaml, from the repository root)
//
// A program that embeds screens-pipe as the Embedding guide shows:
// - prints one line per selected row, "entryId<TAB>name<TAB>url", each row decoded into the
//   program's own Decodable type, then "NAME: N rows" on stderr;
// - a run that fails (a 401, a 500, a row that does not decode) is a thrown ScreensPipeError
//   naming the page and the redacted request: printed on stderr, exit 1; a mistake in the
//   pipeline file: every mistake located, exit 2;
// - --stop-after N cancels the task reading the rows after N of them: the run stops and the
//   loop ends with a `cancelled` error counting what was delivered, exit 3;
// - --service runs the pipeline once as a PipelineService in a swift-service-lifecycle
//   ServiceGroup (SIGTERM shuts it down gracefully), its rows through a delegate.
import Foundation
import Logging
import Sandbox
import ScreensBus
import ScreensPipe
import ScreensPipeService
import ServiceLifecycle

/// A bookmark as this program reads it: 64-bit ids exactly, a missing URL as nil.
struct Bookmark: Decodable, Sendable {
    let entryId: Int64
    let name: String
    let url: String?

    var line: String { "\(entryId)\t\(name)\t\(url ?? "")" }
}

/// Diagnostics go to stderr; stdout carries only the rows.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Exits with the status this program gives `error`: 2 for the file, 3 for a cancelled run, else 1.
func fail(_ error: ScreensPipeError) -> Never {
    printError("\(error)")
    exit(error.code == .configuration ? 2 : error.isCancellation ? 3 : 1)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var stopAfter: Int?
var asService = false
if let flag = arguments.firstIndex(of: "--stop-after"), flag + 1 < arguments.count, let count = Int(arguments[flag + 1]) {
    stopAfter = count
    arguments.removeSubrange(flag...(flag + 1))
}
if let flag = arguments.firstIndex(of: "--service") {
    asService = true
    arguments.remove(at: flag)
}
let file = arguments.first ?? "pipelines/bookmarks.yaml"
let overrides = Array(arguments.dropFirst())

// As the command line does, this program caches in ~/.cache/screens-pipe (unless
// SCREENS_PIPE_CACHE_DIR names another directory); a library asks for it explicitly.
let environment = PipelineEnvironment.current(sandbox: BundledSandbox(), cacheDirectory: .userCache)

if asService {
    /// Prints each selected row of the service's run, decoded as a `Bookmark`.
    struct RowPrinter: ListDelegate {
        func onSelected(_ row: SelectedRow) async {
            if let bookmark = try? JSONValueDecoder.rows().decode(Bookmark.self, from: row.item) { print(bookmark.line) }
        }
    }
    let logger = Logger(label: "embed-sample")
    let service: PipelineService
    do throws(ScreensPipeError) {
        service = try PipelineService(
            file: file, overrides: overrides, environment: environment, schedule: .once, delegate: RowPrinter(), logger: logger)
    } catch {
        fail(error)
    }
    // A `.once` service returns when its run is done: that ends the group gracefully (the
    // default, `.cancelGroup`, would call the return unexpected and throw).
    let group = ServiceGroup(
        configuration: ServiceGroupConfiguration(
            services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm], logger: logger))
    do {
        try await group.run()
    } catch let error as ScreensPipeError {
        fail(error)
    } catch {
        // PipelineRunFailed: the run ended without every row (its summary says why).
        printError("\(error)")
        exit(1)
    }
    exit(0)
}

// The file's own sink would print JSON lines on stdout too: this program prints its own.
let pipeline: Pipeline
do throws(ScreensPipeError) {
    pipeline = try Pipeline(file: file, overrides: overrides, sink: .discard, environment: environment)
} catch {
    fail(error)
}

// The rows are read in a task of their own, so that --stop-after can cancel it.
let reader = Task { () async -> (printed: Int, failure: ScreensPipeError?) in
    var printed = 0
    do throws(ScreensPipeError) {
        for try await bookmark in pipeline.rows(as: Bookmark.self) {
            print(bookmark.line)
            printed += 1
            if printed == stopAfter { withUnsafeCurrentTask { $0?.cancel() } }
        }
        return (printed, nil)
    } catch {
        return (printed, error)
    }
}
let (printed, failure) = await reader.value
if let failure {
    if failure.isCancellation { printError("\(pipeline.spec.name): stopped after \(printed) rows") }
    fail(failure)
}
printError("\(pipeline.spec.name): \(printed) rows")
