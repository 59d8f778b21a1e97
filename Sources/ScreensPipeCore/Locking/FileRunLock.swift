internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A run lock as a file under the SQLite cache's directory: `locks/<scope digest>.lock`,
/// held with `flock`.
///
/// `flock` belongs to the open file description, so the kernel drops it when the holder's
/// process ends in any way, `kill -9` included, and two descriptors in one process exclude
/// each other as two processes do. The file is never removed: a waiter that opened it before
/// a removal would lock an inode nobody else can see. Its content, written by the holder,
/// says who holds it (a JSON ``RunLockHolder``); it is only information, read bounded.
struct FileRunLock: Sendable {
    /// The most bytes read of a lock file's content; a holder writes about a hundred.
    static let maximumContentSize = 4096

    let descriptor: Int32
    let path: String

    /// Opens (creating) `scope`'s lock file under `directory`, without taking the lock.
    static func open(_ scope: RunLock.Scope, in directory: String) throws(ScreensPipeError) -> FileRunLock {
        let locks = CacheLocation.join(directory, "locks")
        try CacheLocation.prepareDirectory(locks, owned: false)
        let path = CacheLocation.join(locks, scope.digest + ".lock")
        // O_NOFOLLOW: a symlink planted in place of the lock file is refused, not followed.
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw ScreensPipeError.cache("cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        return FileRunLock(descriptor: descriptor, path: path)
    }

    /// Takes the lock if no other descriptor holds it.
    func tryLock() throws(ScreensPipeError) -> Bool {
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            switch errno {
            case EWOULDBLOCK: return false
            case EINTR: continue
            default: throw ScreensPipeError.cache("cannot lock \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Replaces the file's content with `holder`. A failure only loses the information.
    func record(_ holder: RunLockHolder) {
        guard let data = try? JSONEncoder().encode(holder) else { return }
        _ = ftruncate(descriptor, 0)
        _ = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    /// The holder the file names, when it names one.
    func holder() -> RunLockHolder? {
        var buffer = [UInt8](repeating: 0, count: Self.maximumContentSize)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return try? JSONDecoder().decode(RunLockHolder.self, from: Data(buffer[..<count]))
    }

    /// Closes the descriptor, which releases the lock if it was held.
    func close() {
        _ = Glibc.close(descriptor)
    }
}
