import Dispatch
import ScreensPipe

#if canImport(Glibc)
import Glibc
#endif

/// The session's commands, one per line of a file descriptor (stdin), read when the session
/// asks for the next one: a client that writes faster than the session answers waits in
/// the pipe, not in memory.
///
/// Reads block, so they happen on a Dispatch queue of their own, never on the cooperative
/// thread pool. A line is at most ``SessionRequest/maximumLineLength`` bytes: the rest of a
/// longer line is skipped without being kept, and the line is answered with an error.
struct CommandLines: AsyncSequence, Sendable {
    typealias Element = SessionRequest
    typealias Failure = Never

    private let reader: LineReader

    init(descriptor: Int32) {
        reader = LineReader(descriptor: descriptor, limit: SessionRequest.maximumLineLength)
    }

    func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

    struct Iterator: AsyncIteratorProtocol {
        let reader: LineReader

        mutating func next() async -> SessionRequest? {
            let reader = self.reader
            return await withCheckedContinuation { continuation in
                reader.queue.async { continuation.resume(returning: reader.nextRequest()) }
            }
        }
    }
}

/// Splits a descriptor's bytes into command lines, keeping at most `limit` bytes of one line.
/// Only ever used on ``queue``.
final class LineReader: @unchecked Sendable {
    let queue = DispatchQueue(label: "screens-pipe.session.commands")
    private let descriptor: Int32
    private let limit: Int
    private var buffer: [UInt8] = []
    /// Where the unread part of ``buffer`` starts.
    private var start = 0
    /// Where the search for a newline resumes (everything before it has none).
    private var scanned = 0
    /// Bytes of the current line skipped because it is too long; nil when not skipping.
    private var skipped: Int?
    private var ended = false

    init(descriptor: Int32, limit: Int) {
        self.descriptor = descriptor
        self.limit = limit
    }

    /// The next command, or nil at the end of input. Blank lines are passed over.
    func nextRequest() -> SessionRequest? {
        while true {
            if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = buffer[start..<newline]
                start = newline + 1
                scanned = start
                if let skippedBytes = skipped {
                    skipped = nil
                    return .overlong(bytes: skippedBytes + line.count)
                }
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                return SessionRequest(line: line)
            }
            scanned = buffer.count
            if buffer.count - start > limit {
                skipped = (skipped ?? 0) + buffer.count - start
                start = buffer.count
            }
            if start > 0 {
                buffer.removeFirst(start)
                scanned -= start
                start = 0
            }
            if ended {
                if let skippedBytes = skipped {
                    skipped = nil
                    return .overlong(bytes: skippedBytes + buffer.count)
                }
                guard !buffer.isEmpty else { return nil }
                let line = buffer
                buffer = []
                scanned = 0
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
                return SessionRequest(line: line)
            }
            fill()
        }
    }

    private func fill() {
        let chunk = 1 << 16
        let oldCount = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        let count = buffer.withUnsafeMutableBytes { bytes in
            while true {
                let result = read(descriptor, bytes.baseAddress! + oldCount, chunk)
                if result < 0 && errno == EINTR { continue }
                return result
            }
        }
        buffer.removeLast(chunk - max(0, count))
        if count <= 0 { ended = true }
    }
}
