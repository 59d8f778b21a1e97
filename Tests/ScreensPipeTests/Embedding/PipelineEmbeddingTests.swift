import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

/// The library as a service uses it: build a pipeline three ways, watch it through the
/// AsyncSequence and a delegate, publish into it, and cancel it.
@Suite("Pipeline embedding")
struct PipelineEmbeddingTests {
    @Test("the delegate and the AsyncSequence both see every event of a run, in order")
    func delegateAndSequenceSeeEveryEvent() async throws {
        let pipeline = try Pipeline(
            file: Embedding.path("pipelines/bookmarks.yaml"), sink: .discard, environment: Embedding.environment())
        let delegate = RecordingDelegate()
        let delivery = pipeline.attach(delegate)
        let events = pipeline.subscribe()
        async let collected: [PipelineEvent] = events.reduce(into: []) { $0.append($1) }

        await pipeline.publish("warm-up", payload: ["reason": "test"])
        let summary = try await pipeline.run()
        await delivery.value
        let seen = await collected
        let delegated = await delegate.events

        #expect(summary.succeeded)
        #expect(summary.selected == 73)
        let expectedCount = 78  // custom, started, two pages, 73 rows, finished
        #expect(seen.count == expectedCount)
        #expect(seen == delegated)
        #expect(seen.first == .custom(CustomEvent(pipeline: "bookmarks", name: "warm-up", payload: ["reason": "test"])))
        guard case .started = seen[1], case .finished(let finished)? = seen.last else {
            Issue.record("the run must start with started and end with finished: \(seen.prefix(2)) ... \(String(describing: seen.last))")
            return
        }
        #expect(finished.selected == 73 && finished.succeeded)
        let rows = seen.compactMap { event -> Int? in
            if case .selected(let row) = event { return row.row }
            return nil
        }
        #expect(rows == Array(0..<73))
    }

    @Test("a pipeline built from YAML text runs like the file")
    func pipelineFromYAMLText() async throws {
        let yaml = """
            name: first-notes
            source:
              type: liferay-jsonws
              server: sandbox
              auth: { bearer: sandbox-token }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
            convert: { model: bookmark }
            filter: { where: 'name contains "notes"', limit: 4 }
            """
        let pipeline = try Pipeline(yaml: yaml, sink: .discard, environment: Embedding.environment())
        #expect(pipeline.spec.name == "first-notes")
        let events = pipeline.subscribe()
        async let names: [String] = events.reduce(into: []) { names, event in
            if case .selected(let row) = event, case .string(let name)? = row.item.objectValue?["name"] { names.append(name) }
        }
        let summary = try await pipeline.run()
        #expect(summary.selected == 4)
        #expect(await names == ["Screens notes 02", "🚀 Launch notes 👩‍👩‍👧 ✨", "Forum notes 06", "API notes 10"])
    }

    @Test("mistakes in YAML text are configuration errors located in the text")
    func yamlMistakesAreLocated() throws {
        let yaml = """
            source:
              type: liferay-jsonws
              server: sandbox
              rowz: { service: /x }
            """
        let thrown = #expect(throws: ScreensPipeError.self) {
            _ = try Pipeline(yaml: yaml, name: "inline.yaml", environment: PipelineEnvironment())
        }
        let messages = thrown?.errors.map(\.description) ?? []
        #expect(messages.contains { $0.hasPrefix("inline.yaml:4:3:") && $0.contains("rowz") })
    }

    @Test("a bad filter expression fails when the pipeline is built, not when it runs")
    func filterCheckedAtConstruction() throws {
        let thrown = #expect(throws: ScreensPipeError.self) {
            _ = try Pipeline(
                file: Embedding.path("pipelines/bookmarks.yaml"), overrides: ["filter.where=name ==="],
                environment: PipelineEnvironment())
        }
        #expect(thrown?.errors.isEmpty == false)
    }

    @Test("a file's several mistakes are one ScreensPipeError that lists them; one mistake is itself")
    func configurationMistakesAreOneErrorFamily() throws {
        let yaml = """
            source:
              type: liferay-jsonws
              server: sandbox
              rowz: { service: /x }
            sink: { type: stdoutt }
            """
        let several = #expect(throws: ScreensPipeError.self) {
            _ = try Pipeline(yaml: yaml, name: "inline.yaml", environment: PipelineEnvironment())
        }
        let error = try #require(several)
        #expect(error.code == .configuration)
        #expect(error.errors.count >= 2)
        #expect(error.errors.allSatisfy { $0.code == .configuration && $0.location != nil })
        #expect(error.errors.map(\.location!.line) == error.errors.map(\.location!.line).sorted())
        #expect(error.description == error.errors.map(\.description).joined(separator: "\n"))

        let one = #expect(throws: ScreensPipeError.self) {
            _ = try Pipeline(
                file: Embedding.path("pipelines/bookmarks.yaml"), overrides: ["filter.where=name ==="],
                environment: PipelineEnvironment())
        }
        let single = try #require(one)
        #expect(single.errors == [single])
        #expect(single.location != nil)
    }

    @Test("a pipeline built in code from typed stage values")
    func pipelineFromTypedSpec() async throws {
        let spec = PipelineSpec(
            name: "offline",
            source: SourceSpec(type: .file(FileSourceSpec(path: Embedding.path("samples/offline/bookmarks.json")))),
            convert: ConvertSpec(model: .bookmark),
            filter: FilterSpec(expression: #"url contains "liferay""#),
            sink: SinkSpec(destination: .discard))
        let pipeline = Pipeline(spec: spec, environment: PipelineEnvironment())
        let events = pipeline.subscribe()
        async let urls: [String] = events.reduce(into: []) { urls, event in
            if case .selected(let row) = event, case .string(let url)? = row.item.objectValue?["url"] { urls.append(url) }
        }
        let summary = try await pipeline.run()
        let selected = await urls
        #expect(summary.succeeded)
        #expect(!selected.isEmpty)
        #expect(selected.count == summary.selected)
        #expect(selected.allSatisfy { $0.contains("liferay") })
        #expect(summary.rows > summary.selected)
    }

    @Test("server: sandbox without a launcher is a configuration error of the run")
    func sandboxNeedsALauncher() async throws {
        let pipeline = try Pipeline(
            file: Embedding.path("pipelines/bookmarks.yaml"), sink: .discard,
            environment: PipelineEnvironment(variables: Embedding.variables()))
        let events = pipeline.subscribe()
        async let seen: [PipelineEvent] = events.reduce(into: []) { $0.append($1) }
        let thrown = await #expect(throws: ScreensPipeError.self) { try await pipeline.run() }
        #expect(thrown?.code == .configuration)
        let all = await seen
        #expect(all.count == 1)
        guard case .error(let error)? = all.first else {
            Issue.record("expected one error event, got \(all)")
            return
        }
        #expect(error.message.contains("PipelineEnvironment(sandbox:)"))
    }

    @Test("cancelling the task running run() stops the transfers and ends the event sequences")
    func cancellationEndsTheRun() async throws {
        var sandbox = SandboxConfiguration()
        sandbox.generatedRows = 2_000
        sandbox.faults = FaultPlan(latency: .milliseconds(50))
        let pipeline = try Pipeline(yaml: Embedding.generatedListYAML, sink: .discard, environment: Embedding.environment(sandbox: sandbox))
        let delegate = RecordingDelegate()
        let delivery = pipeline.attach(delegate)
        let events = pipeline.subscribe()
        let run = Task { try await pipeline.run() }

        var seen: [PipelineEvent] = []
        for await event in events {
            seen.append(event)
            // Cancel as soon as the first page is in: 199 pages (10 s of latency) remain.
            if event.isResponse, seen.filter(\.isResponse).count == 1 { run.cancel() }
        }
        // The run ends as Swift code expects of a cancelled task: it throws, here a
        // `cancelled` error carrying the summary of what was delivered before the cancel.
        let thrown = await #expect(throws: ScreensPipeError.self) { try await run.value }
        await delivery.value
        #expect(thrown?.isCancellation == true, "\(String(describing: thrown))")
        let summary = try #require(thrown?.summary)

        #expect(summary.ending.reason == .interrupted)
        #expect(summary.pages < 200)
        #expect(summary.selected < 2_000)
        guard case .finished(let finished)? = seen.last else {
            Issue.record("the sequence must end with finished, got \(String(describing: seen.last))")
            return
        }
        #expect(finished.selected == summary.selected)
        #expect(await delegate.events == seen)
    }
}
