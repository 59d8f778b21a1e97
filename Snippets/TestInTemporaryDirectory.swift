// A test of the program's own code: a scripted source, a cache in a temporary directory.

// snippet.hide
import Foundation
import ScreensPipe
import ScreensPipeTesting

// snippet.show
// snippet.test
func offlineFallsBackToTheCache() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let environment = PipelineEnvironment(cacheDirectory: .directory(directory))
    let source = ScriptedSource(rows: [["entryId": 1, "name": "Liferay"]])
    let spec = PipelineSpec(name: "bookmarks", source: SourceSpec(type: .custom(source)),
                            cache: CacheSpec(policy: .remoteFirst), sink: SinkSpec(destination: .discard))
    _ = try await RecordedRun(Pipeline(spec: spec, environment: environment))
    source.mode = .down
    let offline = try await RecordedRun(Pipeline(spec: spec, environment: environment))
    precondition(offline.items == [["entryId": 1, "name": "Liferay"]])          // #expect(...) in a test
    precondition(offline.responses.allSatisfy { $0.origin == .cache })
}
// snippet.end
try await offlineFallsBackToTheCache()
