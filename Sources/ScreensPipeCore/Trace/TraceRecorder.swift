import ScreensBus
import Synchronization
import Tracing

/// Draws a run's spans as a timeline in the Chrome trace event format, which Perfetto and
/// `chrome://tracing` open: the spans the run creates through swift-distributed-tracing
/// (``PipelineSpans``: the run, each list, each page with its HTTP attempts, each page's
/// convert and publish), recorded whether or not the process bootstrapped a tracer, plus
/// the waits between retries.
///
/// ```swift
/// let trace = TraceRecorder()
/// let pipeline = Pipeline(spec: spec, environment: PipelineEnvironment(trace: trace))
/// _ = try await pipeline.run()
/// try Data(trace.chromeTraceJSON()).write(to: URL(fileURLWithPath: "run.trace.json"))
/// ```
///
/// Pages in flight together (prefetch) go on separate lanes (`tid`), so the prefetch window
/// shows as parallel bars; a page's HTTP attempts and retry waits go on its lane. Convert
/// and publish run one page at a time, each on a lane of its own; the run and its lists
/// have lanes of their own. Safe from any thread.
public final class TraceRecorder: Sendable {
    /// One complete span: `ph: "X"` in the trace format.
    public struct Span: Sendable, Hashable {
        /// What happened: `request page 3` (the page's span), `GET` (an HTTP attempt),
        /// `retry wait page 3`, `convert page 3`, `publish page 3`, `list`, `run`.
        public var name: String
        /// The span's kind (`run`, `list`, `request`, `http`, `retry-wait`, `convert`,
        /// `publish`): the trace's `cat`.
        public var category: String
        /// Microseconds from the recorder's creation to the span's start.
        public var start: Int64
        /// The span's length in microseconds.
        public var duration: Int64
        /// The lane the span is drawn on.
        public var lane: Int
        /// Details shown when the span is selected: the span's attributes (page, rows,
        /// origin, status...), URLs redacted as everywhere.
        public var arguments: JSONObject
    }

    /// A span begun and not yet ended: where and when it is drawn.
    struct OpenSpan: Sendable {
        let id: Int
        let name: String
        let isClient: Bool
        let lane: Int
        let start: Int64
    }

    private struct State {
        var spans: [Span] = []
        var nextID = 0
        /// The lane of each open span, by id: its HTTP attempts and retry waits go there too.
        var laneOfSpan: [Int: Int] = [:]
        /// Lanes of pages and lists in flight; each takes the lowest free one of its kind.
        var busyLanes: Set<Int> = []
    }

    private let origin = ContinuousClock.now
    private let state = Mutex(State())

    /// The lane of the run's span.
    static let runLane = 0
    /// The lane of convert spans; publish spans use the next one, pages the ones after.
    static let convertLane = 1
    static let publishLane = 2
    static let firstRequestLane = 3
    /// Lists get lanes from here on: a fan-out's lists run side by side.
    static let firstListLane = 1000

    /// The recorder of the run this task works for: spans started in it are recorded too.
    @TaskLocal static var current: TraceRecorder?

    /// Creates an empty recorder; times are measured from now.
    public init() {}

    /// The spans recorded so far, in the order they ended.
    public var spans: [Span] { state.withLock { $0.spans } }

    /// Microseconds since the recorder was created.
    func now() -> Int64 { Self.microseconds(ContinuousClock.now - origin) }

    static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }

    /// Begins drawing a span named `name` (one of ``PipelineSpans``' names, or an HTTP
    /// attempt's method when `isClient`) under the recorded span `parent`.
    func open(name: String, isClient: Bool, parent: Int?) -> OpenSpan {
        let start = now()
        return state.withLock { state in
            state.nextID += 1
            func freeLane(from first: Int) -> Int {
                var lane = first
                while state.busyLanes.contains(lane) { lane += 1 }
                state.busyLanes.insert(lane)
                return lane
            }
            let lane =
                switch name {
                case _ where isClient: parent.flatMap { state.laneOfSpan[$0] } ?? Self.firstRequestLane
                case PipelineSpans.run: Self.runLane
                case PipelineSpans.list: freeLane(from: Self.firstListLane)
                case PipelineSpans.page: freeLane(from: Self.firstRequestLane)
                case PipelineSpans.convert: Self.convertLane
                case PipelineSpans.publish: Self.publishLane
                default: parent.flatMap { state.laneOfSpan[$0] } ?? Self.runLane
                }
            state.laneOfSpan[state.nextID] = lane
            return OpenSpan(id: state.nextID, name: name, isClient: isClient, lane: lane, start: start)
        }
    }

    /// Ends the span `opened` with its final `attributes`, drawn under the names the trace
    /// has always used (`request page 3` for a page).
    func close(_ opened: OpenSpan, attributes: SpanAttributes, failed: Bool) {
        let end = now()
        var arguments: JSONObject = [:]
        attributes.forEach { key, value in
            arguments[Self.argumentNames[key] ?? key] = Self.json(value)
        }
        if failed, arguments["error"] == nil { arguments["error"] = arguments["error.type"] ?? "error" }
        let page = arguments["page"].map { " page \($0.jsonString)" } ?? ""
        let (name, category): (String, String) =
            switch opened.name {
            case _ where opened.isClient: (opened.name, "http")
            case PipelineSpans.run: ("run", "run")
            case PipelineSpans.list: ("list", "list")
            case PipelineSpans.page: ("request" + page, "request")
            case PipelineSpans.convert: ("convert" + page, "convert")
            case PipelineSpans.publish: ("publish" + page, "publish")
            default: (opened.name, "span")
            }
        state.withLock { state in
            state.laneOfSpan[opened.id] = nil
            if opened.name == PipelineSpans.list || opened.name == PipelineSpans.page, !opened.isClient {
                state.busyLanes.remove(opened.lane)
            }
            state.spans.append(Span(
                name: name, category: category, start: opened.start, duration: end - opened.start, lane: opened.lane,
                arguments: arguments))
        }
    }

    /// The trace's short names for screens-pipe's own attributes.
    private static let argumentNames: [String: String] = [
        PipelineSpans.Attribute.pageIndex: "page", PipelineSpans.Attribute.rows: "rows",
        PipelineSpans.Attribute.origin: "origin", PipelineSpans.Attribute.errorCode: "error",
        PipelineSpans.Attribute.selected: "selected", PipelineSpans.Attribute.pages: "pages",
        PipelineSpans.Attribute.pipeline: "pipeline", PipelineSpans.Attribute.source: "source",
        PipelineSpans.Attribute.parent: "parent",
    ]

    private static func json(_ attribute: SpanAttribute) -> JSONValue {
        switch attribute {
        case .int32(let value): .int(Int64(value))
        case .int64(let value): .int(value)
        case .double(let value): .double(value)
        case .bool(let value): .bool(value)
        case .string(let value): .string(value)
        case .stringArray(let values): .array(values.map(JSONValue.string))
        case .int64Array(let values): .array(values.map(JSONValue.int))
        default: .string("\(attribute)")
        }
    }

    /// A retry wait of `delay` for page `page`, starting now, on the lane of the page whose
    /// span is the task's current one.
    func retryWait(page: Int, delay: Duration, attempt: Int, reason: String) {
        let start = now()
        let current = ServiceContext.current?[RecordedSpanKey.self]
        state.withLock { state in
            state.spans.append(Span(
                name: "retry wait page \(page)", category: "retry-wait", start: start, duration: Self.microseconds(delay),
                lane: current.flatMap { state.laneOfSpan[$0] } ?? Self.firstRequestLane,
                arguments: ["page": .int(Int64(page)), "attempt": .int(Int64(attempt)), "reason": .string(reason)]))
        }
    }

    /// The spans as a Chrome trace: a JSON array of `{"name","cat","ph":"X","ts","dur","pid","tid","args"}`
    /// objects (times in microseconds), sorted by start, with lane names as metadata events.
    public func chromeTraceJSON() -> [UInt8] {
        let spans = self.spans.sorted { ($0.start, $0.lane) < ($1.start, $1.lane) }
        var events: [JSONValue] = []
        var lanes = Set(spans.map(\.lane))
        lanes.formUnion([Self.convertLane, Self.publishLane])
        for lane in lanes.sorted() {
            let name =
                switch lane {
                case Self.runLane: "run"
                case Self.convertLane: "convert"
                case Self.publishLane: "publish"
                case Self.firstListLane...: "lists \(lane - Self.firstListLane + 1)"
                default: "requests \(lane - Self.firstRequestLane + 1)"
                }
            events.append(["name": "thread_name", "ph": "M", "pid": 1, "tid": .int(Int64(lane)), "args": ["name": .string(name)]])
        }
        for span in spans {
            events.append([
                "name": .string(span.name), "cat": .string(span.category), "ph": "X",
                "ts": .int(span.start), "dur": .int(max(span.duration, 0)), "pid": 1, "tid": .int(Int64(span.lane)),
                "args": .object(span.arguments),
            ])
        }
        var writer = JSONWriter()
        writer.write(.array(events))
        return writer.bytes
    }
}
