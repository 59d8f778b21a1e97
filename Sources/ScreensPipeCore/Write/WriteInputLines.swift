internal import Foundation
import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// One line of a write's input, numbered from 1.
struct WriteInputLine: Sendable {
    var number: Int
    /// The line without its `\n` (and `\r`), at most ``WriteInputLines/maximumLineLength`` bytes.
    var bytes: [UInt8]
    /// The line was longer than the limit; `bytes` holds its beginning only.
    var truncated: Bool
}

/// JSON lines read from a file descriptor on a thread of their own, so a slow or blocking
/// pipe never holds a thread of the cooperative pool.
///
/// At most ``maximumLineLength`` bytes of a line are kept: a longer line is a reject, and the
/// rest of it is skipped as it streams by. At most ``window`` lines wait for the writer, so
/// memory stays bounded whatever the input's size.
final class WriteInputLines: Sendable {
    /// The longest line kept (1 MiB): a bookmark is a few hundred bytes.
    static let maximumLineLength = 1 << 20
    /// Lines read ahead of the writer: at most 32 MiB of input waits, whatever the file's size.
    static let window = 32

    let lines: AsyncStream<WriteInputLine>
    private let room = DispatchSemaphore(value: WriteInputLines.window)
    private let stopped = StopFlag()
    private let failure = ReadFailure()

    /// Why reading stopped before the end of the input (`read` failed: a directory, an I/O
    /// error), or nil when the input was read to its end. Read it once ``lines`` has ended.
    var readFailure: String? { failure.reason }

    /// Starts reading `descriptor` (closed when `closeWhenDone`) until its end.
    init(descriptor: Int32, closeWhenDone: Bool) {
        let (stream, continuation) = AsyncStream<WriteInputLine>.makeStream()
        lines = stream
        let room = self.room
        let stopped = self.stopped
        let failure = self.failure
        let thread = Thread {
            var reader = LineSplitter()
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            readLoop: while !stopped.isSet {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    // The lines so far are not the whole input: the write must fail, not
                    // end as if the input had ended here.
                    failure.reason = String(cString: strerror(code))
                    break
                }
                if count == 0 { break }
                for line in reader.feed(buffer[0..<count]) {
                    room.wait()
                    if stopped.isSet { break readLoop }
                    continuation.yield(line)
                }
            }
            if failure.reason == nil, let last = reader.finish(), !stopped.isSet {
                room.wait()
                continuation.yield(last)
            }
            if closeWhenDone { close(descriptor) }
            continuation.finish()
        }
        thread.name = "screens-pipe-write-input"
        thread.start()
    }

    /// The writer took a line: one more may be read ahead.
    func consumed() { room.signal() }

    /// Stops reading (the run ended early); the thread finishes at its next line.
    func stop() {
        stopped.set()
        for _ in 0..<Self.window { room.signal() }
    }
}

/// Splits bytes into numbered lines, keeping at most the limit of each.
struct LineSplitter {
    private var current: [UInt8] = []
    private var truncated = false
    private var number = 0
    private var sawBytes = false

    mutating func feed(_ bytes: ArraySlice<UInt8>) -> [WriteInputLine] {
        var lines: [WriteInputLine] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline ?? bytes.endIndex
            append(bytes[start..<end])
            sawBytes = true
            if newline != nil { lines.append(take()) }
            start = newline.map { $0 + 1 } ?? bytes.endIndex
        }
        return lines
    }

    /// The last line when the input does not end with a newline.
    mutating func finish() -> WriteInputLine? {
        guard sawBytes, !current.isEmpty || truncated else { return nil }
        return take()
    }

    private mutating func append(_ part: ArraySlice<UInt8>) {
        let room = WriteInputLines.maximumLineLength - current.count
        if part.count > room {
            current += part.prefix(max(0, room))
            truncated = true
        } else {
            current += part
        }
    }

    private mutating func take() -> WriteInputLine {
        number += 1
        if current.last == UInt8(ascii: "\r") { current.removeLast() }
        let line = WriteInputLine(number: number, bytes: current, truncated: truncated)
        current = []
        truncated = false
        sawBytes = false
        return line
    }
}

/// Set once when the writer stops reading; checked by the reading thread.
private final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}

/// Why the reading thread stopped before the input's end; set by that thread.
private final class ReadFailure: Sendable {
    private let value = Mutex<String?>(nil)
    var reason: String? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
