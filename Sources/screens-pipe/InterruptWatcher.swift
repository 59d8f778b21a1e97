#if canImport(Glibc)
import Glibc
#endif
import Foundation
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

/// Watches SIGINT, SIGTERM and SIGHUP and calls `onSignal` with the signal and how many stop
/// signals arrived so far (1 for the first), on a thread of its own.
///
/// The handler is installed synchronously with `signal(2)` and only writes the signal's
/// number to a pipe (async-signal-safe); a dedicated thread reads the pipe. Dispatch signal
/// sources were not enough: they need the signal ignored first and are armed later, and a
/// signal that came in between was lost.
final class InterruptWatcher: Sendable {
    private let tally = SignalTally()

    init(onSignal: @escaping @Sendable (StopSignal, Int) -> Void) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        signalPipeWriteEnd = ends[1]
        let readEnd = ends[0]
        let tally = self.tally
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return }
                guard let stopSignal = StopSignal.all.first(where: { $0.number == Int32(byte) }) else { continue }
                onSignal(stopSignal, tally.record(stopSignal))
            }
        }
        for stopSignal in StopSignal.all {
            signal(stopSignal.number) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd, &byte, 1)
            }
        }
    }

    /// The first stop signal received, if any.
    var received: StopSignal? { tally.first }

    /// Gives the signals their default action back.
    func stop() {
        for stopSignal in StopSignal.all { signal(stopSignal.number, SIG_DFL) }
    }
}

/// The stop signals received so far.
final class SignalTally: Sendable {
    private let state = Mutex<(first: StopSignal?, count: Int)>((nil, 0))

    /// Notes `signal`; returns how many stop signals arrived, this one included.
    func record(_ signal: StopSignal) -> Int {
        state.withLock { state in
            if state.first == nil { state.first = signal }
            state.count += 1
            return state.count
        }
    }

    var first: StopSignal? { state.withLock { $0.first } }
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
