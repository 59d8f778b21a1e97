import Synchronization

/// The run's budget of requests in flight: every page request of every list of a fan-out
/// (parents, children, prefetched pages) takes a permit for as long as it runs, so child
/// lists loading at once and their prefetch never send more than `permits` requests
/// together. Waiters are served first come, first served; a cancelled waiter leaves the
/// queue at once.
final class InFlightBudget: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var available: Int
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        /// Waiters whose task was cancelled before they joined the queue.
        var cancelledEarly: Set<UInt64> = []
    }

    private let state: Mutex<State>
    /// The permits the budget was made with.
    let permits: Int

    init(permits: Int) {
        self.permits = max(1, permits)
        state = Mutex(State(available: max(1, permits)))
    }

    /// Waits for a permit; false when the task was cancelled while it waited.
    func acquire() async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer = state.withLock { state -> Bool? in
                    if state.cancelledEarly.remove(id) != nil { return false }
                    if state.available > 0 {
                        state.available -= 1
                        return true
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) { return state.waiters.remove(at: index) }
                state.cancelledEarly.insert(id)
                return nil
            }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Returns a permit: the longest waiter gets it, or it becomes available.
    func release() {
        let next = state.withLock { state -> Waiter? in
            guard !state.waiters.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.continuation.resume(returning: true)
    }
}

/// A fetcher whose requests each hold a permit of the run's ``InFlightBudget``.
struct BudgetedFetcher: PageFetcher {
    let base: any PageFetcher
    let budget: InFlightBudget

    var chaining: PageChaining { base.chaining }
    var requestsPageSize: Bool { base.requestsPageSize }
    var identity: String { base.identity }
    var summary: String { base.summary }

    func fetch(_ request: PageRequest, provisional: @Sendable (FetchedPage) async -> Void) async throws(ScreensPipeError) -> FetchedPage {
        guard await budget.acquire() else { throw ScreensPipeError.cancelled("the run was cancelled", page: request.index) }
        defer { budget.release() }
        return try await base.fetch(request, provisional: provisional)
    }

    func plan(_ request: PageRequest) -> [PlannedRequest] { base.plan(request) }

    func shutdown() async { await base.shutdown() }
}
