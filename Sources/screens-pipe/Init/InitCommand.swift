import ArgumentParser
import Foundation
import ScreensPipe

/// `screens-pipe init`: writes a commented starter pipeline for one source type.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a commented starter pipeline file for a source type.",
        discussion: """
            The file validates as written; for liferay-jsonws, liferay-headless and rest
            it runs against the bundled sandbox portal until you set its server.

              screens-pipe init bookmarks.yaml
              screens-pipe init --type liferay-headless contents.yaml
              screens-pipe init --type rest -        # to standard output
            """)

    @Option(help: "The source type: \(StarterPipeline.allCases.map(\.rawValue).joined(separator: ", ")).")
    var type: StarterPipeline = .liferayJSONWS

    @Flag(help: "Replace the file if it exists.")
    var force = false

    @Argument(help: "The pipeline file to write ('-' writes to standard output).")
    var file: String = "pipeline.yaml"

    mutating func validate() throws {
        guard file == "-" || file.hasSuffix(".yaml") || file.hasSuffix(".yml") else {
            throw ValidationError("the pipeline file name ends with .yaml or .yml, found '\(file)'")
        }
    }

    func run() throws {
        let name = file == "-" ? "pipeline" : Self.pipelineName(for: file)
        let text = type.text(name: name)
        if file == "-" {
            print(text, terminator: "")
            return
        }
        if FileManager.default.fileExists(atPath: file), !force {
            Terminal.error("\(file) exists; not replaced (use --force to replace it)")
            throw ExitCode(2)
        }
        do throws(WholeFile.Failure) {
            try WholeFile.write(Array(text.utf8), to: file)
        } catch {
            Terminal.error("cannot write \(file): \(error.reason)")
            throw ExitCode(1)
        }
        Terminal.note("screens-pipe: wrote \(file) (\(type.rawValue)); try: screens-pipe run \(file)")
    }

    /// The file name without its directory and extension, as a pipeline name.
    static func pipelineName(for file: String) -> String {
        let base = file.split(separator: "/").last.map(String.init) ?? file
        let stem = base.hasSuffix(".yaml") ? String(base.dropLast(5)) : base.hasSuffix(".yml") ? String(base.dropLast(4)) : base
        let cleaned = stem.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" }
        return cleaned.isEmpty ? "pipeline" : String(cleaned)
    }
}

extension StarterPipeline: ExpressibleByArgument {}
