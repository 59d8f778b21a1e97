import Foundation

/// One thread of its own that runs the jobs of the tasks that prefer it
/// (`withTaskExecutorPreference`).
///
/// The cooperative pool has one thread per core. A test that blocks on a socket, or loads
/// and parses a whole sandbox portal synchronously, holds one of them and stalls every other
/// test of the process; run on a dedicated thread, it holds that thread and nothing else.
public final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    /// Guarded by `condition`.
    private var stopping = false

    /// Starts the thread.
    public init(name: String) {
        // The thread keeps the executor alive until it has run its last job.
        let thread = Thread { [self] in runJobs() }
        thread.name = name
        thread.start()
    }

    /// Runs `job` on the thread, after the jobs before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread end once it has run every job it was given.
    public func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty, !stopping { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
