import Synchronization

/// Hands one child list's pages from the task loading it to the task delivering them in
/// parent order. It holds at most ``capacity`` items: a child that is ahead of the
/// delivery waits in ``send(_:)`` (its loader keeps at most `prefetch` pages in flight on
/// top), so memory stays bounded however many children run.
final class PageRelay: Sendable {
    /// What a child's loading task reports.
    enum Item: Sendable {
        /// An early answer (the cached copy under cache-and-remote) of one list's page.
        case provisional(FetchedPage, Lineage)
        /// A page of one list, in list order.
        case page(FetchedPage, Lineage)
        /// One list ended; a tree sends one per list it walks.
        case listEnded(PageLoader.Outcome, Lineage)
        /// Every list of the job was delivered.
        case finished
        /// The job failed (its error already names the parent row).
        case failed(ScreensPipeError)
    }

    private struct State {
        var buffer: [Item] = []
        var sender: CheckedContinuation<Bool, Never>?
        var receiver: CheckedContinuation<Item, Never>?
        var closed = false
        var senderCancelled = false
        var receiverCancelled = false
    }

    private let state = Mutex(State())
    /// Items held before a sender waits.
    let capacity = 1

    /// Queues `item`, waiting while the relay is full; false once the delivering side has
    /// closed the relay (the run stopped) or the sending task was cancelled.
    func send(_ item: Item) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let (receiver, answer) = state.withLock { state -> (CheckedContinuation<Item, Never>?, Bool?) in
                    if state.closed || state.senderCancelled { return (nil, false) }
                    if let receiver = state.receiver {
                        state.receiver = nil
                        return (receiver, true)
                    }
                    state.buffer.append(item)
                    if state.buffer.count <= capacity { return (nil, true) }
                    state.sender = continuation
                    return (nil, nil)
                }
                receiver?.resume(returning: item)
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let sender = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                state.senderCancelled = true
                defer { state.sender = nil }
                return state.sender
            }
            sender?.resume(returning: false)
        }
    }

    /// The next item, waiting for the loading task; a cancelled delivering task gets a
    /// `cancelled` failure.
    func receive() async -> Item {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Item, Never>) in
                let (item, sender) = state.withLock { state -> (Item?, CheckedContinuation<Bool, Never>?) in
                    if state.receiverCancelled { return (.failed(ScreensPipeError.cancelled("the run was cancelled")), nil) }
                    guard !state.buffer.isEmpty else {
                        state.receiver = continuation
                        return (nil, nil)
                    }
                    let item = state.buffer.removeFirst()
                    var sender: CheckedContinuation<Bool, Never>?
                    if state.buffer.count <= capacity {
                        sender = state.sender
                        state.sender = nil
                    }
                    return (item, sender)
                }
                sender?.resume(returning: true)
                if let item { continuation.resume(returning: item) }
            }
        } onCancel: {
            let receiver = state.withLock { state -> CheckedContinuation<Item, Never>? in
                state.receiverCancelled = true
                defer { state.receiver = nil }
                return state.receiver
            }
            receiver?.resume(returning: .failed(ScreensPipeError.cancelled("the run was cancelled")))
        }
    }

    /// The delivering side is done with this relay: a waiting sender is released with
    /// false and every later send returns false at once.
    func close() {
        let sender = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.closed = true
            state.buffer.removeAll()
            defer { state.sender = nil }
            return state.sender
        }
        sender?.resume(returning: false)
    }
}
