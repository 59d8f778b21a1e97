import ScreensBus

/// Why a sink stopped writing: the error type of every sink, whatever it writes to.
package enum SinkFailure: Error {
    /// The reader went away (EPIPE): `| head` closed the pipe.
    case closed
    /// A write, sync or rename failed, or the database refused: the message names the
    /// destination and the cause.
    case failed(String)
}

/// The last stage: consumes the bus and writes what a reader wants to see.
package protocol EventSink: Sendable {
    /// Writes events until the subscription ends. Throws `.closed` when the reader left.
    func consume(_ events: EventSubscription) async throws(SinkFailure)

    /// Flushes and finishes the output; `succeeded` decides whether a file is renamed
    /// into place or kept as `.partial`. Returns where a file ended up.
    func close(succeeded: Bool) throws(SinkFailure) -> String?

    /// What a sink that writes to a database table did to it, once closed; nil for the others.
    var tableDelivery: TableDelivery? { get }
}

extension EventSink {
    package var tableDelivery: TableDelivery? { nil }
}

/// A sink that writes nothing, for services that only subscribe to the bus.
struct DiscardSink: EventSink {
    func consume(_ events: EventSubscription) async throws(SinkFailure) {
        // Draining keeps the bus moving; the subscription ends when the run finishes.
        for await _ in events.messages {}
    }

    func close(succeeded: Bool) throws(SinkFailure) -> String? { nil }
}
