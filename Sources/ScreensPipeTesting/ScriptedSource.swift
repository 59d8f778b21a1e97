public import struct Foundation.Date
public import ScreensBus
public import ScreensPipeCore
import Synchronization

/// A source for embedders' tests: serves the pages of an in-memory list the way a paged
/// server does, and fails on request the way a real source fails.
///
/// Hand it to a pipeline as a custom source, so the cache, convert, filter and sink stages
/// under test are the real ones:
///
/// ```swift
/// let source = ScriptedSource(rows: [["entryId": 1, "name": "Liferay"]])
/// let spec = PipelineSpec(name: "bookmarks", source: SourceSpec(type: .custom(source)))
/// let run = try await RecordedRun(Pipeline(spec: spec))
/// #expect(run.items == [["entryId": 1, "name": "Liferay"]])
/// ```
///
/// Pages follow the request's row range: page `p` holds the rows of `startRow..<endRow`,
/// and page 0 carries the row count when asked for (unless `reportsCount` is false, which
/// makes the list end on its first short page). Safe to change from the test while a run is
/// going: every fetch reads the current script.
public final class ScriptedSource: PageFetcher {
    /// How the scripted server answers.
    public enum Mode: Sendable, Hashable {
        /// Serves the rows.
        case up
        /// Fails like an unreachable server: a `connectivity` error (remote-first falls back).
        case down
        /// Fails like bad credentials: an HTTP 401 `authentication` error.
        case unauthorized
        /// Fails like a missing service: an HTTP 404 `http` error.
        case notFound
    }

    private struct Script {
        var mode: Mode = .up
        var pageModes: [Int: Mode] = [:]
        var rows: [JSONValue]
        var fetchedAt: Date = Date()
        var requests: [PageRequest] = []
    }

    private let script: Mutex<Script>
    /// Whether page 0 reports the row count when the request asks for it.
    public let reportsCount: Bool
    /// The cache identity (see ``PageFetcher/identity``): two sources with one identity
    /// share cached pages.
    public let identity: String

    /// A source serving `rows`.
    public init(rows: [JSONValue], reportsCount: Bool = true, identity: String = "scripted") {
        script = Mutex(Script(rows: rows))
        self.reportsCount = reportsCount
        self.identity = identity
    }

    /// How every page is answered, unless ``fail(page:with:)`` scripted that page.
    public var mode: Mode {
        get { script.withLock { $0.mode } }
        set { script.withLock { $0.mode = newValue } }
    }

    /// The whole list; change it to model the server's data changing between runs.
    public var rows: [JSONValue] {
        get { script.withLock { $0.rows } }
        set { script.withLock { $0.rows = newValue } }
    }

    /// The fetch time stamped on the pages served from now on.
    public var fetchedAt: Date {
        get { script.withLock { $0.fetchedAt } }
        set { script.withLock { $0.fetchedAt = newValue } }
    }

    /// Answers `page` with `mode` from now on (`.up` serves it again).
    public func fail(page: Int, with mode: Mode) {
        script.withLock { $0.pageModes[page] = mode }
    }

    /// Every request that reached the source, failed ones included, in arrival order.
    public var requests: [PageRequest] { script.withLock { $0.requests } }

    /// How many fetches reached the source, failed ones included.
    public var fetches: Int { script.withLock { $0.requests.count } }

    /// A one-line description for `started` events.
    public var summary: String { "scripted source (\(identity))" }

    public func fetch(
        _ request: PageRequest, provisional: @Sendable (FetchedPage) async -> Void
    ) async throws(ScreensPipeError) -> FetchedPage {
        let (mode, rows, fetchedAt) = script.withLock { script in
            script.requests.append(request)
            return (script.pageModes[request.index] ?? script.mode, script.rows, script.fetchedAt)
        }
        switch mode {
        case .up:
            return FetchedPage(serving: rows, for: request, reportsCount: reportsCount, fetchedAt: fetchedAt)
        case .down:
            throw ScreensPipeError.connectivity("connection refused (scripted)", page: request.index)
        case .unauthorized:
            throw ScreensPipeError.authentication("HTTP 401 Unauthorized (scripted)", page: request.index, status: 401)
        case .notFound:
            throw ScreensPipeError.http("HTTP 404 Not Found (scripted)", page: request.index, status: 404)
        }
    }

    /// What `plan` shows: the page and its rows, since nothing goes on a wire.
    public func plan(_ request: PageRequest) -> [PlannedRequest] {
        [PlannedRequest(page: request.index, method: "SCRIPTED", url: "rows \(request.startRow)..<\(request.endRow)")]
    }
}
