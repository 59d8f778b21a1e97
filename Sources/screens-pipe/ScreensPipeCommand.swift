import ArgumentParser
import Foundation
import Logging
import ScreensPipe
import ScreensPipeOTel

@main
struct ScreensPipeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screens-pipe",
        abstract: "Load a paged list from a Liferay portal (or any paged JSON API) as JSON lines.",
        discussion: """
            A pipeline file describes one list: where it comes from, how to cache it, how
            to convert and filter its rows, and where to write them.

            Examples:
              screens-pipe run pipelines/bookmarks.yaml | jq -r .url
              screens-pipe run pipelines/bookmarks.yaml --events --limit 5
              screens-pipe run pipelines/web-content.yaml --set convert.locale=en_US
              screens-pipe validate pipelines/*.yaml
              screens-pipe test pipelines/tests/*.yaml
              screens-pipe plan pipelines/bookmarks.yaml
              screens-pipe sandbox --port 8080

            Exit status: 0 every row delivered; 1 the run failed (some rows not
            delivered); 2 a usage or configuration error; 130, 143, 129 after SIGINT,
            SIGTERM, SIGHUP (what was written is kept as PATH.partial).
            """,
        version: ScreensPipeVersion.current,
        subcommands: [
            RunCommand.self, ValidateCommand.self, TestCommand.self, PlanCommand.self, InitCommand.self, SchemaCommand.self,
            SessionCommand.self, CacheCommand.self, SandboxCommand.self, WriteCommand.self, StateCommand.self,
            OutboxCommand.self,
        ]
    )

    static var subcommandNames: [String] {
        configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
    }

    /// The first argument when it names no subcommand (`runn`), or the subject of `help`
    /// when that names none (`help nosuch`); nil when the command line starts well.
    static func unknownSubcommand(in arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        if !subcommandNames.contains(first) { return first }
        if first == "help", let subject = arguments.dropFirst().first, !subject.hasPrefix("-"), !subcommandNames.contains(subject) {
            return subject
        }
        return nil
    }

    /// ArgumentParser's own entry point, except that a usage error exits 2 as documented
    /// (its default is 64, EX_USAGE), so scripts see one code for "you called it wrong".
    /// The allocator is tuned for streaming first (``AllocatorTuning``).
    static func main() async {
        AllocatorTuning.apply()
        if let unknown = unknownSubcommand(in: Array(CommandLine.arguments.dropFirst())) {
            var message = "screens-pipe: error: unknown subcommand '\(unknown)'"
            if let suggestion = KeySuggestion.closest(to: unknown, among: subcommandNames) {
                message += "; did you mean '\(suggestion)'?"
            }
            message += "\nsubcommands: \(subcommandNames.joined(separator: ", ")); see 'screens-pipe --help'"
            Terminal.note(message)
            Foundation.exit(2)
        }
        // Spans go out over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set (ScreensPipeOTel);
        // the export is flushed before the process exits, whatever the command's outcome.
        let otlp = OTLPExport.start(logger: Logger(label: "screens-pipe.otlp") { _ in TerminalLogHandler(level: .warning, progress: nil) })
        do {
            var command = try parseAsRoot(FollowRunner.normalized(Array(CommandLine.arguments.dropFirst())))
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            await otlp?.shutdown()
        } catch {
            await otlp?.shutdown()
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            Terminal.note(fullMessage(for: error))
            Foundation.exit(2)
        }
    }
}
