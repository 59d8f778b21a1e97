import ArgumentParser
import Foundation
import Logging
import Sandbox
import ScreensBus
import ScreensPipe

/// `screens-pipe outbox list|sync|discard|clear FILE`: the writes a `liferay` sink with a
/// `write-policy` keeps pending, as Liferay Screens' `SyncManager` replays them.
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "List, send, or forget the pending writes of a pipeline whose liferay sink keeps them.",
        discussion: """
            A liferay sink with 'write-policy: remote-first', 'cache-first' or 'cache-only'
            keeps the writes it could not (or was told not to) send in the outbox, in the
            pipeline's cache database, one per entry key. See "Offline writes" in the
            guides. The sample keeps the sample bookmarks pending (cache-only) for a
            sandbox on port 8080 (screens-pipe sandbox --port 8080 &):

            Examples:
              screens-pipe write pipelines/offline-import.yaml
              screens-pipe outbox list pipelines/offline-import.yaml
              screens-pipe outbox sync pipelines/offline-import.yaml  # if a portal is up
              screens-pipe outbox discard pipelines/offline-import.yaml KEY  # if pending
              screens-pipe outbox clear pipelines/offline-import.yaml
            """,
        subcommands: [List.self, Sync.self, Discard.self, Clear.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each pending write as a JSON line: key, operation, age, attempts, last error.")

        @OptionGroup var pipelineFile: PipelineFileOptions

        func run() async throws {
            let spec = try pipelineFile.loadSpec()
            try await reporting { () async throws(ScreensPipeError) in
                let entries = try await PipelineOutbox.list(spec: spec, environment: outboxEnvironment(quiet: false))
                let now = Date().timeIntervalSince1970
                for entry in entries {
                    var object: JSONObject = [
                        "sequence": .int(entry.sequence),
                        "key": (try? JSONValue(parsing: Array(entry.key.utf8))) ?? .string(entry.key),
                        "operation": .string(entry.operation.rawValue),
                        "age": .int(Int64(max(0, now - entry.createdAt).rounded(.down))),
                        "attempts": .int(Int64(entry.attempts)),
                    ]
                    object["lastError"] = entry.lastError.map(JSONValue.string) ?? .null
                    object["row"] = (try? JSONValue(parsing: Array(entry.row.utf8))) ?? .string(entry.row)
                    print(JSONValue.object(object).jsonString)
                }
            }
        }
    }

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send the pending writes in order, each exactly once; print a sync event per write.")

        @OptionGroup var pipelineFile: PipelineFileOptions

        @Option(help: ArgumentHelp("Where conflicts reported by 'conflict-policy: report' go, one JSON line each (default NAME.conflicts.jsonl).", valueName: "path"))
        var conflicts: String?

        @Flag(help: "Write every event (started, sync, response, error, finished) instead of only the sync events.")
        var events = false

        @Flag(name: [.short, .long], help: "Only errors on stderr.")
        var quiet = false

        func run() async throws {
            signal(SIGPIPE, SIG_IGN)
            let spec = try pipelineFile.loadSpec()
            let bus = EventBus()
            let subscription = bus.subscribe()
            let showEvents = events
            let printing = Task {
                var stdoutOpen = true
                for await event in subscription {
                    let line: JSONValue?
                    switch event {
                    case .custom(let custom) where custom.name == "sync" && !showEvents: line = custom.payload
                    case _ where showEvents: line = event.envelope
                    default: line = nil
                    }
                    guard stdoutOpen, let line else { continue }
                    do {
                        try FileHandle.standardOutput.write(contentsOf: Data(line.jsonBytes + [UInt8(ascii: "\n")]))
                    } catch {
                        stdoutOpen = false
                    }
                }
            }
            let environment = outboxEnvironment(quiet: quiet)
            let conflictsPath = conflicts ?? "\(spec.name).conflicts.jsonl"
            let interrupts = InterruptWatcher()
            let result = await interrupts.runCancellable(draining: printing) { () async throws(ScreensPipeError) in
                try await PipelineOutbox.sync(
                    spec: spec, environment: environment, bus: bus, rejectsPath: "\(spec.name).outbox-rejects.jsonl",
                    conflictsPath: conflictsPath)
            }
            switch result {
            case .failure(let error):
                throw interrupts.exitCode(reporting: error)
            case .success(let summary):
                if !quiet {
                    let deleted = summary.deleted > 0 ? "\(summary.deleted) deleted, " : ""
                    Terminal.note(
                        "screens-pipe: \(summary.completed) synced (\(summary.created) created, \(summary.updated) updated, \(deleted)\(summary.unchanged) already there), \(summary.conflicts) conflicts, \(summary.failed) refused, \(summary.remaining) pending")
                }
                if summary.reported > 0 {
                    Terminal.error("\(summary.reported) pending \(summary.reported == 1 ? "update conflicts" : "updates conflict") with the portal's changes and \(summary.reported == 1 ? "stays" : "stay") pending; see \(conflictsPath)")
                }
                if summary.failed > 0 || summary.reported > 0 {
                    if summary.failed > 0 { Terminal.error("the portal refused \(summary.failed) pending \(summary.failed == 1 ? "write" : "writes"); 'screens-pipe outbox list' shows why") }
                    throw ExitCode(1)
                }
            }
        }
    }

    struct Discard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget the pending write of one key (as 'outbox list' prints it).")

        @OptionGroup var pipelineFile: PipelineFileOptions

        @Argument(help: ArgumentHelp("The entry's key: the JSON array 'outbox list' prints, e.g. '[\"https://example.com/1\",\"20201\"]'.", valueName: "key"))
        var key: String

        func run() async throws {
            let spec = try pipelineFile.loadSpec()
            // The key as stored: the compact JSON text of the array, whatever spacing was typed.
            guard let parsed = try? JSONValue(parsing: Array(key.utf8)), case .array = parsed else {
                Terminal.error("the key is the JSON array 'outbox list' prints, such as '[\"https://example.com/1\",\"20201\"]'; found \(key.prefix(200))")
                throw ExitCode(2)
            }
            try await reporting { () async throws(ScreensPipeError) in
                let removed = try await PipelineOutbox.discard(key: parsed.jsonString, spec: spec, environment: outboxEnvironment(quiet: false))
                guard removed else { throw ScreensPipeError.configuration("no pending write has the key \(parsed.jsonString)") }
                Terminal.note("screens-pipe: discarded the pending write of \(parsed.jsonString)")
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget every pending write of the pipeline.")

        @OptionGroup var pipelineFile: PipelineFileOptions

        func run() async throws {
            let spec = try pipelineFile.loadSpec()
            try await reporting { () async throws(ScreensPipeError) in
                let count = try await PipelineOutbox.clear(spec: spec, environment: outboxEnvironment(quiet: false))
                Terminal.note("screens-pipe: discarded \(count) pending \(count == 1 ? "write" : "writes")")
            }
        }
    }
}

private func outboxEnvironment(quiet: Bool) -> PipelineEnvironment {
    let level: Logger.Level = quiet ? .error : .warning
    let logger = Logger(label: "screens-pipe") { _ in TerminalLogHandler(level: level, progress: nil, format: .text) }
    return PipelineEnvironment(variables: ProcessInfo.processInfo.environment, sandbox: BundledSandbox(), logger: logger, cacheDirectory: .userCache)
}

/// Runs `body`, turning a ScreensPipeError into its one-line message on stderr and its exit code.
private func reporting(_ body: () async throws(ScreensPipeError) -> Void) async throws(ExitCode) {
    do {
        try await body()
    } catch {
        Terminal.error("\(error)")
        throw ExitCode(error.exitCode)
    }
}
