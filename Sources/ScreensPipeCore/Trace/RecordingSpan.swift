import ScreensBus
import Synchronization
import Tracing

/// The key under which a recorded span's id travels in its `ServiceContext`, so that the
/// spans started under it (an HTTP attempt under its page, a child list under its parent's
/// list) find their parent's lane in the trace.
enum RecordedSpanKey: ServiceContextKey {
    typealias Value = Int
}

/// A span of the run that is also drawn in the run's ``TraceRecorder``: it hands everything
/// to the span of the process's tracer (OTLP, or none), and keeps its own copy of the
/// attributes and status, so the Chrome trace is made of the very spans a tracing backend
/// gets, whether or not a tracer is bootstrapped.
final class RecordingSpan: Span {
    private let inner: any Span
    private let recorder: TraceRecorder
    private let opened: TraceRecorder.OpenSpan
    private struct State {
        var attributes = SpanAttributes()
        var failed = false
        var ended = false
    }
    private let state = Mutex(State())

    init(_ inner: any Span, recorder: TraceRecorder, name: String, kind: SpanKind, parent: ServiceContext) {
        self.inner = inner
        self.recorder = recorder
        opened = recorder.open(name: name, isClient: kind == .client, parent: parent[RecordedSpanKey.self])
    }

    var context: ServiceContext {
        var context = inner.context
        context[RecordedSpanKey.self] = opened.id
        return context
    }

    var operationName: String {
        get { inner.operationName }
        set { inner.operationName = newValue }
    }

    /// Always: the trace file wants the attributes even when no tracer records them.
    var isRecording: Bool { true }

    var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set {
            state.withLock { $0.attributes = newValue }
            inner.attributes = newValue
        }
    }

    func setStatus(_ status: SpanStatus) {
        if status.code == .error { state.withLock { $0.failed = true } }
        inner.setStatus(status)
    }

    func addEvent(_ event: SpanEvent) { inner.addEvent(event) }

    func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        inner.recordError(error, attributes: attributes, at: instant())
    }

    func addLink(_ link: SpanLink) { inner.addLink(link) }

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let ended: (SpanAttributes, Bool)? = state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            return (state.attributes, state.failed)
        }
        inner.end(at: instant())
        guard let (attributes, failed) = ended else { return }
        recorder.close(opened, attributes: attributes, failed: failed)
    }
}
