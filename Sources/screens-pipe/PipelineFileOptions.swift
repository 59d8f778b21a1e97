import ArgumentParser
import Foundation
import ScreensPipe

/// The pipeline file and `--set` overrides, shared by `run` and `plan`.
struct PipelineFileOptions: ParsableArguments {
    @Argument(help: "The pipeline file (YAML).", completion: .file(extensions: ["yaml", "yml"]))
    var file: String

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp("Override a scalar of the pipeline file.", valueName: "key.path=value"))
    var overrides: [String] = []

    /// Loads and validates the file; prints every problem as `file:line:column: message`
    /// and exits 2 when there is one.
    func loadSpec() throws -> PipelineSpec {
        try SpecLoading.load(file: file, overrides: overrides)
    }
}

enum SpecLoading {
    static func load(file: String, overrides: [String]) throws -> PipelineSpec {
        do throws(ScreensPipeError) {
            return try PipelineLoader(environment: ProcessInfo.processInfo.environment).loadChecked(file: file, overrides: overrides)
        } catch {
            for problem in error.errors { Terminal.problem(problem) }
            throw ExitCode(2)
        }
    }
}
