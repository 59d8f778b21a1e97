import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process for the tests, started with `posix_spawn`, with the part of
/// `Foundation.Process`'s interface the tests use (so a test reads the same either way).
///
/// Why not `Process`: on Linux, `Process.run()` (swift-corelibs-foundation up to at least
/// Swift 6.3.1) finds the descriptors to close in the child by reading `/proc/self/fd` and
/// copies each `dirent`'s whole 256-byte name field, past the end of short records; when a
/// record ends glibc's read buffer and the next page is unmapped, the test process crashes
/// in `memmove` (swiftlang/swift-corelibs-foundation#5472). A suite that starts hundreds of
/// children met it in about one full run in five. Here the child closes every descriptor
/// above 2 with `posix_spawn_file_actions_addclosefrom_np`, which reads nothing.
///
/// The child starts with every signal at its default action and none blocked, whatever the
/// spawning thread had. Its exit is awaited on a thread of its own (`waitpid`), never on a
/// thread of the cooperative pool.
public final class ChildProcess: @unchecked Sendable {
    /// The program; its path is also the child's `argv[0]`.
    public var executableURL: URL?
    public var arguments: [String] = []
    /// The whole environment of the child; nil passes this process's.
    public var environment: [String: String]?
    public var currentDirectoryURL: URL?
    /// A `Pipe` (the child gets its read end), a `FileHandle` (`FileHandle.nullDevice` is
    /// `/dev/null`), or nil to share this process's standard input.
    public var standardInput: Any?
    /// A `Pipe` (the child gets its write end), a `FileHandle`, or nil to share this process's.
    public var standardOutput: Any?
    /// As ``standardOutput``.
    public var standardError: Any?
    /// Called once, on the waiting thread, after the child exited.
    public var terminationHandler: (@Sendable (ChildProcess) -> Void)?

    private let lock = NSCondition()
    private var pid: pid_t = 0
    private var exitStatus: Int32?

    public init() {}

    /// The child's process id, 0 before ``run()``.
    public var processIdentifier: Int32 { lock.withLock { pid } }

    /// Whether the child was started and has not exited yet.
    public var isRunning: Bool { lock.withLock { pid != 0 && exitStatus == nil } }

    /// The exit code, or the number of the signal that ended the child (as `Process` says).
    public var terminationStatus: Int32 { lock.withLock { exitStatus ?? -1 } }

    /// Starts the child; throws the `posix_spawn` error when it cannot.
    public func run() throws {
        guard let executable = executableURL?.path else { throw POSIXError(.ENOENT) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [FileHandle] = []
        for (target, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            switch stream {
            case let pipe as Pipe:
                let (childEnd, parentCopy) =
                    target == 0
                    ? (pipe.fileHandleForReading, pipe.fileHandleForReading) : (pipe.fileHandleForWriting, pipe.fileHandleForWriting)
                posix_spawn_file_actions_adddup2(&actions, childEnd.fileDescriptor, target)
                parentEnds.append(parentCopy)
            case let handle as FileHandle where handle.fileDescriptor < 0 || handle === FileHandle.nullDevice:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case let handle as FileHandle:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            default:
                break
            }
        }
        guard let addCloseFrom = SpawnExtensions.addCloseFrom, let addChdir = SpawnExtensions.addChdir else {
            throw POSIXError(.ENOSYS)
        }
        _ = addCloseFrom(&actions, 3)
        if let directory = currentDirectoryURL?.path {
            _ = addChdir(&actions, directory)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number: Int32 in 1..<32 where number != SIGKILL && number != SIGSTOP { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = [executable] + arguments
        let environment = self.environment ?? ProcessInfo.processInfo.environment
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var child: pid_t = 0
        let code = withCStrings(argv) { argvPointers in
            withCStrings(envp) { envpPointers in
                posix_spawn(&child, executable, &actions, &attributes, argvPointers, envpPointers)
            }
        }
        guard code == 0 else { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO) }
        // The child has its copies: the parent's ends would keep a reader from seeing EOF.
        for handle in parentEnds { try? handle.close() }
        lock.withLock { pid = child }

        let thread = Thread { [self, child] in
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
            let signal = status & 0x7f
            let result = signal == 0 ? (status >> 8) & 0xff : signal
            lock.withLock {
                exitStatus = result
                lock.broadcast()
            }
            terminationHandler?(self)
        }
        thread.name = "child-\(child)"
        thread.start()
    }

    /// Blocks until the child exited (not on the cooperative pool: tests call it from a
    /// Dispatch thread or before any await).
    public func waitUntilExit() {
        lock.withLock {
            while exitStatus == nil { lock.wait() }
        }
    }

    /// Sends SIGTERM.
    public func terminate() {
        let child = processIdentifier
        if child > 0 { kill(child, SIGTERM) }
    }
}

/// glibc's `posix_spawn` extensions (2.29 and 2.34), which the Glibc module does not import
/// (they need `_GNU_SOURCE`): looked up once by name.
private enum SpawnExtensions {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32

    static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: AddCloseFrom.self)
    }
    static let addChdir: AddChdir? = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: AddChdir.self)
    }
}

/// Calls `body` with a NULL-terminated array of C strings that live for the call.
private func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
    let pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    return body(pointers + [nil])
}
