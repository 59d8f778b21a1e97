import Foundation

/// One thread of its own that runs the jobs of the tasks that prefer it.
///
/// ``TestHTTPClient`` blocks on POSIX sockets. Run on the cooperative pool (one thread per
/// core), one blocked test would stall every other test of the process; ``withSandbox(_:_:)``
/// runs its body here instead, so a blocking receive holds this thread and nothing else.
final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    /// Guarded by `condition`.
    private var stopping = false

    init(name: String) {
        // The thread keeps the executor alive until it has run its last job.
        let thread = Thread { [self] in runJobs() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread end once it has run every job it was given.
    func stop() {
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
