import ArgumentParser
import Dispatch
import Foundation
import Logging
import Sandbox
import ScreensBus
import ScreensPipe
import Synchronization

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline: load the list and write JSON lines.",
        discussion: """
            Rows go to stdout (or the sink's file) as JSON lines; diagnostics go to stderr.

            Examples:
              screens-pipe run pipelines/bookmarks.yaml | jq -r .url
              screens-pipe run pipelines/bookmarks.yaml --events | jq -c 'select(.event=="response")'
              screens-pipe run pipelines/bookmarks.yaml --set source.pagination.page-size=100
              screens-pipe run pipelines/bookmarks.yaml --output bookmarks.jsonl
              screens-pipe run pipelines/bookmarks.yaml --policy cache-only
            """
    )

    @OptionGroup var pipelineFile: PipelineFileOptions

    @Flag(help: "Write every event (response, selected, error...) instead of only the rows.")
    var events = false

    @Option(help: "Output format: items, events or table.")
    var format: SinkFormat?

    @Option(name: [.short, .long], help: "Write to this file (atomically: renamed into place when complete).")
    var output: String?

    @Option(help: "Cache policy: remote-only, cache-only, remote-first, cache-first, cache-and-remote.")
    var policy: CachePolicy?

    @Flag(help: "Fetch every page again (pull to refresh) and update the cache.")
    var refresh = false

    @Option(help: "Stop after this many selected rows.")
    var limit: Int?

    @Option(help: "Progress line on stderr: auto (when stderr is a terminal), always or never.")
    var progress: ProgressMode = .auto

    @Flag(name: [.short, .long], help: "Print nothing on stderr but errors.")
    var quiet = false

    @Flag(name: [.short, .long], help: "Log every page request on stderr (secrets redacted).")
    var verbose = false

    mutating func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if events, let format, format != .events { throw ValidationError("--events and --format \(format.rawValue) disagree") }
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        var spec = try pipelineFile.loadSpec()
        apply(to: &spec)
        let variables = ProcessInfo.processInfo.environment
        let showProgress = !quiet && progress.isEnabled(stderrIsTerminal: Terminal.isTerminal(2))
        let progressLine = showProgress ? ProgressLine() : nil
        let logLevel: Logger.Level = verbose && !quiet ? .debug : .warning
        var onRetry: (@Sendable (RetryNotice) -> Void)?
        if let progressLine { onRetry = { notice in progressLine.retry(notice) } }
        let logger = Logger(label: "screens-pipe") { _ in TerminalLogHandler(level: logLevel, progress: progressLine) }
        let environment = PipelineEnvironment(
            variables: variables,
            sandbox: BundledSandbox(),
            refresh: refresh,
            colorOutput: Terminal.colorsAllowed(on: 1, variables: variables),
            onRetry: onRetry,
            logger: logger)
        let pipeline = Pipeline(spec: spec, environment: environment)
        let reporter = DiagnosticsReporter(verbose: verbose && !quiet, progress: progressLine)
        let reporting = pipeline.attach(reporter)

        let runTask = Task { () -> Result<RunSummary, ScreensPipeError> in
            do throws(ScreensPipeError) {
                return .success(try await pipeline.run())
            } catch {
                return .failure(error)
            }
        }
        let interrupts = InterruptWatcher { runTask.cancel() }
        let result = await runTask.value
        await reporting.value
        reporter.finish()
        interrupts.stop()

        switch result {
        case .failure(let error):
            throw ExitCode(error.exitCode)
        case .success(let summary):
            if interrupts.interrupted {
                Terminal.note("screens-pipe: interrupted after \(summary.selected) rows")
                throw ExitCode(130)
            }
            if let path = summary.outputPath, !quiet {
                let verb = summary.succeeded ? "wrote" : "kept what was written as"
                Terminal.note("screens-pipe: \(verb) \(path) (\(summary.selected) rows)")
            }
            if summary.exitCode != 0 { throw ExitCode(summary.exitCode) }
        }
    }

    private func apply(to spec: inout PipelineSpec) {
        if events { spec.sink.format = .events }
        if let format { spec.sink.format = format }
        if let output { spec.sink.destination = .file(path: output) }
        if let limit {
            var filter = spec.filter ?? FilterSpec()
            filter.limit = limit
            spec.filter = filter
        }
        if let policy {
            var cache = spec.cache ?? CacheSpec()
            cache.policy = policy
            spec.cache = cache
        }
    }
}

extension SinkFormat: ExpressibleByArgument {}
extension CachePolicy: ExpressibleByArgument {}

enum ProgressMode: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never

    func isEnabled(stderrIsTerminal: Bool) -> Bool {
        switch self {
        case .auto: stderrIsTerminal
        case .always: true
        case .never: false
        }
    }
}

/// Cancels the run on SIGINT or SIGTERM, so transfers stop and the output is closed cleanly.
final class InterruptWatcher {
    private let sources: [DispatchSourceSignal]
    private let flag = SendableFlag()

    init(onInterrupt: @escaping @Sendable () -> Void) {
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [flag] in
                flag.set()
                onInterrupt()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    var interrupted: Bool { flag.isSet }

    func stop() {
        for source in sources { source.cancel() }
    }
}

final class SendableFlag: Sendable {
    private let storage = Atomic<Bool>(false)
    func set() { storage.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { storage.load(ordering: .sequentiallyConsistent) }
}
