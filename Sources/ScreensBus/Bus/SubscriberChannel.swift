import Synchronization

/// The bounded queue between the bus and one subscriber.
///
/// The rules live in ``SubscriberStateMachine``; this class only locks it, feeds it each
/// event and carries out the action it returns, after unlocking. A full buffer suspends the
/// publisher (backpressure) instead of dropping events. Nothing waits for ever:
///
/// - a subscriber that goes away (cancels, or its task is cancelled) releases every waiting
///   publisher, so one abandoned subscription can never wedge the bus;
/// - a publisher whose task is cancelled stops waiting, and the subscriber it gave up on
///   ends after the events it already holds, so a cancelled run returns even while a
///   subscription is held and never read;
/// - a second consumer waiting on the same subscription ends at once instead of taking
///   the first one's place.
final class SubscriberChannel: Sendable {
    typealias Delivery = SubscriberDelivery
    private typealias Machine = SubscriberStateMachine<CheckedContinuation<Void, Never>, CheckedContinuation<Delivery, Never>>

    private let machine: Mutex<Machine>

    init(capacity: Int) {
        machine = Mutex(Machine(capacity: capacity))
    }

    /// Queues `events` in order, suspending while the buffer is full. Returns early, with
    /// the events that did not fit dropped and the subscription cut short, when the calling
    /// task is cancelled while it waits.
    func send(_ events: ArraySlice<BusMessage>) async {
        if events.isEmpty { return }
        let rest: ArraySlice<BusMessage>
        let id: Int
        switch machine.withLock({ $0.send(events) }) {
        case .done(let consumer):
            if let consumer { Self.resume(consumer) }
            return
        case .wait(let remaining, let producerID, let consumer):
            if let consumer { Self.resume(consumer) }
            rest = remaining
            id = producerID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Task.isCancelled is set before any cancellation handler runs: either the
                // handler below finds this publisher waiting, or this check sees the flag.
                let action = machine.withLock {
                    $0.producerWaits(id: id, events: rest, continuation: continuation, isCancelled: Task.isCancelled)
                }
                Self.run(action)
            }
        } onCancel: {
            Self.run(machine.withLock { $0.producerCancelled(id: id) })
        }
    }

    /// The next event, the end, or a refusal for a second concurrent consumer.
    func next() async -> Delivery {
        switch machine.withLock({ $0.next() }) {
        case .deliver(let event, let producers):
            for producer in producers { producer.resume() }
            return .event(event)
        case .finish(let delivery):
            return delivery
        case .suspend:
            break
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Delivery, Never>) in
                switch machine.withLock({ $0.consumerWaits(continuation) }) {
                case .none:
                    break
                case .resume(let consumer, let producers):
                    Self.resume(consumer)
                    for producer in producers { producer.resume() }
                }
            }
        } onCancel: {
            // The consumer's task is cancelled: the subscriber leaves.
            cancel()
        }
    }

    /// The bus is done: the consumer drains what is buffered, then sees the end.
    func finish() {
        Self.run(machine.withLock { $0.finish() })
    }

    /// The subscriber left: release everyone and drop all further events.
    func cancel() {
        Self.run(machine.withLock { $0.cancel() })
    }

    private static func resume(_ consumer: Machine.ConsumerResumption) {
        consumer.continuation.resume(returning: consumer.delivery)
    }

    private static func run(_ action: Machine.ProducerWaitAction) {
        guard case .resume(let producers, let consumer) = action else { return }
        if let consumer { resume(consumer) }
        for producer in producers { producer.resume() }
    }

    private static func run(_ action: Machine.EndAction) {
        guard case .resume(let consumer, let producers) = action else { return }
        if let consumer { resume(consumer) }
        for producer in producers { producer.resume() }
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

    private mutating func grow() {
        var bigger: [Element?] = Array(repeating: nil, count: max(16, storage.count * 2))
        for offset in 0..<count {
            bigger[offset] = storage[(head + offset) % storage.count]
        }
        storage = bigger
        head = 0
    }
}
