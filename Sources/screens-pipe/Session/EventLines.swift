import Dispatch
import ScreensBus
import ScreensPipe

#if canImport(Glibc)
import Glibc
#endif

/// Writes session events as JSON lines to a file descriptor (stdout), each line as soon as
/// it exists (a client waits for `loading` to draw its "in progress" cell). Writes block
/// while the reader is slow, so they happen on a Dispatch queue of their own.
struct EventLines: Sendable {
    /// The reader closed its end: the session stops.
    struct Closed: Error {}

    private let descriptor: Int32
    private let queue = DispatchQueue(label: "screens-pipe.session.events")

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func write(_ event: SessionEvent) async throws(Closed) {
        var writer = JSONWriter()
        writer.write(event.envelope)
        writer.writeRaw("\n")
        let bytes = writer.bytes
        let descriptor = self.descriptor
        let written = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Self.writeAll(bytes, to: descriptor)) }
        }
        if !written { throw Closed() }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let result = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if result < 0 && errno == EINTR { continue }
                if result <= 0 { return false }
                offset += result
            }
            return true
        }
    }
}
