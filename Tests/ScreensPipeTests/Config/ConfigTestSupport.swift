import Foundation
import Testing
@testable import ScreensPipe

/// Loads `yaml` as the file `test.yaml` with a fixed environment.
func loadPipeline(_ yaml: String, environment: [String: String] = [:], overrides: [String] = []) throws(ConfigurationErrors) -> PipelineSpec {
    try PipelineLoader(environment: environment).load(yaml: yaml, file: "test.yaml", overrides: overrides)
}

/// The error lines loading `yaml` produces; records an issue when it loads.
func configErrors(
    _ yaml: String, environment: [String: String] = [:], overrides: [String] = [],
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> [String] {
    do {
        _ = try loadPipeline(yaml, environment: environment, overrides: overrides)
        Issue.record("expected configuration errors", sourceLocation: sourceLocation)
        return []
    } catch {
        for error in error.errors {
            #expect(error.code == .configuration, sourceLocation: sourceLocation)
        }
        return error.errors.map(\.description)
    }
}

/// A minimal valid source to put other sections beside.
let minimalSource = """
    source:
      type: file
      path: rows.json
    """

/// Writes `text` to `path`, creating its directory.
func writeFile(_ path: String, _ text: String) throws {
    let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}
