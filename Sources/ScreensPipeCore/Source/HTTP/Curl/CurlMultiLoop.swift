internal import CCurl
internal import Foundation
import Synchronization

/// One libcurl multi handle driven by one dedicated thread.
///
/// Tasks hand transfers and cancellations to the thread through `inbox` and wake it with
/// `curl_multi_wakeup` (the only multi call that is safe from another thread). The thread
/// adds and removes easy handles, runs `curl_multi_perform`, resumes the continuations of
/// finished transfers and sleeps in `curl_multi_poll`. The multi handle keeps the
/// connection cache, so sequential and concurrent requests to one host reuse connections.
///
/// No task ever blocks on the thread: ``shutdown()`` suspends until the thread, on its way
/// out, resumes the continuations of everyone who asked it to stop, and ``requestShutdown()``
/// (for `deinit`) only asks. The thread holds the loop until it exits, so the multi handle
/// is cleaned up after its last use, whoever drops the last reference.
final class CurlMultiLoop: @unchecked Sendable {
    /// Tunables of the multi handle.
    struct Limits: Sendable {
        var maxConnectionsPerHost: Int
        var maxCachedConnections: Int
    }

    /// The loop's life: running until asked to stop, then stopped for good.
    private enum State {
        case running
        /// Asked to stop; the thread resumes `waiters` when it has exited its loop.
        case stopping(waiters: [CheckedContinuation<Void, Never>])
        case stopped

        var isRunning: Bool {
            if case .running = self { return true }
            return false
        }
    }

    /// What tasks hand to the loop thread.
    private struct Inbox {
        var state: State = .running
        var additions: [CurlTransfer] = []
        var cancellations: [CurlTransfer] = []
    }

    // `multi` is used only by the loop thread, except for curl_multi_wakeup.
    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())

    /// The transfers on the multi handle, by easy handle. Loop thread only.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    init(limits: Limits) {
        ensureCurlGlobalInit()
        guard let multi = curl_multi_init() else {
            preconditionFailure("libcurl could not create a multi handle (out of memory)")
        }
        self.multi = multi
        _ = screens_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, limits.maxConnectionsPerHost))
        _ = screens_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, limits.maxCachedConnections))
        _ = screens_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))

        // The thread keeps the loop alive until it has left `run()`.
        let thread = Thread { [self] in
            run()
            let waiters = inbox.withLock { inbox -> [CheckedContinuation<Void, Never>] in
                defer { inbox.state = .stopped }
                guard case .stopping(let waiters) = inbox.state else { return [] }
                return waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        thread.name = "screens-pipe.curl"
        thread.start()
    }

    deinit {
        curl_multi_cleanup(multi)
    }

    // MARK: Called from tasks

    /// Hands `transfer` to the loop; the loop resumes `continuation` when it finishes.
    func submit(_ transfer: CurlTransfer, continuation: CurlTransfer.Continuation) {
        // Nobody else reads the continuation until the phase says `submitted`.
        transfer.continuation = continuation
        enum Outcome { case accepted, cancelled, shutDown }
        // The phase change and the append happen under the inbox lock together, so a
        // cancellation that sees `submitted` is always queued after the addition.
        let outcome = inbox.withLock { inbox -> Outcome in
            let running = inbox.state.isRunning
            let cancelledEarly = transfer.phase.withLock { phase -> Bool in
                guard phase == .created else { return true }
                if running { phase = .submitted }
                return false
            }
            if cancelledEarly { return .cancelled }
            guard running else { return .shutDown }
            inbox.additions.append(transfer)
            return .accepted
        }
        switch outcome {
        case .accepted:
            curl_multi_wakeup(multi)
        case .cancelled:
            transfer.finish(.failure(transfer.cancellationError))
        case .shutDown:
            transfer.finish(
                .failure(HTTPError(.cancelled, "the HTTP client is shut down", request: transfer.requestDescription)))
        }
    }

    /// Cancels `transfer`: at once if it is not submitted yet, else through the loop.
    func cancel(_ transfer: CurlTransfer) {
        let submitted = transfer.phase.withLock { phase -> Bool in
            switch phase {
            case .created:
                phase = .cancelledBeforeSubmission
                return false
            case .submitted:
                return true
            case .cancelledBeforeSubmission, .finished:
                return false
            }
        }
        guard submitted else { return }
        inbox.withLock { $0.cancellations.append(transfer) }
        curl_multi_wakeup(multi)
    }

    /// Cancels every transfer, stops the loop and returns once its thread has left the
    /// loop (suspending, never blocking a thread of the pool). Idempotent; concurrent
    /// callers all return after the thread is done.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            enum Action { case wake, wait, resume }
            let action = inbox.withLock { inbox -> Action in
                switch inbox.state {
                case .running:
                    inbox.state = .stopping(waiters: [continuation])
                    return .wake
                case .stopping(var waiters):
                    waiters.append(continuation)
                    inbox.state = .stopping(waiters: waiters)
                    return .wait
                case .stopped:
                    return .resume
                }
            }
            switch action {
            case .wake: curl_multi_wakeup(multi)
            case .wait: break
            case .resume: continuation.resume()
            }
        }
    }

    /// Cancels every transfer and asks the loop to stop, without waiting for its thread
    /// (for `deinit`). Idempotent.
    func requestShutdown() {
        let wake = inbox.withLock { inbox -> Bool in
            guard inbox.state.isRunning else { return false }
            inbox.state = .stopping(waiters: [])
            return true
        }
        if wake { curl_multi_wakeup(multi) }
    }

    // MARK: Loop thread

    private func run() {
        while true {
            let (additions, cancellations, stopping) = inbox.withLock { inbox in
                defer {
                    inbox.additions.removeAll()
                    inbox.cancellations.removeAll()
                }
                return (inbox.additions, inbox.cancellations, !inbox.state.isRunning)
            }
            for transfer in additions { add(transfer) }
            for transfer in cancellations { remove(transfer, finishingWith: .failure(transfer.cancellationError)) }
            if stopping { break }

            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            collectFinishedTransfers()
            // Sleeps until a socket is ready, libcurl's next timeout, a wakeup, or 1 s.
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        for transfer in Array(active.values) {
            remove(transfer, finishingWith: .failure(HTTPError(.cancelled, "the HTTP client shut down", request: transfer.requestDescription)))
        }
    }

    private func add(_ transfer: CurlTransfer) {
        let code = curl_multi_add_handle(multi, transfer.handle)
        guard code == CURLM_OK else {
            let text = curl_multi_strerror(code).map { String(cString: $0) } ?? "code \(code.rawValue)"
            transfer.finish(.failure(HTTPError(.other, "libcurl refused the transfer: \(text)", request: transfer.requestDescription)))
            return
        }
        active[transfer.handle] = transfer
    }

    /// Takes `transfer` off the multi handle (if it is still there) and resumes its task.
    private func remove(_ transfer: CurlTransfer, finishingWith result: Result<HTTPResponse, HTTPError>) {
        guard active.removeValue(forKey: transfer.handle) != nil else { return }  // already finished
        curl_multi_remove_handle(multi, transfer.handle)
        transfer.finish(result)
    }

    private func collectFinishedTransfers() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                let transfer = active[handle]
            else { continue }
            let code = message.pointee.data.result
            // Read the result before removal: the handle's info stays valid either way, but
            // the message does not survive curl_multi_remove_handle.
            remove(transfer, finishingWith: transfer.result(for: code))
        }
    }
}
