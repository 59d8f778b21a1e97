/// Helpers the test targets share (no tests here).
import Synchronization

/// Runs `operation` in a task of its own and returns its result, or nil when it has not
/// finished within `guardTime`.
///
/// The guard only keeps a regression (a hang) from hanging the whole test run: it is
/// generous, and tests assert on what happened and in which order, never on how fast. A
/// hung operation is left behind (its task cannot be joined) rather than waited for.
public func completion<T: Sendable>(
    within guardTime: Duration = .seconds(60), _ operation: @escaping @Sendable () async -> T
) async -> T? {
    let waiter = Mutex<CheckedContinuation<T?, Never>?>(nil)
    let finish: @Sendable (T?) -> Void = { value in
        waiter.withLock { $0.take() }?.resume(returning: value)
    }
    return await withCheckedContinuation { continuation in
        waiter.withLock { $0 = continuation }
        let timer = Task {
            do {
                try await Task.sleep(for: guardTime)
                finish(nil)
            } catch {
                // The operation finished first.
            }
        }
        Task {
            let value = await operation()
            timer.cancel()
            finish(value)
        }
    }
}
