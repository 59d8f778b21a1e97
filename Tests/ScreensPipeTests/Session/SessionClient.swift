import ScreensBus
import ScreensPipe
import Synchronization

/// A client of a library session that behaves like a user: it sends a command, waits
/// until the events answering it are complete, then sends the next one.
struct SessionClient {
    /// Runs `pipeline`'s session over `commands`; returns every event in order.
    static func drive(_ pipeline: Pipeline, prefetch: Int = 0, _ commands: [SessionRequest]) async throws -> [SessionEvent] {
        let seen = Mutex<[SessionEvent]>([])
        let tracker = Mutex(Completion())
        let (stream, client) = AsyncStream.makeStream(of: SessionRequest.self)
        let (answered, answer) = AsyncStream.makeStream(of: Void.self)
        let sending = Task {
            var answers = answered.makeAsyncIterator()
            for command in commands {
                client.yield(command)
                if command.operation == .close { break }
                _ = await answers.next()
            }
            client.finish()
        }
        try await pipeline.session(prefetch: prefetch).run(stream) { event in
            seen.withLock { $0.append(event) }
            if tracker.withLock({ $0.completes(event) }) { answer.yield() }
        }
        answer.finish()
        await sending.value
        return seen.withLock { $0 }
    }

    /// Whether an event completes the answer to the command in progress.
    struct Completion {
        /// Events of the page still to come after its response.
        var remaining: Int?

        mutating func completes(_ event: SessionEvent) -> Bool {
            switch event.kind {
            case .loading, .pipeline(.started), .pipeline(.finished):
                return false
            case .response(let page):
                if page.provisional { return false }
                remaining = page.following
            case .row:
                remaining = (remaining ?? 1) - 1
            case .pipeline(.error) where (remaining ?? 0) > 0:
                remaining = (remaining ?? 1) - 1
            default:
                // A selection, a refused command or a failed page: complete at once.
                remaining = nil
                return true
            }
            if remaining == 0 {
                remaining = nil
                return true
            }
            return false
        }
    }
}
