import Synchronization

/// The ``ChangeOutput`` behind ``ListChanges``: hands a follow's changes to one consumer,
/// one at a time, and counts a change as written once the consumer asks for the next one
/// (its loop body ran to the end). So a follow's batch is cleared from the follow state
/// only when the consumer has handled all of it; a consumer that goes away mid-batch
/// leaves the rest pending, to be handed over again by the next follow of the list.
///
/// The follow (the producer) and the consumer meet in a state machine: each event moves it
/// and returns the continuations to resume, which are resumed outside the lock.
final class ChangeHandoff: ChangeOutput, Sendable {
    typealias Consumer = CheckedContinuation<Result<ListChange?, ScreensPipeError>, Never>
    /// Resumed with true when the consumer asked for the next change, false when it went away.
    typealias Producer = CheckedContinuation<Bool, Never>

    enum State {
        /// Neither side waits.
        case idle
        /// The consumer waits for a change.
        case waiting(Consumer)
        /// The follow offers a change nobody asked for yet.
        case offering(ListChange, Producer)
        /// The consumer holds a change; the follow waits until it asks for the next one.
        case delivered(Producer)
        /// The consumer stopped (its task was cancelled, its iterator dropped): the follow
        /// is refused every further change, and a consumer that still waits gets the end.
        case cancelled(Consumer?)
        /// The follow ended (with an error, or nil); the consumer has not seen it yet.
        case ended(ScreensPipeError?)
        /// The consumer saw the end.
        case done
    }

    /// What a transition asks to be done once the lock is released.
    struct Actions {
        var consumer: (Consumer, Result<ListChange?, ScreensPipeError>)?
        var producer: (Producer, Bool)?

        func run() {
            if let (continuation, value) = consumer { continuation.resume(returning: value) }
            if let (continuation, value) = producer { continuation.resume(returning: value) }
        }
    }

    private let state = Mutex(State.idle)
    /// The last change the consumer already holds (``ListChanges`` `after:`), nil when unknown.
    private let lastHeld: Int64?

    init(after lastHeld: Int64?) {
        self.lastHeld = lastHeld
    }

    // MARK: The follow's side

    func lastSequence() async throws(ScreensPipeError) -> Int64? { lastHeld }

    func write(_ changes: [ListChange]) async throws(ScreensPipeError) {
        for change in changes {
            let taken = await withCheckedContinuation { (producer: Producer) in
                state.withLock { Self.offer(change, producer, in: &$0) }.run()
            }
            guard taken else { throw ScreensPipeError.cancelled("the consumer of the changes stopped") }
        }
    }

    /// The follow ended: `error` is what ``ListFollower/run(output:onPoll:)`` threw, or nil.
    func finish(_ error: ScreensPipeError?) {
        state.withLock { Self.finish(error, in: &$0) }.run()
    }

    // MARK: The consumer's side

    /// The next change, nil at the end; waits until the follow has one or ends.
    func next() async -> Result<ListChange?, ScreensPipeError> {
        await withCheckedContinuation { (consumer: Consumer) in
            state.withLock { Self.ask(consumer, in: &$0) }.run()
        }
    }

    /// The consumer takes no more changes: the one it holds and the one offered stay unwritten.
    func cancel() {
        state.withLock { Self.cancel(in: &$0) }.run()
    }

    // MARK: Transitions

    static func offer(_ change: ListChange, _ producer: Producer, in state: inout State) -> Actions {
        switch state {
        case .idle:
            state = .offering(change, producer)
            return Actions()
        case .waiting(let consumer):
            state = .delivered(producer)
            return Actions(consumer: (consumer, .success(change)))
        case .cancelled, .ended, .done:
            return Actions(producer: (producer, false))
        case .offering, .delivered:
            preconditionFailure("a follow offers one change at a time")
        }
    }

    static func ask(_ consumer: Consumer, in state: inout State) -> Actions {
        switch state {
        case .idle:
            state = .waiting(consumer)
            return Actions()
        case .delivered(let producer):
            // Asking for the next change says the one delivered is handled.
            state = .waiting(consumer)
            return Actions(producer: (producer, true))
        case .offering(let change, let producer):
            state = .delivered(producer)
            return Actions(consumer: (consumer, .success(change)))
        case .cancelled(nil):
            state = .cancelled(consumer)
            return Actions()
        case .ended(let error):
            state = .done
            return Actions(consumer: (consumer, error.map { .failure($0) } ?? .success(nil)))
        case .done:
            return Actions(consumer: (consumer, .success(nil)))
        case .waiting, .cancelled(.some):
            preconditionFailure("a change sequence's iterator has one consumer at a time")
        }
    }

    static func cancel(in state: inout State) -> Actions {
        switch state {
        case .idle:
            state = .cancelled(nil)
            return Actions()
        case .waiting(let consumer):
            // The consumer keeps waiting, for the end: the follow commits its last poll first.
            state = .cancelled(consumer)
            return Actions()
        case .offering(_, let producer), .delivered(let producer):
            state = .cancelled(nil)
            return Actions(producer: (producer, false))
        case .cancelled, .ended, .done:
            return Actions()
        }
    }

    static func finish(_ error: ScreensPipeError?, in state: inout State) -> Actions {
        switch state {
        case .idle:
            state = .ended(error)
            return Actions()
        case .waiting(let consumer):
            state = .done
            return Actions(consumer: (consumer, error.map { .failure($0) } ?? .success(nil)))
        case .cancelled(let consumer):
            // A consumer that stopped gets a clean end, unless the follow failed for another reason.
            let failure = error.flatMap { $0.code == .cancelled ? nil : $0 }
            state = consumer == nil ? .ended(failure) : .done
            return Actions(consumer: consumer.map { ($0, failure.map { .failure($0) } ?? .success(nil)) })
        case .ended, .done:
            return Actions()
        case .offering, .delivered:
            preconditionFailure("a follow ends only after its last change was taken or refused")
        }
    }
}
