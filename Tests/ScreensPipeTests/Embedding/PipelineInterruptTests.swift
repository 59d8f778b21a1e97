import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

/// `Pipeline.interrupt(signal:)`: what the command line does on a signal, for library users.
@Suite("Pipeline interrupt")
struct PipelineInterruptTests {
    @Test("an interrupted run says so in finished and the summary, and keeps a file output as .partial")
    func interruptKeepsPartial() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("screens-pipe-interrupt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let output = directory.appendingPathComponent("rows.jsonl").path
        try "previous\n".write(toFile: output, atomically: true, encoding: .utf8)
        let pipeline = try Pipeline(
            file: Embedding.path("pipelines/offline-bookmarks.yaml"), sink: .file(path: output), environment: Embedding.environment())
        let events = pipeline.subscribe()
        async let collected: [PipelineEvent] = events.reduce(into: []) { $0.append($1) }
        pipeline.interrupt(signal: "SIGTERM")
        let thrown = await #expect(throws: ScreensPipeError.self) { try await pipeline.run() }
        let seen = await collected
        #expect(thrown?.isCancellation == true)
        let summary = try #require(thrown?.summary)

        #expect(summary.ending.reason == .interrupted)
        #expect(summary.ending.signal == "SIGTERM")
        #expect(!summary.succeeded && !summary.endedWithoutFailure)
        #expect(summary.outputPath == output + ".partial")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "previous\n")
        guard case .finished(let finished)? = seen.last else {
            Issue.record("the run ends with finished")
            return
        }
        #expect(finished.reason == .interrupted && finished.signal == "SIGTERM" && !finished.succeeded)
    }

    @Test("a run that is not interrupted completes, with the end of its list")
    func completedRun() async throws {
        let pipeline = try Pipeline(
            file: Embedding.path("pipelines/offline-bookmarks.yaml"), sink: .discard, environment: Embedding.environment())
        let summary = try await pipeline.run()
        #expect(summary.ending.reason == .completed)
        #expect(summary.ending.end == .rowCount)
        #expect(summary.endedWithoutFailure)
    }
}
