import Foundation
import Testing

@testable import ScreensPipeCore

/// How an output file takes the bytes its writers gather: whole chunks that end the file at
/// a multiple of the chunk size (the page cache takes aligned writes in large folios), the
/// rest left with the writer.
@Suite("output files: writes in whole aligned chunks")
struct OutputFileChunkTests {
    /// Lines of `width` bytes each (the last byte a newline), `count` of them, numbered.
    private static func lines(_ count: Int, width: Int = 100, from first: Int = 0) -> [UInt8] {
        (first..<(first + count)).flatMap { number -> [UInt8] in
            let text = "{\"row\":\(number)}"
            return Array(text.utf8) + Array(repeating: UInt8(ascii: " "), count: width - 1 - text.utf8.count) + [UInt8(ascii: "\n")]
        }
    }

    private static func size(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    @Test("a regular file gets whole chunks; what follows the last boundary stays with the writer, and nothing short of one is written")
    func regularFileChunks() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("out.jsonl")
        let output = try OutputFile.file(at: path)
        let chunk = output.chunkSize
        #expect(chunk == 1 << 18)
        let temporary = try #require(output.keptFile?.temporary)

        let all = Self.lines(chunk / 100 * 3)
        var gathered = Array(all[..<(chunk - 1)])
        try output.writeChunks(from: &gathered)
        #expect(try Self.size(temporary) == 0)
        #expect(gathered.count == chunk - 1)

        gathered = Array(all[..<(2 * chunk + 150)])
        try output.writeChunks(from: &gathered)
        #expect(try Self.size(temporary) == 2 * chunk)
        #expect(gathered == Array(all[(2 * chunk)..<(2 * chunk + 150)]))

        gathered.append(contentsOf: all[(2 * chunk + 150)...])
        try output.write(gathered)
        _ = try output.close(succeeded: true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(all))
    }

    @Test("a run of lines after gathered bytes: up to the last boundary written from where the run is, the rest kept with the writer")
    func runAfterGatheredBytes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("out.jsonl")
        let output = try OutputFile.file(at: path)
        let chunk = output.chunkSize
        let temporary = try #require(output.keptFile?.temporary)
        let all = Self.lines(chunk / 100 * 4)

        // Gathered bytes and a run that together fall short of a boundary: nothing written.
        var pending = Array(all[..<1000])
        try all.withUnsafeBytes { try output.writeChunks(from: &pending, then: UnsafeRawBufferPointer(rebasing: $0[1000..<5000])) }
        #expect(try Self.size(temporary) == 0)
        #expect(pending == Array(all[..<5000]))

        // A run past two boundaries: both chunks written, the bytes after the second kept.
        try all.withUnsafeBytes { try output.writeChunks(from: &pending, then: UnsafeRawBufferPointer(rebasing: $0[5000..<(2 * chunk + 300)])) }
        #expect(try Self.size(temporary) == 2 * chunk)
        #expect(pending == Array(all[(2 * chunk)..<(2 * chunk + 300)]))

        // Nothing gathered, a run that starts between boundaries: realigned at the next one.
        try output.write(pending)
        pending = []
        try all.withUnsafeBytes { try output.writeChunks(from: &pending, then: UnsafeRawBufferPointer(rebasing: $0[(2 * chunk + 300)...])) }
        #expect(try Self.size(temporary) == 3 * chunk)
        try output.write(pending)
        _ = try output.close(succeeded: true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(all))
    }

    @Test("a run cut short by a failed run keeps its complete lines in the .partial file")
    func runKeepsCompleteLines() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("out.jsonl")
        let output = try OutputFile.file(at: path)
        let chunk = output.chunkSize
        let all = Self.lines(chunk / 100 * 2)
        var pending = Array(all[..<250])
        try all.withUnsafeBytes { try output.writeChunks(from: &pending, then: UnsafeRawBufferPointer(rebasing: $0[250...])) }
        let kept = try #require(try output.close(succeeded: false))
        // The chunk boundary falls inside a line: the file keeps the lines before it.
        #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) == Data(all[..<(chunk / 100 * 100)]))
    }

    @Test("a resumed file that ends between boundaries is first written up to the next one")
    func resumedFileRealigns() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("out.jsonl")
        let kept = directory.file("out.jsonl.partial")
        let before = Self.lines(10)
        try Data(before).write(to: URL(fileURLWithPath: kept))
        let output = try OutputFile.resuming(path, kept: kept, length: before.count)
        let chunk = output.chunkSize
        let after = Self.lines(chunk / 100 + 20, from: 10)
        var gathered = after
        try output.writeChunks(from: &gathered)
        #expect(try Self.size(kept) == chunk)
        #expect(gathered == Array(after[(chunk - before.count)...]))
        try output.write(gathered)
        _ = try output.close(succeeded: true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(before + after))
    }

    @Test("a FIFO gets chunks of 64 KiB, so that its reader sees rows sooner")
    func fifoChunks() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("rows.fifo")
        #expect(mkfifo(path, 0o600) == 0)
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let output = try OutputFile.file(at: path)
        #expect(output.chunkSize == 1 << 16)
        _ = try output.close(succeeded: true)
    }
}
