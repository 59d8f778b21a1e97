import ArgumentParser
import Dispatch
import Foundation
import Logging
import Prometheus
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
              screens-pipe run pipelines/bookmarks.yaml --events | jq -c 'select(.page)'
              screens-pipe run pipelines/bookmarks.yaml --set filter.limit=10
              screens-pipe run pipelines/bookmarks.yaml --output out.jsonl
              screens-pipe run pipelines/bookmarks.yaml -o out.jsonl --resume  # if failed
              screens-pipe run pipelines/bookmarks.yaml --policy cache-only
            """
    )

    @OptionGroup var pipelineFile: PipelineFileOptions

    @Flag(help: "Write every event (response, selected, error...) instead of only the rows.")
    var events = false

    @Option(help: "Output format: items, events, table, csv or tsv.")
    var format: SinkFormat?

    @Option(help: ArgumentHelp("Keep only these fields of each row, in this order (comma-separated paths).", valueName: "a,b.c"))
    var fields: String?

    @Option(name: [.short, .long], help: "Write to this file (atomically: renamed into place when complete; '-' is stdout).")
    var output: String?

    @Option(help: "Cache policy: remote-only, cache-only, remote-first, cache-first, cache-and-remote.")
    var policy: CachePolicy?

    @Flag(help: "Fetch every page again (pull to refresh) and update the cache.")
    var refresh = false

    @Flag(name: .customLong("full-refresh"), help: "An incremental pipeline: ignore and reset the stored cursor, deliver every row.")
    var fullRefresh = false

    @OptionGroup var resumeOptions: ResumeOptions

    @Option(help: "Stop after this many selected rows.")
    var limit: Int?

    @Option(
        name: .customLong("follow"),
        help: ArgumentHelp(
            "After the first load, poll every INTERVAL (default 30s) and write one line per change (added, updated, deleted) until a signal.",
            valueName: "INTERVAL"))
    var follow: String?

    @Option(name: .customLong("key"), help: ArgumentHelp("With --follow: the fields that identify a row (default: entryId, resourcePrimKey, recordId or id).", valueName: "a,b"))
    var key: String?

    @Option(help: "Progress line on stderr: auto (when stderr is a terminal), always or never.")
    var progress: ProgressMode = .auto

    @Option(
        name: .customLong("metrics-file"),
        help: ArgumentHelp("At the end, write the run's metrics here in the Prometheus text format (node_exporter textfile).", valueName: "path"))
    var metricsFile: String?

    @Option(help: ArgumentHelp("At the end, write the run's spans here as a Chrome trace (open it in Perfetto).", valueName: "path"))
    var trace: String?

    @Option(help: "Colours in table output: auto (when stdout is a terminal and NO_COLOR is unset), always or never.")
    var color: ColorMode = .auto

    @Option(name: .customLong("log-format"), help: "Log lines on stderr as text (with a timestamp) or json (one object per line).")
    var logFormat: LogFormat = .text

    @Flag(name: [.short, .long], help: "Print nothing on stderr but errors.")
    var quiet = false

    @Flag(name: [.short, .long], help: "Log every page request on stderr (secrets redacted).")
    var verbose = false

    mutating func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if quiet, verbose { throw ValidationError("--quiet and --verbose disagree: choose one") }
        if let fields {
            do throws(ScreensPipeError) {
                _ = try FieldPath.list(fields)
            } catch {
                throw ValidationError("--fields: \(error.message)")
            }
        }
        if events, let format, format != .events { throw ValidationError("--events and --format \(format.rawValue) disagree") }
        try validateFollow()
    }

    func run() async throws {
        // First, so that a signal sent while the pipeline loads is not lost (a shell's
        // background job starts with SIGINT ignored); it is acted on once the run exists.
        let interrupts = InterruptWatcher()
        signal(SIGPIPE, SIG_IGN)
        // Past a file size limit (ulimit -f), a write fails with EFBIG and the run keeps its
        // complete lines as .partial, instead of being killed with a half-written file.
        signal(SIGXFSZ, SIG_IGN)
        var spec = try pipelineFile.loadSpec()
        if spec.sink.liferay != nil {
            Terminal.error("\(pipelineFile.file) writes to a portal (sink type liferay): run it with 'screens-pipe write'")
            throw ExitCode(2)
        }
        apply(to: &spec)
        try refuseUnknownFields(of: spec)
        try fileRoles(of: spec).refuseCollisions()
        let variables = ProcessInfo.processInfo.environment
        let showProgress = !quiet && progress.isEnabled(stderrIsTerminal: Terminal.isTerminal(2))
        let progressLine = showProgress ? ProgressLine() : nil
        // -v and -q win over SCREENS_PIPE_LOG_LEVEL, which wins over the default.
        let configuredLevel = try TerminalLogHandler.level(from: variables)
        let logLevel: Logger.Level = quiet ? .warning : verbose ? .debug : configuredLevel ?? .warning
        var onRetry: (@Sendable (RetryNotice) -> Void)?
        if let progressLine { onRetry = { notice in progressLine.retry(notice) } }
        let logFormat = self.logFormat
        let logger = Logger(label: "screens-pipe") { _ in TerminalLogHandler(level: logLevel, progress: progressLine, format: logFormat) }
        let metricsRegistry = metricsFile.map { _ in PrometheusCollectorRegistry() }
        let traceRecorder = trace.map { _ in TraceRecorder() }
        let environment = PipelineEnvironment(
            variables: variables,
            sandbox: BundledSandbox(),
            refresh: refresh,
            colorOutput: color.isEnabled(auto: Terminal.colorsAllowed(on: 1, variables: variables)),
            onRetry: onRetry,
            logger: logger,
            metricsFactory: metricsRegistry.map { PrometheusMetricsFactory(registry: $0) },
            trace: traceRecorder,
            tableWidth: spec.sink.destination == .stdout ? Terminal.columns(of: 1, variables: variables) : nil,
            cacheDirectory: .userCache)
        if let followed = try followOptions() {
            // A follow has no end to write its reports at: the metrics file is rewritten after
            // every poll (what node_exporter's textfile collector reads), the trace at the end.
            let metricsFile = self.metricsFile, trace = self.trace
            var runner = FollowRunner(spec: spec, environment: environment, options: followed, quiet: quiet)
            runner.writeReports = { final in
                if let metricsFile, let metricsRegistry {
                    _ = RunReports.write(metricsRegistry.emitToBuffer(), to: metricsFile, what: "metrics")
                }
                if final, let trace, let traceRecorder { _ = RunReports.write(traceRecorder.chromeTraceJSON(), to: trace, what: "trace") }
            }
            try await runner.run(interrupts: interrupts)
            return
        }
        var runEnvironment = environment
        runEnvironment.fullRefresh = fullRefresh
        runEnvironment.resume = resumeOptions.resume
        let pipeline = Pipeline(spec: spec, environment: runEnvironment)
        let reporter = DiagnosticsReporter(verbose: verbose && !quiet, progress: progressLine)
        let reporting = pipeline.attach(reporter)

        // First signal: stop fetching, write what was published, keep the file as .partial.
        // A second one cancels the run outright; a third exits at once. The handlers are in
        // place before the run starts, so no signal falls between two owners.
        let cancelRun = RunCanceller()
        interrupts.handle { signal, count in
            switch count {
            case 1: pipeline.interrupt(signal: signal.name)
            case 2: cancelRun.cancel()
            default: _exit(signal.exitCode)
            }
        }
        let runTask = Task { () -> Result<RunSummary, ScreensPipeError> in
            do throws(ScreensPipeError) {
                return .success(try await pipeline.runReturningFailures())
            } catch {
                return .failure(error)
            }
        }
        cancelRun.set { runTask.cancel() }
        let result = await runTask.value
        await reporting.value
        reporter.finish()
        interrupts.stop()
        var reportsWritten = true
        if let metricsFile, let metricsRegistry {
            reportsWritten = RunReports.write(metricsRegistry.emitToBuffer(), to: metricsFile, what: "metrics") && reportsWritten
        }
        if let trace, let traceRecorder {
            reportsWritten = RunReports.write(traceRecorder.chromeTraceJSON(), to: trace, what: "trace") && reportsWritten
        }

        switch result {
        case .failure(let error):
            if let signal = interrupts.received { throw ExitCode(signal.exitCode) }
            throw ExitCode(error.exitCode)
        case .success(let summary):
            // Output failures happen in the sink, off the bus: say what and where here.
            for failure in summary.failures where failure.code == .sink || failure.code == .state { Terminal.error(failure.description) }
            if let warning = summary.ending.endWarning, !quiet { Terminal.warning(warning) }
            if let signal = interrupts.received {
                var note = "screens-pipe: interrupted by \(signal.name) after \(summary.selected) rows"
                if let path = summary.outputPath { note += "; kept what was written as \(path)" }
                Terminal.note(note)
                throw ExitCode(signal.exitCode)
            }
            if let path = summary.outputPath, !quiet {
                let verb = summary.succeeded ? "wrote" : "kept what was written as"
                Terminal.note("screens-pipe: \(verb) \(path) (\(summary.selected) rows)")
            }
            if let delivery = summary.tableDelivery, !quiet { Terminal.note(Self.summaryLine(delivery)) }
            if summary.exitCode != 0 { throw ExitCode(summary.exitCode) }
            if !reportsWritten { throw ExitCode(1) }
        }
    }

    /// `screens-pipe: wrote 73 rows to table bookmarks in postgres://...`, as a file sink
    /// names its file, with the deletes when there were any.
    static func summaryLine(_ delivery: TableDelivery) -> String {
        var line = "screens-pipe: wrote \(delivery.upserted) row\(delivery.upserted == 1 ? "" : "s") to table \(delivery.table) in \(delivery.database)"
        var deletes: [String] = []
        if delivery.deleted > 0 { deletes.append("deleted \(delivery.deleted) marked deleted") }
        if delivery.mirrored { deletes.append("deleted the rows the list no longer has (mirror)") }
        if !deletes.isEmpty { line += "; " + deletes.joined(separator: ", ") }
        return line
    }

    /// `--fields` naming a field the rows never have (a typo) is a usage error, as in
    /// `sink.fields`, instead of a column of nulls; rows whose fields are not known (no
    /// model, DDL records) may have any.
    private func refuseUnknownFields(of spec: PipelineSpec) throws {
        guard let fields, let paths = try? FieldPath.list(fields) else { return }
        let problems = PipelineValidation.unknownFieldErrors(in: paths, of: spec, naming: "--fields")
        guard !problems.isEmpty else { return }
        for problem in problems { Terminal.error(problem.message) }
        throw ExitCode(2)
    }

    /// The files this run reads and writes, none of which may be another.
    private func fileRoles(of spec: PipelineSpec) -> FileRoles {
        var roles = FileRoles()
        roles.add("the pipeline file", pipelineFile.file)
        roles.add("the source file", spec.source.type.settings(as: FileSourceSpec.self)?.path)
        roles.add("cache.path", spec.cache?.path)
        if case .file(let path) = spec.sink.destination { roles.add(output == nil ? "sink.path" : "-o", path) }
        roles.add("--metrics-file", metricsFile)
        roles.add("--trace", trace)
        return roles
    }

    private func apply(to spec: inout PipelineSpec) {
        if events { spec.sink.format = .events }
        if let format { spec.sink.format = format }
        // Checked by validate(): the list parses.
        if let fields, let paths = try? FieldPath.list(fields) { spec.sink.fields = paths }
        if let output { spec.sink.destination = output == "-" ? .stdout : .file(path: output) }
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

/// `--color`: whether table output is coloured.
enum ColorMode: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never

    func isEnabled(auto automatic: Bool) -> Bool {
        switch self {
        case .auto: automatic
        case .always: true
        case .never: false
        }
    }
}

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

/// The files `--metrics-file` and `--trace` write after a run.
enum RunReports {
    /// Writes `bytes` to a temporary file beside `path` and renames it into place, so a
    /// reader (node_exporter's textfile collector) never sees half a file. False, with a
    /// message on stderr, when that fails.
    static func write(_ bytes: [UInt8], to path: String, what: String) -> Bool {
        do throws(WholeFile.Failure) {
            try WholeFile.write(bytes, to: path)
            return true
        } catch {
            Terminal.error("cannot write the \(what) to \(path): \(error.reason)")
            return false
        }
    }
}
