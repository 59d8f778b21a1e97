internal import Foundation
package import Logging
import Synchronization

extension RunLockHolder: CustomStringConvertible {
    /// `pid 4242 on build-7 since 2026-11-26T14:00:00Z`; control characters in a host name
    /// read from a lock file or a database are escaped, never printed raw.
    public var description: String {
        "pid \(pid) on \(sanitizedServerText(host, limit: 100)) since \(ISO8601DateFormatter().string(from: since))"
    }

    /// This process, now.
    static func current() -> RunLockHolder {
        RunLockHolder(pid: getpid(), host: ProcessInfo.processInfo.hostName, since: Date())
    }
}

/// One rule for runs that must not interleave (docs/architecture.md, "Running twice at once").
///
/// Some work is read-decide-commit over state another run of the same pipeline shares: a
/// write looks its keys up and then creates the entries; an incremental run reads the cursor
/// and commits the next one; a run with an output file leaves a resume checkpoint; a load
/// stores a list's pages in the SQLite cache as one snapshot. Two runs that interleave those
/// steps create every row twice, deliver the same rows twice, or leave pages of two loads.
/// Each such run holds a ``RunLock`` on its ``Scope`` for as long as it works: a second run
/// waits up to `cache.lock-wait` for it, then fails with a `locked` error (exit 75) that
/// names the holder.
///
/// The lock lives where the shared state lives: a file lock (`flock`) in the SQLite cache's
/// directory, or a session-level advisory lock in the PostgreSQL database a `cache: url:`
/// names, so replicas on several machines that share it take turns too. The kernel drops a
/// file lock and PostgreSQL an advisory lock when their process or connection goes, so a
/// holder that dies (`kill -9` included) releases it at once.
public final class RunLock: Sendable {
    /// What a lock serialises; two runs with equal scopes take turns.
    public struct Scope: Sendable, Hashable, CustomStringConvertible {
        /// The identity two runs compare (no secret: built from names, redacted URLs and
        /// cache keys, which hold secrets as digests).
        let identity: String
        /// What a person reads in messages.
        public let description: String

        /// Writes of `pipeline` to `target` (server and site, never credentials).
        static func write(pipeline: String, target: String) -> Scope {
            Scope(identity: "write\u{0}\(pipeline)\u{0}\(target)", description: "the writes of '\(pipeline)' to \(target)")
        }

        /// The list state (incremental cursor, resume checkpoint) of `key`.
        static func listState(_ key: StateKey) -> Scope {
            Scope(identity: "list\u{0}\(key.pipeline)\u{0}\(key.list)", description: "the list state of '\(key.pipeline)'")
        }

        /// A load of the list stored under the SQLite cache key `key`.
        package static func cacheRefresh(key: String) -> Scope {
            Scope(identity: "cache\u{0}\(key)", description: "the cached pages of this list")
        }

        /// The name lock files and advisory locks are keyed by: a digest, so no scope text
        /// reaches a file name.
        package var digest: String {
            SHA256.digest(Array(identity.utf8)).prefix(16).map { byte in
                let hex = String(byte, radix: 16)
                return byte < 16 ? "0" + hex : hex
            }.joined()
        }
    }

    /// Where a lock lives.
    package enum Place: Sendable {
        /// Lock files under this directory (the SQLite cache's).
        case directory(String)
        /// Advisory locks in this database.
        case postgres(PostgresTarget)

        /// Where the shared state of `cache` lives: its PostgreSQL database, else the
        /// directory of its SQLite file (the default one without a `cache:` section).
        static func of(_ cache: CacheSpec?, environment: [String: String]) throws(ScreensPipeError) -> Place {
            if let target = cache?.postgres { return .postgres(target.resolvingPassword(environment: environment)) }
            let path: String
            if let configured = cache?.path { path = configured } else { path = try CacheLocation.runPath(environment: environment) }
            return .directory(CacheLocation.parent(of: path))
        }
    }

    /// How long a run waits for a lock when the pipeline does not say (`cache.lock-wait`):
    /// long enough for an overlapping cron run to finish a typical list, short enough that a
    /// wedged one is noticed.
    public static let defaultWait: Duration = .seconds(60)

    private enum Hold: Sendable {
        case file(FileRunLock)
        case shared(any SharedRunLock)
        case released
    }

    /// The scope this lock holds.
    public let scope: Scope
    /// Whether another run held the lock when this one asked: whatever it guards may have
    /// changed since this run last looked.
    public let waited: Bool
    private let hold: Mutex<Hold>

    private init(scope: Scope, waited: Bool, hold: Hold) {
        self.scope = scope
        self.waited = waited
        self.hold = Mutex(hold)
    }

    /// Takes `scope`'s lock at `place`, waiting up to `wait` for another holder.
    ///
    /// Waiting suspends the task (it polls with jittered sleeps), so it holds no thread of
    /// the cooperative pool. The first wait is logged once with the holder, so a run that
    /// seems stuck says why.
    package static func acquire(_ scope: Scope, at place: Place, wait: Duration, logger: Logger) async throws(ScreensPipeError) -> RunLock {
        let deadline = ContinuousClock.now + wait
        var announced = false
        var delay = Duration.milliseconds(20)
        let attempt: Hold
        switch place {
        case .directory(let directory):
            attempt = .file(try FileRunLock.open(scope, in: directory))
        case .postgres(let target):
            guard let lock = try await BackendRegistry.storage(.postgres).openLock(scope, target: target) else {
                throw ScreensPipeError.configuration("the PostgreSQL store registered no run locks")
            }
            attempt = .shared(lock)
        }
        func abandon() async {
            switch attempt {
            case .file(let file): file.close()
            case .shared(let lock): await lock.release()
            case .released: break
            }
        }
        while true {
            let taken: Bool
            do throws(ScreensPipeError) {
                switch attempt {
                case .file(let file): taken = try file.tryLock()
                case .shared(let lock): taken = try await lock.tryLock()
                case .released: taken = false
                }
            } catch {
                await abandon()
                throw error
            }
            if taken {
                let holder = RunLockHolder.current()
                switch attempt {
                case .file(let file): file.record(holder)
                case .shared(let lock): await lock.record(holder)
                case .released: break
                }
                return RunLock(scope: scope, waited: announced, hold: attempt)
            }
            let holder: RunLockHolder? =
                switch attempt {
                case .file(let file): file.holder()
                case .shared(let lock): await lock.holder()
                case .released: nil
                }
            guard ContinuousClock.now < deadline, !Task.isCancelled else {
                await abandon()
                if Task.isCancelled { throw ScreensPipeError.cancelled("cancelled while waiting for the lock of \(scope)") }
                throw ScreensPipeError.locked(scope: scope, holder: holder, waited: wait, place: place)
            }
            if !announced {
                announced = true
                // Info, not a warning: taking turns is the normal course of overlapping runs
                // (-v shows it); a wait that runs out is the error that names the holder.
                logger.info("waiting up to \(wait) for the lock of \(scope), held by \(holder.map(\.description) ?? "another run")")
            }
            // Jitter keeps several waiters from polling in step.
            let jittered = delay + .milliseconds(Int.random(in: 0...10))
            try? await Task.sleep(for: min(jittered, max(.zero, deadline - ContinuousClock.now)))
            delay = min(delay * 2, .milliseconds(250))
        }
    }

    /// Lets go of the lock; idempotent. Dropping the last reference without calling this
    /// releases a file lock too (the descriptor is closed).
    public func release() async {
        let held = hold.withLock { hold -> Hold in
            defer { hold = .released }
            return hold
        }
        switch held {
        case .file(let file): file.close()
        case .shared(let lock): await lock.release()
        case .released: break
        }
    }

    deinit {
        if case .file(let file) = hold.withLock({ $0 }) { file.close() }
    }
}

extension ScreensPipeError {
    /// Another run held `scope`'s lock for all of `waited`.
    static func locked(scope: RunLock.Scope, holder: RunLockHolder?, waited: Duration, place: RunLock.Place) -> ScreensPipeError {
        let where_: String =
            switch place {
            case .directory(let directory): "lock file in \(directory)"
            case .postgres(let target): "advisory lock in \(target)"
            }
        return ScreensPipeError(
            .locked,
            "another run holds the lock of \(scope) (\(holder.map(\.description) ?? "its holder has not said who it is")); waited \(waited), the pipeline's cache.lock-wait (\(where_)). Try again when it has finished, or raise cache.lock-wait to wait longer")
    }
}
