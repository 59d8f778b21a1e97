public import ScreensBus

/// A pipeline test file (`bookmarks.test.yaml`): the pipeline it tests and its cases.
///
/// ```yaml
/// pipeline: bookmarks.yaml          # relative to this file
/// env: { FOLDER_ID: "20143" }       # the only variables ${VAR} sees
/// cases:
///   - name: converts a bookmark
///     pages:                        # recorded pages: page N answers request N
///       - [{entryId: 1, name: Liferay, url: "https://www.liferay.com"}]
///     expect:
///       rows: [{entryId: 1, name: Liferay, url: "https://www.liferay.com"}]
/// ```
///
/// ``load(path:)`` reports every mistake of the file at once, each at its position.
public struct PipelineTestFile: Sendable {
    /// The test file as named on the command line.
    public var path: String
    /// The pipeline file, resolved against the test file's directory.
    public var pipeline: String
    /// The variables `${VAR}` references in the pipeline read: only these, so a test runs
    /// the same on every machine.
    public var variables: [String: String]
    /// The cases, in file order.
    public var cases: [PipelineTestCase]

    /// Creates a test file in code.
    public init(path: String, pipeline: String, variables: [String: String] = [:], cases: [PipelineTestCase]) {
        self.path = path
        self.pipeline = pipeline
        self.variables = variables
        self.cases = cases
    }
}

/// One case of a test file: what the source serves and what the run must publish.
public struct PipelineTestCase: Sendable {
    /// What the case is called in reports.
    public var name: String
    /// Where the case starts in its file.
    public var location: SourceLocation?
    /// `--set key.path=value` overrides applied to the pipeline for this case.
    public var overrides: [String]
    /// What the source serves.
    public var input: PipelineTestInput
    /// What the run must publish.
    public var expectation: PipelineTestExpectation

    /// Creates a case in code.
    public init(
        name: String, location: SourceLocation? = nil, overrides: [String] = [], input: PipelineTestInput,
        expectation: PipelineTestExpectation
    ) {
        self.name = name
        self.location = location
        self.overrides = overrides
        self.input = input
        self.expectation = expectation
    }
}

/// Where a case's pages come from. Recorded inputs replace the pipeline's source; the
/// cache, convert, filter and sink stages are the pipeline's own.
public enum PipelineTestInput: Sendable, Hashable {
    /// The whole list (`rows:` or `rows-file:`), paged as the pipeline pages it, with its
    /// length as the row count on page 0.
    case rows([JSONValue])
    /// Recorded pages (`pages:` or `pages-file:`): page N answers the pipeline's request
    /// N with its rows as recorded; `count` is the row count page 0 reports (none when nil,
    /// so a short page ends the list). A request past the last recorded page fails the case.
    case pages([[JSONValue]], count: Int?)
    /// `sandbox: true`: the pipeline's own source against the bundled sandbox portal.
    case sandbox
}

/// What a case expects; every part given must hold.
public struct PipelineTestExpectation: Sendable, Hashable {
    /// The rows the sink writes (projected by `sink.fields` when the pipeline has it), in order.
    public var rows: [JSONValue]?
    /// How many rows were selected.
    public var rowCount: Int?
    /// Events that must appear in this order (others may come between): each expected event
    /// matches an event whose JSON-lines envelope holds all of its fields with equal values.
    public var events: [JSONValue]?
    /// The error the run must fail with; nil means the run must succeed.
    public var error: PipelineTestExpectedError?

    /// Creates an expectation; with nothing given, only success is expected.
    public init(rows: [JSONValue]? = nil, rowCount: Int? = nil, events: [JSONValue]? = nil, error: PipelineTestExpectedError? = nil) {
        self.rows = rows
        self.rowCount = rowCount
        self.events = events
        self.error = error
    }
}

/// `expect.error`: the kind, page and message of an expected failure; each part optional.
public struct PipelineTestExpectedError: Sendable, Hashable {
    /// The error kind as in `error` events (`pagination`, `http`, `convert`...).
    public var kind: String?
    /// The page the error names.
    public var page: Int?
    /// Text the message must contain.
    public var message: String?

    /// Creates an expected error.
    public init(kind: String? = nil, page: Int? = nil, message: String? = nil) {
        self.kind = kind
        self.page = page
        self.message = message
    }

    /// Whether `error` is this one.
    func matches(_ error: ScreensPipeError) -> Bool {
        if let kind, error.code.name != kind { return false }
        if let page, error.page != page { return false }
        if let message, !error.message.contains(message) { return false }
        return true
    }

    /// `kind pagination, page 2, message containing "..."`.
    var summary: String {
        var parts: [String] = []
        if let kind { parts.append("kind \(kind)") }
        if let page { parts.append("page \(page)") }
        if let message { parts.append("a message containing \"\(message)\"") }
        return parts.isEmpty ? "any error" : parts.joined(separator: ", ")
    }
}
