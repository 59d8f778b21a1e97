#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Where sink bytes go: a file descriptor with a write buffer.
///
/// A file destination is written under a temporary name in the same directory and renamed
/// over the final name only when the run completed, so a reader never sees half a file.
/// A run that fails keeps what it wrote as `<path>.partial` (no data is lost).
final class OutputFile: @unchecked Sendable {  // owned by the one sink task that writes it
    /// Why writing stopped.
    enum WriteFailure: Error {
        /// The reader went away (EPIPE): `| head` closed the pipe.
        case closed
        case failed(String)
    }

    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let finalPath: String?
    private let temporaryPath: String?
    private var buffer: [UInt8] = []

    /// Writes to standard output.
    static func standardOutput() -> OutputFile {
        OutputFile(descriptor: 1, owns: false, finalPath: nil, temporaryPath: nil)
    }

    /// Creates `<dir>/.<name>.<pid>.tmp` for `path`.
    static func file(atomicallyAt path: String) throws(ScreensPipeError) -> OutputFile {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(directory.isEmpty ? "/" : directory)/.\(name).\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if descriptor < 0 {
            throw ScreensPipeError(.configuration, "cannot create output file \(path): \(String(cString: strerror(errno)))")
        }
        return OutputFile(descriptor: descriptor, owns: true, finalPath: path, temporaryPath: temporary)
    }

    private init(descriptor: Int32, owns: Bool, finalPath: String?, temporaryPath: String?) {
        self.descriptor = descriptor
        self.ownsDescriptor = owns
        self.finalPath = finalPath
        self.temporaryPath = temporaryPath
        buffer.reserveCapacity(Self.chunkSize * 2)
    }

    /// Bytes worth one `write(2)`: writers that buffer themselves hand over chunks this size.
    static let chunkSize = 1 << 16

    /// Appends bytes, flushing when the buffer is full. A chunk that fills a buffer on its
    /// own goes straight to the descriptor instead of being copied into ours first.
    func write(_ bytes: [UInt8]) throws(WriteFailure) {
        if buffer.isEmpty, bytes.count >= Self.chunkSize {
            try writeAll(bytes)
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.chunkSize { try flush() }
    }

    func flush() throws(WriteFailure) {
        defer { buffer.removeAll(keepingCapacity: true) }
        try writeAll(buffer)
    }

    private func writeAll(_ bytes: [UInt8]) throws(WriteFailure) {
        var offset = 0
        let total = bytes.count
        let failure: WriteFailure? = bytes.withUnsafeBytes { raw -> WriteFailure? in
            while offset < total {
                let written = Glibc.write(descriptor, raw.baseAddress! + offset, total - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    if errno == EPIPE { return .closed }
                    return .failed(String(cString: strerror(errno)))
                }
                offset += written
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Flushes and, for a file, renames it into place (`succeeded`) or keeps it as `.partial`.
    /// Returns the path the data ended up at, for files.
    @discardableResult
    func close(succeeded: Bool) throws(WriteFailure) -> String? {
        defer { if ownsDescriptor { _ = Glibc.close(descriptor) } }
        try flush()
        guard let finalPath, let temporaryPath else { return nil }
        if succeeded {
            if fsync(descriptor) != 0 { throw .failed("fsync \(finalPath): \(String(cString: strerror(errno)))") }
            if rename(temporaryPath, finalPath) != 0 {
                throw .failed("cannot rename output into \(finalPath): \(String(cString: strerror(errno)))")
            }
            return finalPath
        }
        let partial = finalPath + ".partial"
        if rename(temporaryPath, partial) != 0 { return temporaryPath }
        return partial
    }
}
