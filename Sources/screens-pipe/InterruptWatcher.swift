#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import ScreensPipe
import Synchronization

/// A signal that stops a run, with its name and the exit status it leads to (128 + number).
struct StopSignal: Sendable {
    let number: Int32
    let name: String

    var exitCode: Int32 { 128 + number }

    static let all = [
        StopSignal(number: SIGINT, name: "SIGINT"), StopSignal(number: SIGTERM, name: "SIGTERM"),
        StopSignal(number: SIGHUP, name: "SIGHUP"),
    ]
}

/// The write end of the pipe the signal handler writes to; set before a handler is installed.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Watches SIGINT, SIGTERM and SIGHUP from the moment it is created, and calls the action
/// given to ``handle(_:)`` with each signal and how many stop signals arrived so far (1 for
/// the first), on a thread of its own; signals that came before the action are replayed.
///
/// The handler is installed synchronously with `signal(2)` and only writes the signal's
/// number to a pipe (async-signal-safe); a dedicated thread reads the pipe. Dispatch signal
/// sources were not enough: they need the signal ignored first and are armed later, and a
/// signal that came in between was lost.
final class InterruptWatcher: Sendable {
    private struct State {
        var action: (@Sendable (StopSignal, Int) -> Void)?
        var received: [StopSignal] = []
    }

    private let state = Mutex(State())

    init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        signalPipeWriteEnd = ends[1]
        let readEnd = ends[0]
        Thread.detachNewThread { [self] in
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return }
                guard let stopSignal = StopSignal.all.first(where: { $0.number == Int32(byte) }) else { continue }
                let (action, number) = state.withLock { state in
                    state.received.append(stopSignal)
                    return (state.action, state.received.count)
                }
                action?(stopSignal, number)
            }
        }
        for stopSignal in StopSignal.all {
            signal(stopSignal.number) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd, &byte, 1)
            }
        }
    }

    /// Acts on every stop signal from now on, after replaying those received so far.
    func handle(_ action: @escaping @Sendable (StopSignal, Int) -> Void) {
        let earlier = state.withLock { state in
            state.action = action
            return state.received
        }
        for (offset, stopSignal) in earlier.enumerated() { action(stopSignal, offset + 1) }
    }

    /// The first stop signal received, if any.
    var received: StopSignal? { state.withLock { $0.received.first } }

    /// Gives the signals their default action back.
    func stop() {
        for stopSignal in StopSignal.all { signal(stopSignal.number, SIG_DFL) }
    }
}

/// Cancels the run's task once it exists (a second signal may come before).
final class RunCanceller: Sendable {
    private let state = Mutex<(cancel: (@Sendable () -> Void)?, requested: Bool)>((nil, false))

    func set(_ cancel: @escaping @Sendable () -> Void) {
        let requested = state.withLock { state in
            state.cancel = cancel
            return state.requested
        }
        if requested { cancel() }
    }

    func cancel() {
        let cancel = state.withLock { state in
            state.requested = true
            return state.cancel
        }
        cancel?()
    }
}

extension InterruptWatcher {
    /// Runs `work` in a task that a first SIGINT or SIGTERM cancels (it stops as a run
    /// stops: what was done stays done) and a second ends at once; then waits for
    /// `draining`, the task that prints the work's events, and gives the signals back.
    func runCancellable<Value: Sendable>(
        draining: Task<Void, Never>, _ work: @escaping @Sendable () async throws(ScreensPipeError) -> Value
    ) async -> Result<Value, ScreensPipeError> {
        let task = Task { () -> Result<Value, ScreensPipeError> in
            do throws(ScreensPipeError) {
                return .success(try await work())
            } catch {
                return .failure(error)
            }
        }
        handle { signal, count in
            if count == 1 { task.cancel() } else { _exit(signal.exitCode) }
        }
        let result = await task.value
        await draining.value
        stop()
        return result
    }

    /// Prints `error` and gives the exit code that ends the command: the stop signal's when
    /// one came (the failure is then its consequence), else the error's.
    func exitCode(reporting error: ScreensPipeError) -> ExitCode {
        Terminal.error(error.description)
        return ExitCode(received?.exitCode ?? error.exitCode)
    }
}
