import Foundation
import TestSupport
import ScreensBus

#if canImport(Glibc)
import Glibc
#endif

/// `screens-pipe session FILE` started with pipes on stdin and stdout, driven the way a
/// client drives it: write a command, read the events that answer it.
final class SessionProcess: @unchecked Sendable {  // the pipes are only used by the test's task
    let process = ChildProcess()
    private let input = Pipe()
    private let stderrPipe = Pipe()
    private let lines: AsyncStream<String>
    private var iterator: AsyncStream<String>.Iterator
    private let exited = AsyncStream<Int32>.makeStream()
    /// Every event read so far, in order.
    private(set) var transcript: [JSONValue] = []
    /// Every command line sent so far, in order.
    private(set) var sent: [String] = []

    /// Starts the session in `directory` (the package's root when nil: the samples' paths).
    init(_ arguments: [String], environment: [String: String] = [:], directory: URL? = nil) throws {
        process.executableURL = URL(fileURLWithPath: CommandRunner.binary)
        process.arguments = ["session"] + arguments
        process.currentDirectoryURL = directory ?? CommandRunner.packageRoot
        // A cache of the session's own: a session test counts the requests its pages cause.
        var overrides = ["SCREENS_PIPE_CACHE_DIR": FileManager.default.temporaryDirectory
            .appendingPathComponent("screens-pipe-session-\(UUID().uuidString)").path]
        for (key, value) in environment { overrides[key] = value }
        process.environment = CommandRunner.childEnvironment(overrides)
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = stderrPipe
        let continuation = exited.continuation
        process.terminationHandler = { finished in
            continuation.yield(finished.terminationStatus)
            continuation.finish()
        }
        let (lines, sink) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        iterator = lines.makeAsyncIterator()
        try process.run()
        // Lines are read on a thread of their own: a blocking read must not hold a thread of
        // the cooperative pool.
        let handle = output.fileHandleForReading
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    sink.yield(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            if !pending.isEmpty { sink.yield(String(decoding: pending, as: UTF8.self)) }
            sink.finish()
        }
    }

    /// Writes one command line.
    func send(_ line: String) {
        sent.append(line)
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Writes raw bytes (no newline added).
    func sendRaw(_ bytes: Data) {
        input.fileHandleForWriting.write(bytes)
    }

    /// Closes stdin: the end of the commands.
    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// The next event; nil when stdout ended.
    func nextEvent() async throws -> JSONValue? {
        guard let line = await iterator.next() else { return nil }
        let event = try JSONValue(parsing: line)
        transcript.append(event)
        return event
    }

    /// Reads the events that answer one command: up to a selection, an error that is not a
    /// row's, a `finished`, an `edited` (after an upload's `progress`), or a final page
    /// response and the events it says follow.
    func answer() async throws -> [JSONValue] {
        var events: [JSONValue] = []
        var remaining: Int64?
        while let event = try await nextEvent() {
            events.append(event)
            switch event["event"]?.stringValue {
            case "loading", "started", "progress":
                continue
            case "response":
                if event["provisional"] == true { continue }
                remaining = event["following"]?.int64Value ?? 0
            case "row":
                remaining = (remaining ?? 1) - 1
            case "error" where (remaining ?? 0) > 0:
                remaining = (remaining ?? 1) - 1
            default:
                return events
            }
            if remaining == 0 { return events }
        }
        return events
    }

    /// Sends `line` and reads its answer.
    func ask(_ line: String) async throws -> [JSONValue] {
        send(line)
        return try await answer()
    }

    /// Reads what is left on stdout, then waits for the exit.
    func finish() async throws -> (status: Int32, rest: [JSONValue], stderr: String) {
        var rest: [JSONValue] = []
        while let event = try await nextEvent() { rest.append(event) }
        let errorText = await CommandRunner.readToEnd(stderrPipe.fileHandleForReading)
        var status: Int32 = -1
        for await code in exited.stream { status = code }
        return (status, rest, String(decoding: errorText, as: UTF8.self))
    }
}

extension [JSONValue] {
    /// The `event` name of each event.
    var names: [String] { compactMap { $0["event"]?.stringValue } }
}
