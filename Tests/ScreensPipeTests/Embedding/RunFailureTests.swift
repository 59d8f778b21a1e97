import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

/// `Pipeline.run()` returns only for a run that delivered its list: a failed run throws its
/// first error, with the page, the redacted request and the run's summary.
@Suite("Pipeline run failures throw")
struct RunFailureTests {
    /// 100 generated bookmarks, with `password` for the portal's test user.
    private static func pipeline(password: String) throws -> Pipeline {
        let yaml = Embedding.generatedListYAML.replacingOccurrences(of: "password: test", with: "password: \(password)")
        var sandbox = SandboxConfiguration()
        sandbox.generatedRows = 100
        return try Pipeline(yaml: yaml, sink: .discard, environment: Embedding.environment(sandbox: sandbox))
    }

    @Test("a 401 throws an authentication error naming the page and the redacted request, with the summary")
    func unauthorizedThrows() async throws {
        let pipeline = try Self.pipeline(password: "wrong-secret-password")
        let events = pipeline.subscribe()
        async let seen: [PipelineEvent] = events.reduce(into: []) { $0.append($1) }
        let thrown = await #expect(throws: ScreensPipeError.self) { _ = try await pipeline.run() }
        let error = try #require(thrown)
        #expect(error.code == .authentication, "\(error)")
        #expect(error.status == 401)
        #expect(error.page == 0)
        #expect(error.request?.contains("/api/jsonws/invoke") == true, "\(String(describing: error.request))")
        #expect(!error.isCancellation)
        // The secret is nowhere in what the error says.
        #expect(!"\(error)".contains("wrong-secret-password"))
        #expect(!(error.request ?? "").contains("wrong-secret-password"))
        let summary = try #require(error.summary)
        #expect(summary.selected == 0)
        #expect(summary.failureCount >= 1)
        #expect(summary.failures.first?.code == .authentication)
        #expect(summary.ending.reason == .failed)
        // The error was an event too, and the sequence still ended with finished.
        let published = await seen
        #expect(published.contains { if case .error(let failure) = $0 { failure.kind == "auth" } else { false } })
        if case .finished(let finished)? = published.last { #expect(!finished.succeeded) } else { Issue.record("no finished: \(published)") }
    }

    @Test("a run with the right credentials returns its summary")
    func authorizedReturns() async throws {
        let summary = try await Self.pipeline(password: "test").run()
        #expect(summary.endedWithoutFailure)
        #expect(summary.selected == 100)
        #expect(summary.ending.reason == .completed)
    }

    @Test("a row that does not convert throws its error after the rows before it were delivered")
    func aRowFailureThrowsAfterTheRowsBefore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("screens-pipe-run-failure-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rows = directory.appendingPathComponent("rows.json")
        try #"[{"id": 1, "name": "a"}, {"id": "two", "name": "b"}, {"id": 3, "name": "c"}]"#.write(to: rows, atomically: true, encoding: .utf8)
        let pipeline = try Pipeline(
            yaml: """
                name: rows
                source: { type: file, path: "\(rows.path)" }
                convert:
                  fields:
                    id: { type: int }
                    name: name
                """,
            sink: .discard, environment: PipelineEnvironment())
        let events = pipeline.subscribe()
        async let selected: [JSONValue] = events.reduce(into: []) { if case .selected(let row) = $1 { $0.append(row.item) } }
        let thrown = await #expect(throws: ScreensPipeError.self) { _ = try await pipeline.run() }
        #expect(thrown?.code == .conversion)
        #expect(thrown?.row == 1)
        #expect(thrown?.page == 0)
        #expect(thrown?.summary?.selected == 2)
        #expect(await selected.map { $0["id"] } == [.int(1), .int(3)])
    }
}
