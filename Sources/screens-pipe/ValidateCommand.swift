import ArgumentParser
import Foundation
import ScreensPipe

struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check pipeline files without running them.",
        discussion: """
            Checks the YAML, every key and type, interpolation, the model and field mapping,
            and the filter expression. Problems print as file:line:column: message.
            Exit status 2 when any file has a problem.

            Example:
              screens-pipe validate pipelines/*.yaml
            """
    )

    @Argument(help: "Pipeline files.", completion: .file(extensions: ["yaml", "yml"]))
    var files: [String]

    @Option(name: .customLong("set"), help: ArgumentHelp("Override a scalar, as with run.", valueName: "key.path=value"))
    var overrides: [String] = []

    func run() async throws {
        var failed = false
        for file in files {
            do {
                _ = try SpecLoading.load(file: file, overrides: overrides)
                Terminal.note("\(file): ok")
            } catch {
                failed = true
            }
        }
        if failed { throw ExitCode(2) }
    }
}
