import Synchronization

/// The bounded queue between the bus and one subscriber.
///
/// A single explicit state machine guards everything: the buffered events, the consumer
/// waiting for one, and the producers waiting for room. A full buffer suspends the producer
/// (backpressure) instead of dropping events; a subscriber that goes away releases every
/// waiting producer so one abandoned subscription can never wedge the bus.
final class SubscriberChannel: Sendable {
    private struct WaitingProducer {
        var events: ArraySlice<PipelineEvent>
        var continuation: CheckedContinuation<Void, Never>
    }

    private enum Phase {
        /// Delivering events.
        case open
        /// The bus finished: drain the buffer, then end the sequence.
        case finished
        /// The subscriber left: drop everything from now on.
        case cancelled
    }

    private struct State {
        var phase = Phase.open
        var buffer = RingBuffer<PipelineEvent>()
        var consumer: CheckedContinuation<PipelineEvent?, Never>?
        var producers: [WaitingProducer] = []
    }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        precondition(capacity > 0, "a subscriber needs room for at least one event")
        self.capacity = capacity
    }

    /// Queues `events` in order, suspending while the buffer is full.
    func send(_ events: ArraySlice<PipelineEvent>) async {
        if events.isEmpty { return }
        let remaining: ArraySlice<PipelineEvent>? = state.withLock { state in
            Self.enqueue(events, into: &state, capacity: capacity)
        }
        guard let remaining else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                // The consumer may have drained the buffer, or left, since the first try.
                switch state.phase {
                case .cancelled, .finished:
                    return true
                case .open:
                    if let rest = Self.enqueue(remaining, into: &state, capacity: capacity) {
                        state.producers.append(WaitingProducer(events: rest, continuation: continuation))
                        return false
                    }
                    return true
                }
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Moves as many events as fit into the buffer (or straight to a waiting consumer) and
    /// returns what did not fit, or nil when everything was taken.
    private static func enqueue(
        _ events: ArraySlice<PipelineEvent>, into state: inout State, capacity: Int
    ) -> ArraySlice<PipelineEvent>? {
        guard case .open = state.phase, state.producers.isEmpty else {
            // Keep FIFO order behind producers that are already waiting.
            if case .open = state.phase { return events }
            return nil
        }
        var events = events
        if let consumer = state.consumer, let first = events.first {
            state.consumer = nil
            events = events.dropFirst()
            consumer.resume(returning: first)
        }
        while let next = events.first, state.buffer.count < capacity {
            state.buffer.append(next)
            events = events.dropFirst()
        }
        return events.isEmpty ? nil : events
    }

    /// The next event, or nil once the bus finished and the buffer is drained.
    func next() async -> PipelineEvent? {
        if let fast = state.withLock({ state in Self.take(from: &state, capacity: capacity) }) {
            return fast.event
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PipelineEvent?, Never>) in
                let immediate: TakeResult? = state.withLock { state in
                    if let taken = Self.take(from: &state, capacity: capacity) { return taken }
                    state.consumer = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate.event) }
            }
        } onCancel: {
            cancel()
        }
    }

    private struct TakeResult {
        var event: PipelineEvent?
    }

    /// Takes the next buffered event and refills from waiting producers. Returns nil when
    /// the consumer has to wait.
    private static func take(from state: inout State, capacity: Int) -> TakeResult? {
        if let event = state.buffer.popFirst() {
            refill(&state, capacity: capacity)
            return TakeResult(event: event)
        }
        switch state.phase {
        case .open: return nil
        case .finished, .cancelled: return TakeResult(event: nil)
        }
    }

    private static func refill(_ state: inout State, capacity: Int) {
        while state.buffer.count < capacity, !state.producers.isEmpty {
            var producer = state.producers[0]
            while let next = producer.events.first, state.buffer.count < capacity {
                state.buffer.append(next)
                producer.events = producer.events.dropFirst()
            }
            if producer.events.isEmpty {
                state.producers.removeFirst()
                producer.continuation.resume()
            } else {
                state.producers[0] = producer
            }
        }
    }

    /// The bus is done: the consumer drains what is buffered, then sees the end.
    func finish() {
        let consumer: CheckedContinuation<PipelineEvent?, Never>? = state.withLock { state in
            guard case .open = state.phase else { return nil }
            state.phase = .finished
            // Producers still waiting belong to a publish that raced with finish; let them go.
            for producer in state.producers { producer.continuation.resume() }
            state.producers.removeAll()
            defer { state.consumer = nil }
            return state.buffer.isEmpty ? state.consumer : nil
        }
        consumer?.resume(returning: nil)
    }

    /// The subscriber left: release everyone and drop all further events.
    func cancel() {
        let (consumer, producers) = state.withLock { state in
            state.phase = .cancelled
            state.buffer.removeAll()
            defer {
                state.consumer = nil
                state.producers.removeAll()
            }
            return (state.consumer, state.producers)
        }
        consumer?.resume(returning: nil)
        for producer in producers { producer.continuation.resume() }
    }
}

/// A growable FIFO ring buffer: O(1) append and pop without Foundation or Collections.
struct RingBuffer<Element> {
    private var storage: [Element?] = []
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) {
        if count == storage.count {
            grow()
        }
        storage[(head + count) % storage.count] = element
        count += 1
    }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        return element
    }

    mutating func removeAll() {
        storage = []
        head = 0
        count = 0
    }

    private mutating func grow() {
        var bigger: [Element?] = Array(repeating: nil, count: max(16, storage.count * 2))
        for offset in 0..<count {
            bigger[offset] = storage[(head + offset) % storage.count]
        }
        storage = bigger
        head = 0
    }
}
