import ScreensBus
internal import Foundation

/// The outcome of one test case.
public struct PipelineTestResult: Sendable {
    /// The case's name.
    public var name: String
    /// Where the case starts in its test file.
    public var location: SourceLocation?
    /// What did not hold, one readable line each (a row's differing field, a missing event,
    /// an unexpected error); empty when the case passed.
    public var failures: [String]

    /// Whether every expectation held.
    public var passed: Bool { failures.isEmpty }
}

/// Runs the cases of pipeline test files: each case loads the pipeline with the file's
/// `env` and the case's `set`, serves the case's input through the pipeline's real cache
/// (in a fresh temporary database), convert, filter and sink stages, and checks what the
/// run published against the case's expectations.
///
/// ```swift
/// let file = try PipelineTestFile.load(path: "pipelines/bookmarks.test.yaml")
/// let results = await PipelineTestRunner(sandbox: BundledSandbox()).run(file)
/// #expect(results.allSatisfy(\.passed))
/// ```
public struct PipelineTestRunner: Sendable {
    /// Starts the sandbox portal for `sandbox: true` cases.
    public var sandbox: (any SandboxLauncher)?

    /// How many differences a failing case lists before it stops.
    public static let reportedDifferences = 10

    /// A runner; without `sandbox`, `sandbox: true` cases fail saying so.
    public init(sandbox: (any SandboxLauncher)? = nil) {
        self.sandbox = sandbox
    }

    /// Runs every case of `file`, one after another, in file order.
    public func run(_ file: PipelineTestFile) async -> [PipelineTestResult] {
        var results: [PipelineTestResult] = []
        for testCase in file.cases { results.append(await run(testCase, of: file)) }
        return results
    }

    /// Runs one case of `file`.
    public func run(_ testCase: PipelineTestCase, of file: PipelineTestFile) async -> PipelineTestResult {
        let outcome = await outcome(of: testCase, in: file)
        return PipelineTestResult(
            name: testCase.name, location: testCase.location, failures: Self.check(outcome, against: testCase.expectation))
    }

    /// What a case's run produced: the rows the sink would write, every event, and the
    /// errors that failed it (a configuration error of the pipeline included).
    struct Outcome {
        var rows: [JSONValue] = []
        var events: [JSONValue] = []
        var selected = 0
        var errors: [ScreensPipeError] = []
    }

    private func outcome(of testCase: PipelineTestCase, in file: PipelineTestFile) async -> Outcome {
        var spec: PipelineSpec
        do throws(ScreensPipeError) {
            spec = try PipelineLoader(environment: file.variables).loadChecked(file: file.pipeline, overrides: testCase.overrides)
        } catch {
            return Outcome(errors: error.errors)
        }
        if let source = RecordedSource(testCase.input, caseName: testCase.name) {
            spec.source.type = .custom(source)
            spec.source.server = nil
            // Recorded pages stand in for one child list of a fan-out: there are no parents.
            spec.source.forEach = nil
            spec.source.recursive = nil
            spec.source.include = []
            spec.source.rowTemplate = nil
        } else {
            spec.source.server = .sandbox
        }
        let projection = spec.sink.fields.map(FieldProjection.init)
        spec.sink.destination = .discard

        // The pipeline's own cache policy, on a database of this case alone.
        let directory = Self.temporaryDirectory()
        defer { if let directory { try? FileManager.default.removeItem(atPath: directory) } }
        if var cache = spec.cache {
            guard let directory else {
                return Outcome(errors: [ScreensPipeError.io("cannot create a temporary directory for the case's cache")])
            }
            cache.path = directory + "/" + CacheLocation.fileName
            spec.cache = cache
        }

        var environment = PipelineEnvironment(variables: file.variables, sandbox: sandbox)
        // An incremental pipeline without a cache section would keep its cursor in the
        // user's default cache: a case starts from no cursor, in a database of its own.
        if spec.incremental != nil, spec.cache == nil, let directory {
            do throws(ScreensPipeError) {
                environment.stateStore = try await CacheBackends.openStateStore(
                    spec: CacheSpec(path: directory + "/" + CacheLocation.fileName), environment: [:])
            } catch {
                return Outcome(errors: [error])
            }
        }
        let pipeline = Pipeline(spec: spec, environment: environment)
        let subscription = pipeline.subscribe()
        let collector = Task {
            var events: [PipelineEvent] = []
            for await event in subscription { events.append(event) }
            return events
        }
        var outcome = Outcome()
        do throws(ScreensPipeError) {
            let summary = try await pipeline.runReturningFailures()
            outcome.errors = summary.failures
            outcome.selected = summary.selected
        } catch {
            outcome.errors = [error]
        }
        let events = await collector.value
        for event in events {
            if case .selected(let selected) = event { outcome.rows.append(projection?.project(selected.item) ?? selected.item) }
            outcome.events.append(event.envelope)
        }
        return outcome
    }

    /// A new 0700 directory under the system's temporary directory, or nil.
    private static func temporaryDirectory() -> String? {
        var template = Array((NSTemporaryDirectory() + "/screens-pipe-test-XXXXXX").utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return mkdtemp(base).map { String(cString: $0) }
        }
    }

    // MARK: - Checking

    static func check(_ outcome: Outcome, against expectation: PipelineTestExpectation) -> [String] {
        var failures: [String] = []
        if let expected = expectation.error {
            if !outcome.errors.contains(where: expected.matches) {
                var line = "expected the run to fail with \(expected.summary)"
                line += outcome.errors.isEmpty ? ", but it succeeded" : "; it failed with: \(outcome.errors[0].description)"
                failures.append(line)
            }
        } else if !outcome.errors.isEmpty {
            failures.append("the run failed: \(outcome.errors[0].description)")
            for error in outcome.errors.dropFirst().prefix(reportedDifferences - 1) { failures.append("  and: \(error.description)") }
        }
        if let rowCount = expectation.rowCount, outcome.rows.count != rowCount {
            failures.append("expected \(rowCount) row\(rowCount == 1 ? "" : "s"), got \(outcome.rows.count)")
        }
        if let rows = expectation.rows { failures += rowDifferences(expected: rows, actual: outcome.rows) }
        if let events = expectation.events { failures += eventDifferences(expected: events, actual: outcome.events) }
        return failures
    }

    /// `row N .field: expected ..., got ...` for the first differing rows, and the rows
    /// one side has and the other lacks.
    static func rowDifferences(expected: [JSONValue], actual: [JSONValue]) -> [String] {
        var lines: [String] = []
        if expected.count != actual.count {
            lines.append("expected \(expected.count) row\(expected.count == 1 ? "" : "s"), got \(actual.count)")
        }
        for (index, pair) in zip(expected, actual).enumerated() where lines.count < reportedDifferences {
            for difference in JSONComparison.differences(pair.0, pair.1, path: "", limit: reportedDifferences - lines.count) {
                lines.append("row \(index) \(difference)")
            }
        }
        for index in actual.count..<max(actual.count, expected.count) where lines.count < reportedDifferences {
            lines.append("row \(index) missing: expected \(JSONComparison.text(expected[index]))")
        }
        for index in expected.count..<max(actual.count, expected.count) where lines.count < reportedDifferences {
            lines.append("row \(index) not expected: got \(JSONComparison.text(actual[index]))")
        }
        return lines
    }

    /// The first expected event that no later event matches, with the events of its kind
    /// the run did publish.
    static func eventDifferences(expected: [JSONValue], actual: [JSONValue]) -> [String] {
        var position = 0
        for (index, wanted) in expected.enumerated() {
            if let found = actual[position...].firstIndex(where: { JSONComparison.contains($0, wanted) }) {
                position = found + 1
                continue
            }
            var lines = ["expected event \(index) \(JSONComparison.text(wanted)) was not published\(position > 0 ? " after event \(position - 1)" : "")"]
            let kind = wanted.objectValue?["event"]
            let sameKind = actual.enumerated().filter { kind == nil || $0.element.objectValue?["event"] == kind }
            for (number, event) in sameKind.prefix(reportedDifferences - 1) {
                lines.append("  event \(number): \(JSONComparison.text(event))")
            }
            return lines
        }
        return []
    }
}
