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
