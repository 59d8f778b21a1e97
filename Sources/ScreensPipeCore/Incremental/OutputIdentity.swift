#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A written output file by its final path, device and inode: what a state committed just
/// before the output's rename remembers, so that the next run can tell whether the rename
/// happened before a crash (the file at `path` is this inode) or not.
struct OutputIdentity: Sendable, Hashable {
    var path: String
    var device: UInt64
    var inode: UInt64

    /// Whether the file now at `path` is this one: the rename into place happened.
    var isInPlace: Bool {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
