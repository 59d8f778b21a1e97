#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Where a follow writes its changes.
///
/// The follow commits a batch (with the new snapshot) before it writes it, and clears it
/// once ``write(_:)`` returned, so after a crash the batch is written again: an output that
/// can say which changes it already holds (``lastSequence()``) gets exactly the missing ones.
public protocol ChangeOutput: Sendable {
    /// The sequence number of the last change the output durably holds (0 when none); nil
    /// when it cannot tell (a stream), and then a batch interrupted by a crash is written
    /// again whole.
    func lastSequence() async throws(ScreensPipeError) -> Int64?
    /// Writes `changes` (in order) and returns once they are durable.
    func write(_ changes: [ListChange]) async throws(ScreensPipeError)
}

/// Change lines on a file descriptor: standard output, or a file appended to.
///
/// A file is opened with `O_APPEND` (never truncated, never replaced: a follow's output
/// grows for as long as it follows) and synced after every batch. Its last line tells which
/// change it holds last: a line cut short by a crash is cut off before anything is appended.
public final class ChangeLinesOutput: ChangeOutput, @unchecked Sendable {  // written by the one follow task
    private let descriptor: Int32
    private let path: String?
    /// The pipeline named in each line when the lines are `changed` events (`--events`):
    /// ``ListChange/eventLine(pipeline:)``; nil writes ``ListChange/line``.
    private var eventsOf: String?

    /// Standard output; `changed` event lines of `pipeline` when `eventsOf` names it.
    public static func standardOutput(eventsOf pipeline: String? = nil) -> ChangeLinesOutput {
        let output = ChangeLinesOutput(descriptor: 1, path: nil)
        output.eventsOf = pipeline
        return output
    }

    /// The file at `path`, created (mode 0600) when missing and appended to; `changed`
    /// event lines of `pipeline` when `eventsOf` names it.
    public static func appending(to path: String, eventsOf pipeline: String?) throws(ScreensPipeError) -> ChangeLinesOutput {
        let output = try appending(to: path)
        output.eventsOf = pipeline
        return output
    }

    /// The file at `path`, created (mode 0600) when missing and appended to.
    public static func appending(to path: String) throws(ScreensPipeError) -> ChangeLinesOutput {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw ScreensPipeError.sink("cannot open \(path): \(OutputFile.systemMessage(errno))") }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw ScreensPipeError.sink("cannot follow into \(path): not a regular file")
        }
        return ChangeLinesOutput(descriptor: descriptor, path: path)
    }

    private init(descriptor: Int32, path: String?) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        if path != nil { close(descriptor) }
    }

    public func lastSequence() async throws(ScreensPipeError) -> Int64? {
        guard let path else { return nil }
        let (complete, lastLine) = try Self.tail(of: path)
        // A line a crash cut short holds no change yet: cut it off so the next one starts a line.
        if ftruncate(descriptor, off_t(complete)) != 0 { throw ScreensPipeError.sink("cannot cut \(path) back to its last complete line: \(OutputFile.systemMessage(errno))") }
        guard let lastLine else { return 0 }
        guard let change = ListChange(line: lastLine) else {
            throw ScreensPipeError.sink("\(path) does not end with a change line: a follow appends only to its own output")
        }
        return change.sequence
    }

    public func write(_ changes: [ListChange]) async throws(ScreensPipeError) {
        var bytes: [UInt8] = []
        for change in changes {
            bytes.append(contentsOf: (eventsOf.map(change.eventLine(pipeline:)) ?? change.line).utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        var offset = 0
        let failure: Int32? = bytes.withUnsafeBytes { raw -> Int32? in
            while offset < raw.count {
                let count = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += count
            }
            return nil
        }
        let name = path ?? "standard output"
        if let failure {
            if failure == EPIPE { throw ScreensPipeError.cancelled("the reader of \(name) went away") }
            throw ScreensPipeError.sink("cannot write \(name): \(OutputFile.systemMessage(failure))")
        }
        if path != nil, fsync(descriptor) != 0 { throw ScreensPipeError.sink("cannot sync \(name): \(OutputFile.systemMessage(errno))") }
    }

    /// The length of `path` up to its last newline, and that last complete line.
    private static func tail(of path: String) throws(ScreensPipeError) -> (Int, String?) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ScreensPipeError.sink("cannot read \(path): \(OutputFile.systemMessage(errno))") }
        defer { close(descriptor) }
        let size = Int(lseek(descriptor, 0, SEEK_END))
        // Read backwards a block at a time until two newlines (or the start) bound the last line.
        var end = size
        var collected: [UInt8] = []
        var newlines: [Int] = []
        let block = 1 << 16
        // A change line is a row and its envelope: bounded so a file that is not ours cannot make this read all of it.
        let limit = 64 << 20
        while end > 0, newlines.count < 2, size - end < limit {
            let start = max(0, end - block)
            var chunk = [UInt8](repeating: 0, count: end - start)
            let read = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, end - start, off_t(start)) }
            guard read == end - start else { throw ScreensPipeError.sink("cannot read \(path): \(OutputFile.systemMessage(errno))") }
            // Newlines of the new block go before those found already, which move by its length.
            let found = chunk.indices.filter { chunk[$0] == UInt8(ascii: "\n") }
            newlines = Array((found + newlines.map { $0 + chunk.count }).suffix(2))
            collected = chunk + collected
            end = start
        }
        guard let last = newlines.last else { return (0, nil) }
        let complete = end + last + 1
        let lineStart = newlines.count == 2 ? newlines[0] + 1 : 0
        guard newlines.count == 2 || end == 0 else { throw ScreensPipeError.sink("\(path) ends with a line longer than 64 MiB: not a follow's output") }
        return (complete, String(decoding: collected[lineStart..<last], as: UTF8.self))
    }
}
