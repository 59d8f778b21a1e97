#if canImport(Glibc)
internal import Glibc
internal import CSystemExtras
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Where sink bytes go: standard output, a device or FIFO written in place, or a regular
/// file replaced atomically, each through one write buffer.
///
/// A regular file is written under an unpredictable temporary name in the same directory,
/// created with `O_CREAT|O_EXCL|O_NOFOLLOW` and mode 0600 (so nothing planted at that name,
/// a symlink included, is ever opened, and nobody else can read half a file), and renamed
/// over the final name only when the run completed. A run that did not complete (an error,
/// a signal, a cancellation) keeps what it wrote as `<path>.partial`, cut after the last
/// complete line, and leaves whatever was at `<path>` untouched.
///
/// A path that is not a regular file is never replaced: a character device (`/dev/null`,
/// a terminal) or a FIFO is written in place; a symbolic link, a directory, a block device
/// or a socket is refused before the run starts. Every failure names the path and the
/// system's reason (`No space left on device`).
final class OutputFile: @unchecked Sendable {  // owned by the one sink task that writes it
    private enum Target {
        case standardOutput
        /// A device or FIFO: written where it is, never renamed.
        case inPlace(path: String)
        /// A regular file (or none yet): a temporary file renamed into place at the end.
        case atomic(path: String, temporary: String, mode: mode_t)
    }

    private let descriptor: Int32
    private let target: Target
    private var buffer: [UInt8] = []
    /// Bytes written to the descriptor so far.
    private var written = 0
    /// The length of the written bytes up to and including their last newline: what a
    /// `.partial` file keeps.
    private var completeLines = 0
    /// Where the bytes not yet handed to the disk's writeback start; see ``startWriteback()``.
    private var writebackStart = 0
    /// Set by the first ``close(succeeded:)``: the descriptor's number may belong to
    /// another file of the process after that, so nothing touches it again.
    private var closed = false

    /// Writes to standard output.
    static func standardOutput() -> OutputFile {
        OutputFile(descriptor: 1, target: .standardOutput)
    }

    /// Opens `path` for a run's output: `-` is standard output; a device or FIFO is written
    /// in place; a regular file or a new name gets a temporary file beside it.
    static func file(at path: String) throws(ScreensPipeError) -> OutputFile {
        if path == "-" { return standardOutput() }
        var status = stat()
        guard lstat(path, &status) == 0 else {
            let code = errno
            guard code == ENOENT else { throw cannotWrite(path, code) }
            return try atomic(path, mode: 0o666 & ~currentUmask())
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            return try atomic(path, mode: status.st_mode & 0o777)
        case S_IFCHR, S_IFIFO:
            return try inPlace(path)
        case S_IFLNK:
            throw ScreensPipeError.configuration(
                "output \(path) is a symbolic link; it is neither followed nor replaced: give the path of its target")
        case S_IFDIR:
            throw cannotWrite(path, EISDIR)
        default:
            throw ScreensPipeError.configuration(
                "output \(path) is a block device or a socket; only files, character devices and FIFOs are written")
        }
    }

    private static func atomic(_ path: String, mode: mode_t) throws(ScreensPipeError) -> OutputFile {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var lastError: Int32 = EEXIST
        for _ in 0..<8 {
            var generator = SystemRandomNumberGenerator()
            let token = (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }.joined(separator: "")
            let temporary = "\(directory).\(name).\(token).tmp"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                return OutputFile(descriptor: descriptor, target: .atomic(path: path, temporary: temporary, mode: mode))
            }
            lastError = errno
            if lastError != EEXIST { break }
        }
        throw ScreensPipeError.configuration(
            "cannot create output file \(path) (a temporary file beside it): \(systemMessage(lastError))")
    }

    /// Re-opens `kept`, the output a `run --resume` continues (`<path>.partial`, or the
    /// temporary file a killed run left beside `path`), cut back to `length` bytes (the
    /// checkpoint: a crash may have written past it) and positioned at its end. It is
    /// finished like a new file: renamed over `path` on success, kept as `.partial` otherwise.
    static func resuming(_ path: String, kept: String, length: Int) throws(ScreensPipeError) -> OutputFile {
        var status = stat()
        let mode: mode_t =
            if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG { status.st_mode & 0o777 } else { 0o666 & ~currentUmask() }
        let descriptor = open(kept, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ScreensPipeError.configuration("cannot resume into \(kept): \(systemMessage(errno))")
        }
        let failure: String? =
            if fstat(descriptor, &status) != 0 { systemMessage(errno) }
            else if status.st_mode & S_IFMT != S_IFREG { "it is not a regular file" }
            else if Int(status.st_size) < length { "it holds \(status.st_size) bytes, fewer than the \(length) the checkpoint counted" }
            else if ftruncate(descriptor, off_t(length)) != 0 { systemMessage(errno) }
            else if lseek(descriptor, 0, SEEK_END) < 0 { systemMessage(errno) }
            else { nil }
        if let failure {
            _ = Glibc.close(descriptor)
            throw ScreensPipeError.configuration("cannot resume into \(kept): \(failure)")
        }
        let file = OutputFile(descriptor: descriptor, target: .atomic(path: path, temporary: kept, mode: mode))
        file.written = length
        file.completeLines = length
        return file
    }

    private static func inPlace(_ path: String) throws(ScreensPipeError) -> OutputFile {
        // O_NONBLOCK: opening a FIFO nobody reads would otherwise wait forever.
        let descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENXIO { throw ScreensPipeError.configuration("cannot write output \(path): the FIFO has no reader") }
            throw cannotWrite(path, code)
        }
        var status = stat()
        let kind = fstat(descriptor, &status) == 0 ? status.st_mode & S_IFMT : 0
        guard kind == S_IFCHR || kind == S_IFIFO else {
            _ = Glibc.close(descriptor)
            throw ScreensPipeError.configuration("output \(path) changed while it was opened; not written")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return OutputFile(descriptor: descriptor, target: .inPlace(path: path))
    }

    private init(descriptor: Int32, target: Target) {
        self.descriptor = descriptor
        self.target = target
        var status = stat()
        let regularFile = fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        chunkSize = regularFile ? 1 << 18 : 1 << 16
        buffer.reserveCapacity(chunkSize * 2)
    }

    /// Bytes worth one `write(2)`, and in a regular file the alignment of those writes:
    /// writers that buffer themselves hand their bytes over with ``writeChunks(from:)`` once
    /// they hold this many. Whole aligned chunks let the page cache take them in large
    /// folios: 512 MB written 64 KiB and a row at a time cost 0.30-0.34 s of system time on
    /// this project's machine (ext4), in aligned chunks of 64 KiB 0.23-0.25 s, of 256 KiB
    /// 0.18-0.20 s. A pipe or a terminal gets 64 KiB: its reader sees rows sooner.
    let chunkSize: Int

    /// The path as the user named it, or "standard output".
    var displayName: String {
        switch target {
        case .standardOutput: "standard output"
        case .inPlace(let path), .atomic(let path, _, _): path
        }
    }

    /// For a regular file: the final path and the temporary file's device and inode, which
    /// the rename keeps. An incremental run records them before the rename, so that after
    /// a crash it can tell whether the rename happened (see ``OutputIdentity``).
    var identity: OutputIdentity? {
        guard !closed, case .atomic(let path, _, _) = target else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return OutputIdentity(path: path, device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// For a regular file: the file the bytes go to until the rename (the temporary file,
    /// or the `.partial` a resumed run appends to) and its identity, which a resume
    /// checkpoint records so that `--resume` finds it again, even after a `kill -9`.
    var keptFile: (temporary: String, identity: OutputIdentity)? {
        guard !closed, case .atomic(_, let temporary, _) = target else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return (temporary, OutputIdentity(path: temporary, device: UInt64(status.st_dev), inode: UInt64(status.st_ino)))
    }

    /// Bytes handed to the file so far, buffered ones included.
    var length: Int { written + buffer.count }

    /// Flushes and syncs the bytes written so far to disk (`fsync`): what a resume
    /// checkpoint counts must be durable before the checkpoint is.
    func sync() throws(SinkFailure) {
        try flush()
        guard !closed else { throw .failed("cannot sync \(displayName): the output was already closed") }
        if fsync(descriptor) != 0 { throw .failed("cannot write \(displayName): \(Self.systemMessage(errno))") }
    }

    /// Appends bytes, writing whole chunks once the buffer holds one.
    func write(_ bytes: [UInt8]) throws(SinkFailure) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= chunkSize { try writeAlignedHead(of: &buffer) }
    }

    /// For writers that gather their own bytes: writes the head of `bytes` that ends the file
    /// at a multiple of ``chunkSize`` and leaves the rest at the start of `bytes` (in a writer
    /// that calls this as soon as it holds a chunk, less than its last line). Nothing is
    /// written while `bytes` falls short of that boundary.
    func writeChunks(from bytes: inout [UInt8]) throws(SinkFailure) {
        try flush()
        try writeAlignedHead(of: &bytes)
    }

    /// As `bytes` appended to `pending` and then ``writeChunks(from:)`` would write, but
    /// without copying `bytes` there first: `pending` and the head of `bytes` that ends the
    /// file at a chunk boundary go out in one `writev`, and only the rest of `bytes` is kept
    /// in `pending`. For a long run of lines, such as a page's rows laid out as JSON lines.
    func writeChunks(from pending: inout [UInt8], then bytes: UnsafeRawBufferPointer) throws(SinkFailure) {
        try flush()
        let gap = chunkSize &- written % chunkSize
        let total = pending.count &+ bytes.count
        let head = total >= gap ? gap &+ (total &- gap) / chunkSize &* chunkSize : 0
        guard head > pending.count else {
            pending.append(contentsOf: bytes)
            try writeAlignedHead(of: &pending)
            return
        }
        let fromBytes = head &- pending.count
        let failure = pending.withUnsafeBytes { failureWriting($0, then: UnsafeRawBufferPointer(rebasing: bytes[..<fromBytes])) }
        if let failure { throw failure }
        pending.removeAll(keepingCapacity: true)
        pending.append(contentsOf: bytes[fromBytes...])
    }

    private func writeAlignedHead(of bytes: inout [UInt8]) throws(SinkFailure) {
        // The file is written from `written` on: a resumed one may start between boundaries.
        let gap = chunkSize &- written % chunkSize
        guard bytes.count >= gap else { return }
        let head = gap &+ (bytes.count &- gap) / chunkSize &* chunkSize
        if let failure = bytes.withUnsafeBytes({ failureWriting(UnsafeRawBufferPointer(rebasing: $0[..<head])) }) { throw failure }
        bytes.removeFirst(head)
    }

    func flush() throws(SinkFailure) {
        defer { buffer.removeAll(keepingCapacity: true) }
        if let failure = buffer.withUnsafeBytes({ failureWriting($0) }) { throw failure }
    }

    /// How many written bytes are handed to the disk at a time.
    static let writebackSize = 8 << 20

    /// Starts writing the last ``writebackSize`` bytes (or more) of a file that is renamed
    /// into place to the disk, without waiting for it: the `fsync` before the rename then
    /// finds most of the file on disk already, instead of writing all of it while the run
    /// waits (for a list of 500 MB that was over a second, more than the whole run's CPU).
    /// Advice only: a failure here changes nothing, and the `fsync` still decides.
    private func startWriteback() {
        guard case .atomic = target, written - writebackStart >= Self.writebackSize else { return }
        #if canImport(Glibc)
        _ = sync_file_range(descriptor, off_t(writebackStart), off_t(written - writebackStart), UInt32(SYNC_FILE_RANGE_WRITE))
        #endif
        writebackStart = written
    }

    /// Writes all of `raw`, then all of `rest`; the failure, if any (typed throws cannot
    /// cross `withUnsafeBytes`).
    private func failureWriting(_ raw: UnsafeRawBufferPointer, then rest: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) -> SinkFailure? {
        guard !closed else { return .failed("cannot write \(displayName): the output was already closed") }
        let (offset, code) = writeFully(descriptor, raw, then: rest)
        noteWritten(raw, count: min(offset, raw.count))
        if offset > raw.count { noteWritten(rest, count: offset &- raw.count) }
        guard let code else {
            startWriteback()
            return nil
        }
        if code == EPIPE { return .closed }
        return .failed("cannot write \(displayName): \(Self.systemMessage(code))")
    }

    /// Moves the complete-lines mark past the last newline among the first `count` bytes.
    private func noteWritten(_ bytes: UnsafeRawBufferPointer, count: Int) {
        guard count > 0 else { return }
        if let newline = bytes[..<count].lastIndex(of: UInt8(ascii: "\n")) {
            completeLines = written + newline + 1
        }
        written += count
    }

    /// Flushes and finishes the output. A regular file is renamed into place when
    /// `succeeded`, else kept as `<path>.partial` with complete lines only. Returns where
    /// the data is (nil for standard output). A failure here keeps the data as `.partial`
    /// too, and the error says so.
    @discardableResult
    func close(succeeded: Bool) throws(SinkFailure) -> String? {
        guard !closed else { return nil }
        defer {
            closed = true
            if case .standardOutput = target {} else { _ = Glibc.close(descriptor) }
        }
        var flushFailure: SinkFailure?
        do throws(SinkFailure) { try flush() } catch { flushFailure = error }
        switch target {
        case .standardOutput:
            if let flushFailure { throw flushFailure }
            return nil
        case .inPlace(let path):
            if let flushFailure { throw flushFailure }
            return path
        case .atomic(let path, let temporary, let mode):
            var failure = flushFailure.map(Self.message)
            if failure == nil, succeeded {
                failure = finishInPlace(path: path, temporary: temporary, mode: mode)
                if failure == nil { return path }
            }
            let kept = keepPartial(path: path, temporary: temporary)
            if let failure { throw .failed("\(failure); kept what was written as \(kept)") }
            return kept
        }
    }

    /// Syncs, sets the final mode and renames the temporary file over `path`; returns why
    /// that failed, or nil.
    private func finishInPlace(path: String, temporary: String, mode: mode_t) -> String? {
        if fsync(descriptor) != 0 { return "cannot write \(path): \(Self.systemMessage(errno))" }
        if fchmod(descriptor, mode) != 0 { return "cannot set the mode of \(path): \(Self.systemMessage(errno))" }
        // The path was checked when the run started; a link, device or directory put there
        // since is not replaced either.
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            return "output \(path) is no longer a regular file, so it is not replaced"
        }
        if rename(temporary, path) != 0 { return "cannot rename the output into \(path): \(Self.systemMessage(errno))" }
        return nil
    }

    /// Cuts the temporary file after its last complete line and renames it to
    /// `<path>.partial` (unless something that is not a regular file is there); returns
    /// where the data is.
    private func keepPartial(path: String, temporary: String) -> String {
        _ = ftruncate(descriptor, off_t(completeLines))
        let partial = path + ".partial"
        var status = stat()
        if lstat(partial, &status) == 0, status.st_mode & S_IFMT != S_IFREG { return temporary }
        return rename(temporary, partial) == 0 ? partial : temporary
    }

    private static func message(_ failure: SinkFailure) -> String {
        switch failure {
        case .closed: "the reader closed the output"
        case .failed(let message): message
        }
    }

    private static func cannotWrite(_ path: String, _ code: Int32) -> ScreensPipeError {
        ScreensPipeError.configuration("cannot write output \(path): \(systemMessage(code))")
    }

    static func systemMessage(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// The process umask, read without changing it (`umask(2)` can only set it, and setting
    /// it briefly would race with other threads creating files).
    private static func currentUmask() -> mode_t {
        if let status = try? String(contentsOfProcFile: "/proc/self/status"),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let value = mode_t(line.dropFirst(6).trimmingCharacters(in: " \t"), radix: 8)
        {
            return value
        }
        return 0o022
    }
}

extension String {
    /// A small file of `/proc`, read with plain `read(2)` (its size is not known up front).
    fileprivate init(contentsOfProcFile path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SinkFailure.failed(path) }
        defer { _ = Glibc.close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 16 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        self = String(decoding: bytes, as: UTF8.self)
    }

    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String { String(self).trimmingCharacters(in: set) }
}

/// Writes all of `raw` to `descriptor`, calling again after a short or interrupted write:
/// how many bytes went out, and the `errno` that stopped it (nil when all did).
package func writeFully(_ descriptor: Int32, _ raw: UnsafeRawBufferPointer) -> (written: Int, error: Int32?) {
    writeFully(descriptor, raw, then: UnsafeRawBufferPointer(start: nil, count: 0))
}

/// Writes all of `first`, then all of `second`, to `descriptor` (one `writev` for both
/// while both have bytes left), calling again after a short or interrupted write: how many
/// bytes of the two went out, and the `errno` that stopped it (nil when all did).
func writeFully(_ descriptor: Int32, _ first: UnsafeRawBufferPointer, then second: UnsafeRawBufferPointer) -> (written: Int, error: Int32?) {
    var offset = 0
    let total = first.count + second.count
    var vectors = [iovec](repeating: iovec(), count: 2)
    while offset < total {
        var used = 0
        for (buffer, start) in [(first, 0), (second, first.count)] where !buffer.isEmpty && offset < start + buffer.count {
            let skipped = max(0, offset - start)
            vectors[used] = iovec(iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress! + skipped), iov_len: buffer.count - skipped)
            used += 1
        }
        let count = writev(descriptor, vectors, Int32(used))
        if count < 0 {
            if errno == EINTR { continue }
            return (offset, errno)
        }
        offset += count
    }
    return (offset, nil)
}
