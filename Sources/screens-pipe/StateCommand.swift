import ArgumentParser
import Foundation
import ScreensBus
import ScreensPipe

/// `screens-pipe state show|reset FILE`: the incremental cursor a pipeline keeps between runs.
struct StateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Show or reset the stored state (incremental cursor) of a pipeline.",
        discussion: """
            The state lives in the pipeline's cache database (cache.path, else the default
            cache location), keyed by the pipeline's name and its list's cache key.

            Examples:
              screens-pipe state show pipelines/incremental-structured-contents.yaml
              screens-pipe state reset pipelines/incremental-structured-contents.yaml
            """,
        subcommands: [Show.self, Reset.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the pipeline's state as one JSON object (state is null when none is stored).")

        @OptionGroup var pipelineFile: PipelineFileOptions

        func run() async throws {
            let spec = try pipelineFile.loadSpec()
            try await reportingStateErrors { () async throws(ScreensPipeError) in
                let key = try spec.stateKey()
                var object: JSONObject = ["pipeline": .string(key.pipeline), "list": .string(key.list)]
                object["state"] = .null
                if let store = try await existingStore(for: spec), let record = try await store.record(for: key) {
                    object["committedAt"] = .string(EventTime.text(record.committedAt))
                    // A corrupt document is shown as text, so that it can be looked at.
                    object["state"] = (try? JSONValue(parsing: record.document)) ?? .string(record.document)
                }
                print(JSONValue.object(object).jsonString)
            }
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget the pipeline's state (cursor and follow snapshot): its next run delivers every row (from incremental.initial).")

        @OptionGroup var pipelineFile: PipelineFileOptions

        func run() async throws {
            let spec = try pipelineFile.loadSpec()
            try await reportingStateErrors { () async throws(ScreensPipeError) in
                let key = try spec.stateKey()
                let store = try await existingStore(for: spec)
                var removed = try await store?.reset(key) ?? false
                // A `run --follow` of the pipeline keeps its snapshot beside the cursor.
                if try await store?.reset(ListFollower.stateKey(of: spec)) == true { removed = true }
                Terminal.note(removed ? "screens-pipe: reset the state of \(key.pipeline)" : "screens-pipe: \(key.pipeline) has no stored state")
            }
        }
    }
}

/// The pipeline's state store, or nil when its database does not exist: looking must not create one.
private func existingStore(for spec: PipelineSpec) async throws(ScreensPipeError) -> SQLiteListStateStore? {
    let environment = ProcessInfo.processInfo.environment
    let path = spec.cache?.path ?? CacheStore.defaultPath(environment: environment)
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    return try await SQLiteListStateStore.open(spec: spec.cache, environment: environment)
}

/// Runs `body`, turning a ScreensPipeError into its one-line message on stderr and its exit code.
private func reportingStateErrors(_ body: () async throws(ScreensPipeError) -> Void) async throws(ExitCode) {
    do {
        try await body()
    } catch {
        Terminal.error("\(error)")
        throw ExitCode(error.exitCode)
    }
}
