import ArgumentParser
import Foundation
import ScreensPipe

#if canImport(Glibc)
    import Glibc
#endif

/// The files one command reads and writes, each by the option or setting that names it.
/// Two of them naming one file (the same path once `.`, `..` and symbolic links are
/// resolved, or the same device and inode: a hard link) would have one replace the other:
/// `--rejects` equal to `--input` replaces the input, `-o` equal to `--metrics-file` ends
/// as the metrics after "wrote 10 rows". Refused before anything is read or written.
struct FileRoles {
    /// One file a command uses.
    struct Role {
        /// What names it, for the message: `-o`, `--metrics-file`, `the pipeline file`.
        var name: String
        var path: String
    }

    private(set) var roles: [Role] = []

    /// Adds `path` as `name`; standard streams (`-`) and nil are not files.
    mutating func add(_ name: String, _ path: String?) {
        guard let path, path != "-", !path.isEmpty else { return }
        roles.append(Role(name: name, path: path))
    }

    /// Exits 2 with a message naming both roles when two name the same file.
    func refuseCollisions() throws {
        let identities = roles.map { Self.identity(of: $0.path) }
        for (index, identity) in identities.enumerated() {
            guard let identity else { continue }
            for earlier in 0..<index where identities[earlier] == identity {
                let first = roles[earlier]
                let second = roles[index]
                let same = first.path == second.path ? "'\(first.path)'" : "'\(first.path)' and '\(second.path)' (the same file)"
                Terminal.error("\(first.name) and \(second.name) both name \(same): one would replace the other; give each its own file")
                throw ExitCode(2)
            }
        }
    }

    /// What makes two paths one file.
    private enum Identity: Hashable {
        /// An existing regular file, however it is reached (symbolic or hard links).
        case file(device: UInt64, inode: UInt64)
        /// A name not created yet, in a directory that exists.
        case entry(device: UInt64, inode: UInt64, name: String)
        /// A name in a directory that does not exist either: compared as text.
        case text(String)
    }

    /// Nil for what cannot collide: devices (`/dev/null`, `/dev/stdout`), FIFOs, sockets.
    private static func identity(of path: String) -> Identity? {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFREG else { return nil }
            return .file(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let name = url.lastPathComponent
        var directory = stat()
        if stat(url.deletingLastPathComponent().path, &directory) == 0 {
            return .entry(device: UInt64(directory.st_dev), inode: UInt64(directory.st_ino), name: name)
        }
        return .text(url.resolvingSymlinksInPath().path)
    }
}

/// Writing a whole small file (metrics, a trace, a starter pipeline) atomically, with the
/// system's reason on failure ("Permission denied"), not Foundation's "NSCocoaErrorDomain
/// error 512".
enum WholeFile {
    /// Writes `bytes` to a temporary file beside `path` and renames it into place, so a
    /// reader never sees half a file. Throws the reason.
    static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { throw Failure(reason: String(cString: strerror(EISDIR))) }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var generator = SystemRandomNumberGenerator()
        let temporary = "\(directory).\(name).\(String(generator.next() as UInt64, radix: 16)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        var failure = bytes.withUnsafeBytes { writeFully(descriptor, $0).error }
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            throw Failure(reason: String(cString: strerror(failure)))
        }
    }

    struct Failure: Error {
        var reason: String
    }
}
