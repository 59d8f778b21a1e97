import Synchronization

/// The in-process, typed event bus a pipeline publishes on.
///
/// Any number of subscribers each get every event published after they subscribed, in
/// publish order. Each subscriber has a bounded buffer: when one falls behind, `publish`
/// suspends until it catches up, so a slow subscriber slows the pipeline down and never
/// loses an event. A subscriber that stops iterating (or whose task is cancelled) is
/// removed and no longer holds the bus back.
///
/// Nothing on the bus waits for ever: cancelling a publishing task ends its wait (the full
/// subscriber it gave up on is cut short: it gets the events it holds, then ends), and
/// ``finish()`` releases every waiting publisher. Each subscription has one consumer.
public final class EventBus: Sendable {
    private struct State {
        var subscribers: [Int: SubscriberChannel] = [:]
        var nextID = 0
        var finished = false
    }

    private let state = Mutex(State())
    /// Events each subscriber may have queued before publishers wait.
    public let bufferSize: Int

    /// Creates a bus whose subscribers buffer up to `bufferSize` events each.
    public init(bufferSize: Int = 1024) {
        precondition(bufferSize > 0, "bufferSize must be positive")
        self.bufferSize = bufferSize
    }

    /// Subscribes to every event published from now on.
    ///
    /// Iterate the returned sequence (`for await event in bus.subscribe()`); it ends after
    /// ``finish()``. Subscribe before the pipeline starts to see its first event.
    public func subscribe() -> EventSubscription {
        let channel = SubscriberChannel(capacity: bufferSize)
        let id: Int? = state.withLock { state in
            if state.finished { return nil }
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = channel
            return state.nextID
        }
        guard let id else {
            channel.finish()
            return EventSubscription(channel: channel, onEnd: {})
        }
        return EventSubscription(channel: channel) { [weak self] in
            self?.unsubscribe(id)
        }
    }

    private func unsubscribe(_ id: Int) {
        let channel = state.withLock { $0.subscribers.removeValue(forKey: id) }
        channel?.cancel()
    }

    /// Publishes one event to every subscriber, waiting while any of them is full.
    ///
    /// Cancelling the calling task ends the wait at once: a subscriber that is full at that
    /// moment is cut short (it gets the events it already holds, then its sequence ends, so
    /// it sees a prefix of the events without gaps); subscribers with room get the event.
    public func publish(_ event: PipelineEvent) async {
        await publish(contentsOf: CollectionOfOne(event))
    }

    /// Publishes events in order; cheaper than one `publish` per event for a page of rows.
    /// Cancellation ends the wait as for ``publish(_:)``.
    public func publish(contentsOf events: some Collection<PipelineEvent>) async {
        await send(ArraySlice(events.map(BusMessage.event)))
    }

    /// Publishes a page as one message: subscribers that read ``EventSubscription/messages``
    /// get it whole, the others get its events (``PageEvents/events``) one by one, exactly
    /// as if they had been published with ``publish(contentsOf:)``. It takes as much of a
    /// subscriber's buffer as its events would. Cancellation ends the wait as for ``publish(_:)``.
    public func publish(page: PageEvents) async {
        await send([BusMessage.page(page)][...])
    }

    private func send(_ batch: ArraySlice<BusMessage>) async {
        let channels = state.withLock { state in
            state.finished ? [] : state.subscribers.sorted { $0.key < $1.key }.map(\.value)
        }
        if channels.isEmpty { return }
        for channel in channels {
            await channel.send(batch)
        }
    }

    /// Ends every subscription once its buffered events are consumed. Later publishes are
    /// dropped and later subscriptions end at once.
    public func finish() {
        let channels = state.withLock { state in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for channel in channels { channel.finish() }
    }

    /// How many subscribers are attached now.
    public var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }
}

/// The events of one subscriber, as an `AsyncSequence`.
///
/// One consumer per subscription: the first iterator made takes the events, and any other
/// iterator of the same subscription ends at once (call ``EventBus/subscribe()`` again for
/// a second consumer). The subscription ends when the bus finishes, when the iterating task
/// is cancelled, when ``cancel()`` is called, or when the sequence and its iterators are
/// released. It also ends early, after the events it already buffered, when a publisher
/// waiting for it to make room is cancelled; it never skips an event and then goes on.
public struct EventSubscription: AsyncSequence, Sendable {
    /// Each element is one event of the bus, in publish order.
    public typealias Element = PipelineEvent
    /// A subscription never fails: it ends.
    public typealias Failure = Never

    private let lifetime: SubscriptionLifetime

    init(channel: SubscriberChannel, onEnd: @escaping @Sendable () -> Void) {
        lifetime = SubscriptionLifetime(channel: channel, onEnd: onEnd)
    }

    /// The iterator. The first one made is the subscription's consumer; any later one ends
    /// at once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(lifetime: lifetime, isConsumer: lifetime.claimConsumer())
    }

    /// Stops the subscription: the bus stops waiting for it and iteration ends.
    public func cancel() {
        lifetime.end()
    }

    /// The same subscription read message by message: a page arrives whole
    /// (``BusMessage/page(_:)``) instead of as one event per row. Iterate either the
    /// subscription or its messages: one consumer per subscription, whichever comes first.
    public var messages: Messages { Messages(lifetime: lifetime) }

    /// Takes the subscription's events one at a time.
    public struct Iterator: AsyncIteratorProtocol {
        var messages: Messages.Iterator
        /// The page being spelled out as events, and the next of its events to return.
        private var page: PageEvents.Events?
        private var position = 0

        init(lifetime: SubscriptionLifetime, isConsumer: Bool) {
            messages = Messages.Iterator(lifetime: lifetime, isConsumer: isConsumer)
        }

        /// The next event, waiting for one; nil once the bus finished (and the buffer is
        /// drained), the subscription was cancelled or cut short, or the task was cancelled.
        /// Always nil for an iterator that is not the subscription's consumer, and for a
        /// second `next()` made while another one of the same iterator is waiting.
        public mutating func next() async -> PipelineEvent? {
            if let events = page {
                if position < events.endIndex {
                    defer { position += 1 }
                    return events[position]
                }
                page = nil
            }
            switch await messages.next() {
            case .event(let event):
                return event
            case .page(let whole):
                // Every page has its response first, so it yields at least one event.
                let events = whole.events
                page = events
                position = 1
                return events[0]
            case nil:
                return nil
            }
        }
    }

    /// The messages of a subscription, pages whole, as an `AsyncSequence`.
    public struct Messages: AsyncSequence, Sendable {
        /// One event, or one page.
        public typealias Element = BusMessage
        /// A subscription never fails: it ends.
        public typealias Failure = Never

        let lifetime: SubscriptionLifetime

        /// The iterator; as for the events, the first one made of the subscription consumes it.
        public func makeAsyncIterator() -> Iterator {
            Iterator(lifetime: lifetime, isConsumer: lifetime.claimConsumer())
        }

        /// Takes the subscription's messages one at a time.
        public struct Iterator: AsyncIteratorProtocol {
            let lifetime: SubscriptionLifetime
            /// Whether this iterator took the subscription; the others end at once.
            let isConsumer: Bool

            /// The next message, waiting for one; nil when the subscription ends, as for
            /// the events.
            public mutating func next() async -> BusMessage? {
                guard isConsumer else { return nil }
                switch await lifetime.channel.next() {
                case .event(let message):
                    return message
                case .end:
                    lifetime.end()
                    return nil
                case .refused:
                    return nil
                }
            }
        }
    }
}

/// Unsubscribes exactly once: on cancel, at the end, or when the last reference goes away.
final class SubscriptionLifetime: Sendable {
    let channel: SubscriberChannel
    private let onEnd: Mutex<(@Sendable () -> Void)?>
    private let consumerClaimed = Atomic(false)

    init(channel: SubscriberChannel, onEnd: @escaping @Sendable () -> Void) {
        self.channel = channel
        self.onEnd = Mutex(onEnd)
    }

    /// True for the first caller only: the subscription's one consumer.
    func claimConsumer() -> Bool {
        consumerClaimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    func end() {
        let callback = onEnd.withLock { callback in
            defer { callback = nil }
            return callback
        }
        callback?()
        channel.cancel()
    }

    deinit {
        end()
    }
}
