import ArgumentParser
import Foundation
import ScreensBus
import ScreensPipe

struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check pipeline files without running them.",
        discussion: """
            Checks the YAML, every key and type, interpolation, the model and field
            mapping, and the filter expression. Problems print as file:line:column:
            message. Exit status 2 when any file has a problem.

            With --format json, each file is one JSON object on stdout (CI annotations):
              {"file":"p.yaml","ok":false,"errors":[{"file","line","column","message"}]}

            Example:
              screens-pipe validate pipelines/*.yaml
              screens-pipe validate --format json pipelines/*.yaml | jq -c '.errors[]'
            """
    )

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(help: "How problems are reported: text (file:line:column: message on stderr) or json (one object per file on stdout).")
    var format: OutputFormat = .text

    @Argument(help: "Pipeline files.", completion: .file(extensions: ["yaml", "yml"]))
    var files: [String]

    @Option(name: .customLong("set"), help: ArgumentHelp("Override a scalar, as with run.", valueName: "key.path=value"))
    var overrides: [String] = []

    func run() async throws {
        var failed = false
        for file in files {
            switch format {
            case .text:
                do {
                    _ = try SpecLoading.load(file: file, overrides: overrides)
                    Terminal.note("\(file): ok")
                } catch {
                    failed = true
                }
            case .json:
                let errors: [ScreensPipeError]
                do throws(ConfigurationErrors) {
                    _ = try PipelineLoader(environment: ProcessInfo.processInfo.environment).loadChecked(file: file, overrides: overrides)
                    errors = []
                } catch {
                    errors = error.errors
                }
                failed = failed || !errors.isEmpty
                FileHandle.standardOutput.write(Data((Self.report(file: file, errors: errors).jsonString + "\n").utf8))
            }
        }
        if failed { throw ExitCode(2) }
    }

    /// One file's result as a JSON object; each error with its position when it has one.
    static func report(file: String, errors: [ScreensPipeError]) -> JSONValue {
        let items: [JSONValue] = errors.map { error in
            var object: JSONObject = ["message": .string(error.message)]
            if let location = error.location {
                object["file"] = .string(location.file)
                object["line"] = .int(Int64(location.line))
                object["column"] = .int(Int64(location.column))
            }
            return .object(object)
        }
        return ["file": .string(file), "ok": .bool(errors.isEmpty), "errors": .array(items)]
    }
}
