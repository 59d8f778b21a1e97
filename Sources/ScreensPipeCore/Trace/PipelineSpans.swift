import Tracing

/// The spans a run creates through swift-distributed-tracing, with the tracer the process
/// bootstrapped (`InstrumentationSystem.bootstrap`): none is recorded until one is.
///
/// The tree, each a child of the span current when ``Pipeline/run()`` is called (a
/// Hummingbird request's, say):
///
/// ```
/// screens-pipe run                      screens_pipe.pipeline, .pages, .rows, .selected
/// └ screens-pipe list                   screens_pipe.source, screens_pipe.parent (fan-out)
///   ├ screens-pipe page                 screens_pipe.page.index, .rows, .origin
///   │ ├ GET   (client)                  http.request.method, url.full, server.address,
///   │ └ GET   (client, a retry)         server.port, http.response.status_code,
///   │                                   http.request.resend_count, error.type
///   ├ screens-pipe convert              screens_pipe.page.index, .rows, .selected
///   ├ screens-pipe publish              screens_pipe.page.index, .rows, .selected
///   └ screens-pipe list                 a fan-out child list: under the list of its parent row
/// ```
///
/// Every URL is redacted by the same rules as messages and logs, written as OpenTelemetry's
/// conventions ask (``HTTPRequest/telemetryURL``), and no header, body or parameter value is
/// recorded. With no tracer recording, no attribute is worked out (``Span/isRecording``).
/// A run given a ``TraceRecorder`` (`--trace`) draws these same spans in its Chrome trace.
public enum PipelineSpans {
    /// The span of one ``Pipeline/run()``.
    public static let run = "screens-pipe run"
    /// The span of one list: the source's, or each list of a fan-out.
    public static let list = "screens-pipe list"
    /// The span of one page, from the cache or the source, retries included.
    public static let page = "screens-pipe page"
    /// The span of converting and filtering one page's rows (a child of its list).
    public static let convert = "screens-pipe convert"
    /// The span of publishing one page's events to the subscribers: it lasts while the
    /// slowest of them (the sink) is behind, so backpressure shows (a child of its list).
    public static let publish = "screens-pipe publish"

    /// Attribute keys of screens-pipe's own (the HTTP ones are OpenTelemetry's).
    public enum Attribute {
        /// The pipeline's name.
        public static let pipeline = "screens_pipe.pipeline"
        /// The list's source, as the `started` event describes it (redacted).
        public static let source = "screens_pipe.source"
        /// The parent rows of a fan-out child list (`site #1 (id=20144)`).
        public static let parent = "screens_pipe.parent"
        /// The page's index, 0-based.
        public static let pageIndex = "screens_pipe.page.index"
        /// Rows in the page (on a page span) or delivered by the run (on the run span).
        public static let rows = "screens_pipe.rows"
        /// Where the page came from: `remote`, `cache` or `file`.
        public static let origin = "screens_pipe.page.origin"
        /// The pages the run delivered.
        public static let pages = "screens_pipe.pages"
        /// The rows the filter selected.
        public static let selected = "screens_pipe.selected"
        /// The code of the error that failed the span (`http`, `connectivity`, ...).
        public static let errorCode = "screens_pipe.error.code"
    }

    /// Starts a span under `context` (by default the task's current one, or a new trace),
    /// drawn in `recorder` too (by default the run's, ``TraceRecorder/current``).
    static func start(
        _ name: String, context: ServiceContext? = nil, kind: SpanKind = .internal, recorder: TraceRecorder? = TraceRecorder.current
    ) -> any Span {
        let parent = context ?? ServiceContext.current ?? .topLevel
        let span = startSpan(name, context: parent, ofKind: kind)
        guard let recorder else { return span }
        return RecordingSpan(span, recorder: recorder, name: name, kind: kind, parent: parent)
    }

    /// The span of a run of `pipeline`, under the task's current span, drawn in `recorder`.
    static func startRun(pipeline: String, recorder: TraceRecorder?) -> any Span {
        let span = start(run, recorder: recorder)
        if span.isRecording { span.attributes[Attribute.pipeline] = pipeline }
        return span
    }

    /// Ends a run's span with what it delivered; failed unless every row was delivered.
    static func endRun(_ span: any Span, summary: RunSummary) {
        guard span.isRecording else { return span.end() }
        span.attributes[Attribute.pages] = summary.pages
        span.attributes[Attribute.rows] = summary.rows
        span.attributes[Attribute.selected] = summary.selected
        if !summary.succeeded {
            if let first = summary.failures.first {
                fail(span, first)
            } else {
                span.setStatus(SpanStatus(code: .error, message: summary.ending.reason?.rawValue ?? "not every row was delivered"))
            }
        }
        span.end()
    }

    /// The span of one list, described by its (redacted) `source` summary and, in a fan-out,
    /// its parent rows (`lineage`); under `parent` (the span of the list its parent row came
    /// from) or else the task's current span.
    /// The descriptions are made only when a tracer records the span.
    static func startList(
        source: @autoclosure () -> String, lineage: @autoclosure () -> String = "", parent: ServiceContext? = nil
    ) -> any Span {
        let span = start(list, context: parent)
        guard span.isRecording else { return span }
        span.attributes[Attribute.source] = source()
        let parents = lineage()
        if !parents.isEmpty { span.attributes[Attribute.parent] = parents }
        return span
    }

    /// The span of converting (``convert``) or publishing (``publish``) page `index`.
    static func startStage(_ name: String, page index: Int) -> any Span {
        let span = start(name)
        if span.isRecording { span.attributes[Attribute.pageIndex] = index }
        return span
    }

    /// Ends a convert or publish span with the page's row counts.
    static func endStage(_ span: any Span, rows: Int, selected: Int) {
        if span.isRecording {
            span.attributes[Attribute.rows] = rows
            span.attributes[Attribute.selected] = selected
        }
        span.end()
    }

    /// Runs `operation` with `span` as the task's current span, so that the spans started
    /// inside (and in child tasks) are its children; ends it afterwards, as failed when
    /// `operation` throws.
    static func within<T>(
        _ span: any Span, _ operation: () async throws(ScreensPipeError) -> T
    ) async throws(ScreensPipeError) -> T {
        let result: Result<T, ScreensPipeError> = await ServiceContext.$current.withValue(span.context) {
            do throws(ScreensPipeError) { return .success(try await operation()) } catch { return .failure(error) }
        }
        switch result {
        case .success(let value):
            span.end()
            return value
        case .failure(let error):
            fail(span, error)
            span.end()
            throw error
        }
    }

    /// Marks `span` failed with `error` (its message is redacted, as every error's is). A
    /// cancelled one is not an error: a page prefetched past a `limit`, or a run stopped by
    /// a signal, was given up, and a trace backend should not count it as a failure; it
    /// keeps the code, so the trace says why it ended.
    static func fail(_ span: any Span, _ error: ScreensPipeError) {
        guard span.isRecording else { return }
        span.attributes[Attribute.errorCode] = error.code.name
        guard error.code != .cancelled else { return }
        if span.attributes["error.type"] == nil { span.attributes["error.type"] = error.code.name }
        span.setStatus(SpanStatus(code: .error, message: error.message))
    }
}

/// One HTTP attempt's client span, after OpenTelemetry's HTTP semantic conventions. With no
/// tracer recording (the default), no attribute is worked out: this is once per request.
struct HTTPAttemptSpan {
    let span: any Span

    /// Starts the span of a send of `request` that `resendCount` sends preceded (0 for the
    /// first; retries and a send again after a credentials refusal count alike).
    init(_ request: HTTPRequest, resendCount: Int) {
        span = PipelineSpans.start(request.method, kind: .client)
        guard span.isRecording else { return }
        let url = URLParts(request.url)
        span.attributes["http.request.method"] = request.method
        span.attributes["url.full"] = request.telemetryURL
        span.attributes["server.address"] = url.host
        if let port = url.port { span.attributes["server.port"] = port }
        if resendCount > 0 { span.attributes["http.request.resend_count"] = resendCount }
    }

    /// Ends the span on a response: 4xx and 5xx are errors, as the conventions say for clients.
    func end(status: Int) {
        guard span.isRecording else { return span.end() }
        span.attributes["http.response.status_code"] = status
        if status >= 400 {
            span.attributes["error.type"] = String(status)
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    /// Ends the span on a response the caller could not use (a 200 whose body is not JSON).
    /// Its reason quotes the server, so it stays out of the span: the page's span says it.
    func endInvalid(status: Int) {
        guard span.isRecording else { return span.end() }
        span.attributes["http.response.status_code"] = status
        span.attributes["error.type"] = "invalid_response"
        span.setStatus(SpanStatus(code: .error))
        span.end()
    }

    /// Ends the span on a transport failure (no complete response); a transfer the run
    /// cancelled (it needed the page no more) is not an error.
    func end(failure: HTTPError) {
        guard span.isRecording, failure.kind != .cancelled else { return span.end() }
        span.attributes["error.type"] = failure.kind.rawValue
        span.setStatus(SpanStatus(code: .error, message: failure.kind.rawValue))
        span.end()
    }
}
