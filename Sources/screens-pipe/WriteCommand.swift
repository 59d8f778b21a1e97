import ArgumentParser
import Foundation
import Logging
import Sandbox
import ScreensBus
import ScreensPipe

/// `screens-pipe write FILE`: rows become portal entries, as the pipeline's `liferay` sink says.
struct WriteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Write rows to a portal: JSON lines (or the pipeline's source list) become entries.",
        discussion: """
            The pipeline's sink is `type: liferay`. Rows come from --input, from
            standard input, or, when the pipeline has a source and no input is given,
            from that list (a copy). Each row's outcome is one JSON line on stdout
            (created, updated, unchanged, rejected); rejected rows go to the rejects
            file and the exit status is 1. --dry-run prints the requests instead and
            sends nothing.

            Examples:
              screens-pipe write pipelines/import-bookmarks.yaml
              screens-pipe write pipelines/import-links.yaml
              screens-pipe write pipelines/import-bookmarks.yaml --dry-run
            """
    )

    @OptionGroup var pipelineFile: PipelineFileOptions

    @Option(help: ArgumentHelp("Read JSON lines from this file ('-' is standard input) instead of the pipeline's source.", valueName: "path"))
    var input: String?

    @Flag(help: "Show the requests (credentials redacted) and send nothing.")
    var dryRun = false

    @Option(help: ArgumentHelp("Where rejected rows go, one JSON line each (line, reason, input).", valueName: "path"))
    var rejects: String?

    @Flag(
        help: ArgumentHelp(
            "Forget the rows the journal keeps pending, so they are sent again: for a service with no lookup, after checking on the portal that they were not written."))
    var forgetPending = false

    @Flag(help: "Write every event (started, response, result, error, finished) instead of only the results.")
    var events = false

    @Flag(name: [.short, .long], help: "Only errors on stderr.")
    var quiet = false

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let spec = try pipelineFile.loadSpec()
        guard spec.sink.liferay != nil else {
            Terminal.error("\(pipelineFile.file) has no sink of type liferay; 'screens-pipe run' loads its list")
            throw ExitCode(2)
        }
        let source: WriteInput
        switch input {
        case "-"?: source = .standardInput
        case let path?: source = .file(path)
        case nil: source = spec.source.isWriteInput ? .standardInput : .pipelineSource
        }
        if source == .standardInput, pipelineFile.file == "-" {
            // The pipeline file used standard input up: the rows would be an empty input.
            Terminal.error("the pipeline file is read from standard input, so the rows cannot be: give them with --input FILE")
            throw ExitCode(2)
        }
        let variables = ProcessInfo.processInfo.environment
        let level: Logger.Level = quiet ? .error : .warning
        let logger = Logger(label: "screens-pipe") { _ in TerminalLogHandler(level: level, progress: nil, format: .text) }
        let environment = PipelineEnvironment(variables: variables, sandbox: BundledSandbox(), logger: logger, cacheDirectory: .userCache)
        if forgetPending, dryRun {
            Terminal.error("--forget-pending changes the journal, and --dry-run changes nothing: drop one")
            throw ExitCode(2)
        }
        let options = WriteOptions(
            input: source, dryRun: dryRun, rejectsPath: rejects ?? "\(spec.name).rejects.jsonl", forgetPending: forgetPending)
        var roles = FileRoles()
        roles.add("the pipeline file", pipelineFile.file)
        if case .file(let path) = source { roles.add("--input", path) }
        if case .pipelineSource = source { roles.add("the source file", spec.source.type.settings(as: FileSourceSpec.self)?.path) }
        roles.add(rejects == nil ? "the rejects file" : "--rejects", options.rejectsPath)
        try roles.refuseCollisions()
        let bus = EventBus()
        let subscription = bus.subscribe()
        let showEvents = events || dryRun
        let printing = Task {
            // A reader that goes away (`| head`) ends the output, not the write: the
            // journal and the rejects file still account for every row.
            var stdoutOpen = true
            for await event in subscription {
                let line: JSONValue?
                switch event {
                case .custom(let custom) where (custom.name == "result" || custom.name == "sync") && !showEvents: line = custom.payload
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
        let interrupts = InterruptWatcher()
        let result = await interrupts.runCancellable(draining: printing) { () async throws(ScreensPipeError) in
            try await PipelineWrite.run(spec: spec, environment: environment, bus: bus, options: options)
        }
        switch result {
        case .failure(let error):
            throw interrupts.exitCode(reporting: error)
        case .success(let summary):
            if !quiet { Terminal.note(Self.summaryLine(summary, dryRun: dryRun)) }
            if summary.rejected > 0 {
                Terminal.error("\(summary.rejected) row\(summary.rejected == 1 ? "" : "s") rejected; see \(summary.rejectsPath ?? options.rejectsPath)")
                throw ExitCode(1)
            }
        }
    }

    /// The last line on stderr: what was written, or with --dry-run what would be.
    static func summaryLine(_ summary: WriteSummary, dryRun: Bool) -> String {
        let unchanged = "\(summary.unchanged + summary.skipped) unchanged (\(summary.skipped) from the journal), \(summary.rejected) rejected"
        guard dryRun else {
            let pending = summary.pending > 0 ? ", \(summary.pending) pending in the outbox" : ""
            let deleted = summary.deleted > 0 ? "\(summary.deleted) deleted, " : ""
            return "screens-pipe: \(summary.created) created, \(summary.updated) updated, \(deleted)\(unchanged)\(pending) in \(summary.batches) requests"
        }
        let requests = summary.plannedRequests == 1 ? "1 request" : "\(summary.plannedRequests) requests"
        var planned = "\(summary.plannedCreates) to create, \(summary.plannedUpdates) to update"
        if summary.plannedUpserts > 0 { planned += ", \(summary.plannedUpserts) to create or update (PUT)" }
        if summary.plannedDeletes > 0 { planned += ", \(summary.plannedDeletes) to delete" }
        return "screens-pipe: dry run, nothing sent: \(planned), \(unchanged) in \(requests)"
    }
}
