import ScreensBus
import Synchronization

/// Records a run's spans (each page request, retry wait, convert and publish) for a
/// timeline in the Chrome trace event format, which Perfetto and `chrome://tracing` open.
///
/// ```swift
/// let trace = TraceRecorder()
/// let pipeline = Pipeline(spec: spec, environment: PipelineEnvironment(trace: trace))
/// _ = try await pipeline.run()
/// try Data(trace.chromeTraceJSON()).write(to: URL(fileURLWithPath: "run.trace.json"))
/// ```
///
/// Page requests that overlap (prefetch) go on separate lanes (`tid`), so the prefetch
/// window shows as parallel bars; a retry wait goes on the lane of its page. Convert and
/// publish run one page at a time, each on a lane of its own. Safe from any thread.
public final class TraceRecorder: Sendable {
    /// One complete span: `ph: "X"` in the trace format.
    public struct Span: Sendable, Hashable {
        /// What happened: `request page 3`, `retry wait page 3`, `convert page 3`, `publish page 3`.
        public var name: String
        /// The span's kind (`request`, `retry-wait`, `convert`, `publish`): the trace's `cat`.
        public var category: String
        /// Microseconds from the recorder's creation to the span's start.
        public var start: Int64
        /// The span's length in microseconds.
        public var duration: Int64
        /// The lane the span is drawn on.
        public var lane: Int
        /// Details shown when the span is selected (page, rows, origin...).
        public var arguments: JSONObject
    }

    private struct State {
        var spans: [Span] = []
        /// Lanes of requests in flight; a request takes the lowest free one.
        var busyLanes: Set<Int> = []
        var laneOfPage: [Int: Int] = [:]
    }

    private let origin = ContinuousClock.now
    private let state = Mutex(State())

    /// The lane of convert spans; publish spans use the next one, requests the ones after.
    static let convertLane = 1
    static let publishLane = 2
    static let firstRequestLane = 3

    /// Creates an empty recorder; times are measured from now.
    public init() {}

    /// The spans recorded so far, in the order they ended.
    public var spans: [Span] { state.withLock { $0.spans } }

    /// Microseconds since the recorder was created.
    func now() -> Int64 { Self.microseconds(ContinuousClock.now - origin) }

    static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }

    /// Marks the start of page `page`'s request; returns its start time.
    func requestStarted(page: Int) -> Int64 {
        state.withLock { state in
            var lane = Self.firstRequestLane
            while state.busyLanes.contains(lane) { lane += 1 }
            state.busyLanes.insert(lane)
            state.laneOfPage[page] = lane
        }
        return now()
    }

    /// Ends page `page`'s request span that began at `start`.
    func requestEnded(page: Int, start: Int64, arguments: JSONObject) {
        let end = now()
        state.withLock { state in
            let lane = state.laneOfPage.removeValue(forKey: page) ?? Self.firstRequestLane
            state.busyLanes.remove(lane)
            state.spans.append(Span(
                name: "request page \(page)", category: "request", start: start, duration: end - start, lane: lane, arguments: arguments))
        }
    }

    /// A retry wait of `delay` for page `page`, starting now.
    func retryWait(page: Int, delay: Duration, attempt: Int, reason: String) {
        let start = now()
        state.withLock { state in
            state.spans.append(Span(
                name: "retry wait page \(page)", category: "retry-wait", start: start, duration: Self.microseconds(delay),
                lane: state.laneOfPage[page] ?? Self.firstRequestLane,
                arguments: ["page": .int(Int64(page)), "attempt": .int(Int64(attempt)), "reason": .string(reason)]))
        }
    }

    /// A span on a fixed lane (convert, publish) that began at `start` and ends now.
    func span(_ name: String, category: String, lane: Int, start: Int64, arguments: JSONObject) {
        let end = now()
        state.withLock { state in
            state.spans.append(Span(name: name, category: category, start: start, duration: end - start, lane: lane, arguments: arguments))
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
                case Self.convertLane: "convert"
                case Self.publishLane: "publish"
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
