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

            An unset ${VAR} is a warning, not an error: the value that names it is not
            checked, and everything else is, so CI can validate without the secrets.
            run refuses the file until it is set, and so does validate --require-env.

            With --format json, each file is one JSON object on stdout (CI annotations):
              {"file":"p.yaml","ok":false,"errors":[{"file","line","column","message"}]}

            Examples:
              screens-pipe validate pipelines/*.yaml
              screens-pipe validate --format json pipelines/*.yaml | jq -c '.errors[]'
              screens-pipe validate --require-env pipelines/bookmarks.yaml
            """
    )

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(help: "How problems are reported: text (file:line:column: message on stderr) or json (one object per file on stdout).")
    var format: OutputFormat = .text

    @Flag(help: "An unset ${VAR} is an error, as it is for run (by default a warning).")
    var requireEnv = false

    @Argument(help: "Pipeline files.", completion: .file(extensions: ["yaml", "yml"]))
    var files: [String]

    @Option(name: .customLong("set"), help: ArgumentHelp("Override a scalar, as with run.", valueName: "key.path=value"))
    var overrides: [String] = []

    func run() async throws {
        var failed = false
        let loader = PipelineLoader(environment: ProcessInfo.processInfo.environment)
        for file in files {
            let check = loader.check(file: file, overrides: overrides)
            let errors = requireEnv ? check.allErrors : check.errors
            var warnings = requireEnv ? [] : Self.unsetWarning(check.unsetVariables).map { [$0] } ?? []
            if check.unsetVariables.isEmpty, let spec = check.spec { warnings += Self.warnings(spec) }
            failed = failed || !errors.isEmpty
            switch format {
            case .text:
                for error in errors { Terminal.problem(error) }
                for warning in warnings { Terminal.warning("\(file): \(warning)") }
                if errors.isEmpty { Terminal.note("\(file): ok") }
            case .json:
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

    /// One warning for every variable the file names and the environment lacks, each with
    /// the line of its first use: `run` needs them, `validate` checked everything else.
    static func unsetWarning(_ unset: [UnsetVariable]) -> String? {
        var seen = Set<String>()
        let names = unset.filter { seen.insert($0.name).inserted }.map { variable in
            variable.error.location.map { "\(variable.name) (line \($0.line))" } ?? variable.name
        }
        guard !names.isEmpty else { return nil }
        let list = names.count == 1 ? "environment variable \(names[0]) is" : "environment variables \(names.joined(separator: ", ")) are"
        return "\(list) not set: checked the rest without \(names.count == 1 ? "its value" : "their values"); run needs \(names.count == 1 ? "it" : "them") (--require-env makes this an error)"
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
