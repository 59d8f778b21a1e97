import ArgumentParser
import Foundation
import Logging
import Sandbox
import ScreensPipe

#if canImport(Glibc)
import Glibc
#endif

/// `screens-pipe session FILE`: the list driven by JSON-lines commands on stdin, answered
/// by JSON-lines events on stdout. A thin adapter: ``ListSession`` does the work.
struct SessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Drive a list page by page: JSON-lines commands on stdin, events on stdout.",
        discussion: """
            Commands, one JSON object per line (each may carry an "id", echoed on
            every event it causes):
              {"op":"load"}            the first page
              {"op":"next"}            the page after the last one asked for
              {"op":"page","page":3}   page 3
              {"op":"refresh"}         pull to refresh: page 0 again, cache updated
              {"op":"select","row":7}  the user selected row 7: a "selected" event
              {"op":"add","row":{...}}     with a liferay sink: write a new entry,
              {"op":"update","row":{...}}  change one, or delete one (key: the sink's
              {"op":"delete","key":{...}}  key fields); an "edited" event, list updated
              {"op":"follow","every":"30s"}  the list's changes as "changed" events,
              {"op":"unfollow"}              as run --follow finds them; stop them
              {"op":"close"}           a "finished" event, exit 0 (as at end of stdin)

            Events are the envelopes of 'run --events', plus "loading" (a page is on
            its way) and "row" (a row of a page asked for). A bad command is an
            "error" event and the session goes on.

            Example:
              echo '{"op":"load"}' | screens-pipe session pipelines/bookmarks.yaml
            """
    )

    @OptionGroup var pipelineFile: PipelineFileOptions

    @Option(help: "Pages to fetch ahead of each page asked for (0 to 16).")
    var prefetch = 0

    @Option(help: "Cache policy: remote-only, cache-only, remote-first, cache-first, cache-and-remote.")
    var policy: CachePolicy?

    @Flag(name: [.short, .long], help: "Log every page request on stderr (secrets redacted).")
    var verbose = false

    mutating func validate() throws {
        if !(0...16).contains(prefetch) { throw ValidationError("--prefetch must be from 0 to 16") }
        if pipelineFile.file == "-" {
            throw ValidationError("a session reads its commands from stdin, so its pipeline must come from a file, not '-'")
        }
    }

    func run() async throws {
        // First, so that no stop signal is lost while the session opens.
        let interrupts = InterruptWatcher()
        // A client that goes away is a closed pipe, not a signal that kills the process.
        signal(SIGPIPE, SIG_IGN)
        var spec = try pipelineFile.loadSpec()
        if let policy {
            var cache = spec.cache ?? CacheSpec()
            cache.policy = policy
            spec.cache = cache
        }
        let logLevel: Logger.Level = verbose ? .debug : .warning
        let environment = PipelineEnvironment(
            variables: ProcessInfo.processInfo.environment,
            sandbox: BundledSandbox(),
            logger: Logger(label: "screens-pipe") { _ in TerminalLogHandler(level: logLevel, progress: nil) },
            cacheDirectory: .userCache)
        let output = EventLines(descriptor: 1)
        let pipeline = Pipeline(spec: spec, environment: environment)
        // A stop signal ends the session as `close` does, with `"reason":"interrupted"`, and
        // the exit status of the signal (130, 143, 129); a second one exits at once.
        let cancelSession = RunCanceller()
        interrupts.handle { signal, count in
            if count == 1 { cancelSession.cancel() } else { _exit(signal.exitCode) }
        }
        let session = Task { () -> ScreensPipeError? in
            do throws(ScreensPipeError) {
                try await pipeline.session(prefetch: prefetch).run(CommandLines(descriptor: 0)) { event in
                    try await output.write(event)
                }
                return nil
            } catch {
                return error
            }
        }
        cancelSession.set { session.cancel() }
        let failure = await session.value
        interrupts.stop()
        if let signal = interrupts.received { throw ExitCode(signal.exitCode) }
        if let failure {
            Terminal.error(failure.description)
            throw ExitCode(failure.exitCode)
        }
    }
}
