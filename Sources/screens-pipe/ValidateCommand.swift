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
                    let spec = try SpecLoading.load(file: file, overrides: overrides)
                    for warning in Self.warnings(spec) { Terminal.warning("\(file): \(warning)") }
                    Terminal.note("\(file): ok")
                } catch {
                    failed = true
                }
            case .json:
                let errors: [ScreensPipeError]
                var warnings: [String] = []
                do throws(ConfigurationErrors) {
                    let spec = try PipelineLoader(environment: ProcessInfo.processInfo.environment).loadChecked(file: file, overrides: overrides)
                    warnings = Self.warnings(spec)
                    errors = []
                } catch {
                    errors = error.errors
                }
                failed = failed || !errors.isEmpty
                var report = Self.report(file: file, errors: errors)
                if !warnings.isEmpty, case .object(var object) = report {
                    object["warnings"] = .array(warnings.map { .string($0) })
                    report = .object(object)
                }
                print(report.jsonString)
            }
        }
        if failed { throw ExitCode(2) }
    }

    /// What may be fine when the pipeline runs but is not now: a file source whose file is
    /// not there (yet). Warnings, not errors: a pipeline can be validated before an earlier
    /// step writes its input.
    static func warnings(_ spec: PipelineSpec) -> [String] {
        guard !spec.source.isWriteInput, let source = spec.source.type.settings(as: FileSourceSpec.self), !FileManager.default.fileExists(atPath: source.path) else { return [] }
        return ["source.path: no file at \(source.path) (a relative path is relative to the pipeline file)"]
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
