/// The rules of one subscriber's bounded queue, as a value with no locks and no effects.
///
/// Every event (a publisher sends, a publisher waits, a publisher is cancelled, the
/// consumer asks, the consumer waits, the bus finishes, the subscriber leaves) returns the
/// action the caller must take, and the caller takes it after releasing its lock: no
/// continuation is ever resumed while the state is locked. The data lives in the states, so
/// a continuation can only be stored where the state says someone may wait:
///
/// - the consumer waits only while the buffer is empty;
/// - publishers wait only while the buffer is full;
/// - once no more events can come in, nobody waits: every stored continuation is handed
///   back in the action that leaves `streaming`.
///
/// A subscriber sees a prefix of what was published, in order and without gaps: when a
/// cancelled publisher gives up on a full subscriber, that subscriber is cut short (it
/// drains its buffer, then ends) rather than skipping the events that did not fit.
///
/// The waiters are type parameters: ``SubscriberChannel`` uses continuations, tests use
/// plain values and check every transition without a task.
struct SubscriberStateMachine<ProducerContinuation, ConsumerContinuation> {
    typealias Delivery = SubscriberDelivery

    /// A waiting consumer and what to resume it with.
    struct ConsumerResumption {
        var continuation: ConsumerContinuation
        var delivery: Delivery
    }

    struct WaitingProducer {
        var id: Int
        var events: ArraySlice<BusMessage>
        var continuation: ProducerContinuation
    }

    /// Accepting events.
    struct Streaming {
        var buffer = RingBuffer<BusMessage>()
        /// The events the buffered messages stand for (a page weighs its events), kept
        /// at most `capacity` unless one message alone is heavier.
        var weight = 0
        /// Set only while `buffer` is empty.
        var consumer: ConsumerContinuation?
        /// Non-empty only while `buffer` is full; served first in, first out.
        var producers: [WaitingProducer] = []
    }

    enum State {
        case streaming(Streaming)
        /// No more events come in (the bus finished, or a cancelled publisher cut the
        /// subscription short): the consumer takes what is buffered, then the end.
        case draining(RingBuffer<BusMessage>)
        /// Nothing comes in or out any more.
        case ended
        /// Only while a method rewrites the state, so the payload is uniquely referenced.
        case modifying
    }

    let capacity: Int
    private(set) var state = State.streaming(Streaming())
    private var nextProducerID = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a subscriber needs room for at least one event")
        self.capacity = capacity
    }

    // MARK: - Publishers

    enum SendAction {
        /// Every event was queued (or dropped, because nothing takes events any more).
        case done(ConsumerResumption?)
        /// These events did not fit: wait for room with them (``producerWaits``), using `id`
        /// for cancellation.
        case wait(ArraySlice<BusMessage>, id: Int, ConsumerResumption?)
    }

    /// A publisher offers `events`; as many as fit are queued at once.
    mutating func send(_ events: ArraySlice<BusMessage>) -> SendAction {
        switch state {
        case .streaming(var streaming):
            state = .modifying
            defer { state = .streaming(streaming) }
            guard streaming.producers.isEmpty else {
                // Behind publishers already waiting: first in, first out.
                return .wait(events, id: makeProducerID(), nil)
            }
            let (rest, resumption) = Self.place(events, into: &streaming, capacity: capacity)
            guard let rest else { return .done(resumption) }
            return .wait(rest, id: makeProducerID(), resumption)
        case .draining, .ended:
            return .done(nil)
        case .modifying:
            preconditionFailure("reentrant SubscriberStateMachine.send")
        }
    }

    enum ProducerWaitAction {
        /// The publisher's continuation is stored; it resumes when its events are queued.
        case none
        /// Resume these publishers (the caller among them) and, maybe, the consumer.
        case resume([ProducerContinuation], ConsumerResumption?)
    }

    /// The publisher that got ``SendAction/wait(_:id:_:)`` suspends. Room may have appeared
    /// (or the subscription ended) since; a publisher whose task is cancelled does not wait
    /// but cuts the subscription short.
    mutating func producerWaits(
        id: Int, events: ArraySlice<BusMessage>, continuation: ProducerContinuation, isCancelled: Bool
    ) -> ProducerWaitAction {
        switch state {
        case .streaming(var streaming):
            state = .modifying
            var resumption: ConsumerResumption?
            var rest: ArraySlice<BusMessage>? = events
            if streaming.producers.isEmpty {
                (rest, resumption) = Self.place(events, into: &streaming, capacity: capacity)
            }
            guard let rest else {
                state = .streaming(streaming)
                return .resume([continuation], resumption)
            }
            if isCancelled {
                let (producers, consumer) = cutShort(streaming)
                return .resume(producers + [continuation], resumption ?? consumer)
            }
            streaming.producers.append(WaitingProducer(id: id, events: rest, continuation: continuation))
            state = .streaming(streaming)
            return resumption.map { .resume([], $0) } ?? .none
        case .draining, .ended:
            return .resume([continuation], nil)
        case .modifying:
            preconditionFailure("reentrant SubscriberStateMachine.producerWaits")
        }
    }

    /// The task of waiting publisher `id` was cancelled: it stops waiting, and the
    /// subscriber, which would otherwise miss the events that did not fit, is cut short.
    mutating func producerCancelled(id: Int) -> ProducerWaitAction {
        guard case .streaming(let streaming) = state, streaming.producers.contains(where: { $0.id == id }) else {
            // Not waiting (yet, or any more): `producerWaits` sees the cancellation itself.
            return .none
        }
        state = .modifying
        let (producers, consumer) = cutShort(streaming)
        return .resume(producers, consumer)
    }

    // MARK: - The consumer

    enum NextAction {
        /// Return this event; resume these publishers, whose events now fit.
        case deliver(BusMessage, [ProducerContinuation])
        /// Return the end (or a refusal) at once.
        case finish(Delivery)
        /// Nothing buffered yet: suspend (``consumerWaits``).
        case suspend
    }

    /// The consumer asks for the next event without waiting.
    mutating func next() -> NextAction {
        switch state {
        case .streaming(var streaming):
            if streaming.consumer != nil { return .finish(.refused) }
            guard !streaming.buffer.isEmpty else { return .suspend }
            state = .modifying
            let (event, producers) = Self.take(from: &streaming, capacity: capacity)
            state = .streaming(streaming)
            return .deliver(event, producers)
        case .draining(var buffer):
            state = .modifying
            guard let event = buffer.popFirst() else {
                state = .ended
                return .finish(.end)
            }
            state = buffer.isEmpty ? .ended : .draining(buffer)
            return .deliver(event, [])
        case .ended:
            return .finish(.end)
        case .modifying:
            preconditionFailure("reentrant SubscriberStateMachine.next")
        }
    }

    enum ConsumerWaitAction {
        /// The consumer's continuation is stored.
        case none
        /// Resume the consumer now, and these publishers.
        case resume(ConsumerResumption, [ProducerContinuation])
    }

    /// The consumer that got ``NextAction/suspend`` suspends; an event, the end or another
    /// waiting consumer may have appeared since.
    mutating func consumerWaits(_ continuation: ConsumerContinuation) -> ConsumerWaitAction {
        guard case .streaming(var streaming) = state, streaming.buffer.isEmpty, streaming.consumer == nil else {
            switch next() {
            case .deliver(let event, let producers):
                return .resume(ConsumerResumption(continuation: continuation, delivery: .event(event)), producers)
            case .finish(let delivery):
                return .resume(ConsumerResumption(continuation: continuation, delivery: delivery), [])
            case .suspend:
                preconditionFailure("a streaming state with an empty buffer and no consumer was handled above")
            }
        }
        state = .modifying
        streaming.consumer = continuation
        state = .streaming(streaming)
        return .none
    }

    // MARK: - The end

    enum EndAction {
        case none
        /// Resume the consumer (with the end) and release these publishers.
        case resume(ConsumerResumption?, [ProducerContinuation])
    }

    /// The bus finished: nothing more comes in; the consumer drains the buffer, then ends.
    /// Publishers still waiting raced with the finish: their events are dropped.
    mutating func finish() -> EndAction {
        guard case .streaming(let streaming) = state else { return .none }
        state = .modifying
        let (producers, consumer) = cutShort(streaming)
        return .resume(consumer, producers)
    }

    /// The subscriber left: drop everything and release everyone.
    mutating func cancel() -> EndAction {
        switch state {
        case .streaming(let streaming):
            state = .ended
            let consumer = streaming.consumer.map { ConsumerResumption(continuation: $0, delivery: .end) }
            return .resume(consumer, streaming.producers.map(\.continuation))
        case .draining:
            state = .ended
            return .none
        case .ended:
            return .none
        case .modifying:
            preconditionFailure("reentrant SubscriberStateMachine.cancel")
        }
    }

    // MARK: - Steps

    private mutating func makeProducerID() -> Int {
        defer { nextProducerID += 1 }
        return nextProducerID
    }

    /// Leaves `streaming` for good: no more events come in. The buffer drains; waiting
    /// publishers and a waiting consumer are handed back to be resumed.
    private mutating func cutShort(_ streaming: Streaming) -> ([ProducerContinuation], ConsumerResumption?) {
        let producers = streaming.producers.map(\.continuation)
        if streaming.buffer.isEmpty {
            state = .ended
            return (producers, streaming.consumer.map { ConsumerResumption(continuation: $0, delivery: .end) })
        }
        state = .draining(streaming.buffer)
        return (producers, nil)
    }

    /// Hands the first event to a waiting consumer and buffers as many of the rest as fit.
    /// Returns what did not fit (nil: everything was taken).
    private static func place(
        _ events: ArraySlice<BusMessage>, into streaming: inout Streaming, capacity: Int
    ) -> (ArraySlice<BusMessage>?, ConsumerResumption?) {
        var events = events
        var resumption: ConsumerResumption?
        if let consumer = streaming.consumer, let first = events.popFirst() {
            streaming.consumer = nil
            resumption = ConsumerResumption(continuation: consumer, delivery: .event(first))
        }
        while let next = events.first, streaming.fits(next, capacity: capacity) {
            events.removeFirst()
            streaming.append(next)
        }
        return (events.isEmpty ? nil : events, resumption)
    }

    /// Takes the first buffered event and refills the buffer from waiting publishers, in
    /// order; returns the publishers whose events are now all queued.
    private static func take(
        from streaming: inout Streaming, capacity: Int
    ) -> (BusMessage, [ProducerContinuation]) {
        guard let event = streaming.buffer.popFirst() else {
            preconditionFailure("take from an empty buffer")
        }
        streaming.weight -= event.weight
        var released: [ProducerContinuation] = []
        while !streaming.producers.isEmpty {
            while let next = streaming.producers[0].events.first, streaming.fits(next, capacity: capacity) {
                streaming.producers[0].events.removeFirst()
                streaming.append(next)
            }
            guard streaming.producers[0].events.isEmpty else { break }
            released.append(streaming.producers.removeFirst().continuation)
        }
        return (event, released)
    }
}

extension SubscriberStateMachine.Streaming {
    /// Whether `message` may be buffered now: it keeps the weight within `capacity`, or the
    /// buffer is empty (a page heavier than the whole buffer still goes through, alone).
    func fits(_ message: BusMessage, capacity: Int) -> Bool {
        buffer.isEmpty || weight + message.weight <= capacity
    }

    mutating func append(_ message: BusMessage) {
        buffer.append(message)
        weight += message.weight
    }
}

/// What the consumer of a subscription gets from one `next`.
enum SubscriberDelivery: Sendable, Hashable {
    /// The next event.
    case event(BusMessage)
    /// The subscription is over: the bus finished and the buffer is drained, the
    /// subscription was cut short and is drained, or the subscriber left.
    case end
    /// Another `next` of the same subscription is already waiting: one consumer per
    /// subscription, so this one ends at once and the waiting one keeps its place.
    case refused
}
