import Foundation
import ScreensBus
import Testing

/// The file source streams: the binary reads a file of hundreds of megabytes with a peak
/// resident size far below the file's size (reading it whole took 3.7 times the file).
@Suite("run: file source memory", .serialized)
struct FileSourceMemoryRunTests {
    /// Rows of the generated file, about 250 MB of JSON in all.
    static let rows = 700_000
    /// The peak RSS allowed: about half the file. A reader that holds the file (or its
    /// parsed rows) needs several times the file, so the bound is far from both sides.
    static let boundMiB = 128

    /// One row like the sandbox's bookmarks, about 360 bytes with its padding.
    static func row(_ index: Int) -> String {
        let description = String(repeating: "row \(index) of the generated file, ", count: 5)
        return #"{"entryId":\#(9_007_199_254_740_993 + index),"groupId":20143,"folderId":1000000,"name":"bookmark \#(index)","url":"https://example.com/\#(index)","description":"\#(description)","createDate":1700000000000,"visits":\#(index % 97),"price":\#(index).50}"#
    }

    /// Writes the rows as a JSON array or as JSON lines, a megabyte at a time.
    static func writeFile(at path: String, lines: Bool) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var buffer = lines ? "" : "[\n"
        for index in 0..<rows {
            buffer += row(index)
            buffer += lines ? "\n" : (index == rows - 1 ? "\n]\n" : ",\n")
            if buffer.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(buffer.utf8))
                buffer = ""
            }
        }
        try handle.write(contentsOf: Data(buffer.utf8))
    }

    /// Runs `command` through a small Python parent that reports the child's peak RSS (KiB)
    /// from wait4: a child's ru_maxrss starts from its parent's peak at fork on Linux, so
    /// this test process (large) must not be the direct parent.
    static func peakRSS(pipeline: String, output: String, directory: URL) async throws -> (status: Int32, kib: Int, stderr: String) {
        let measure = """
            import os, sys
            pid = os.fork()
            if pid == 0:
                os.execv(sys.argv[1], sys.argv[1:])
            _, status, usage = os.wait4(pid, 0)
            print(usage.ru_maxrss)
            sys.exit(os.waitstatus_to_exitcode(status) & 0xff)
            """
        let result = try await CommandRunner.shell(
            #"exec python3 -c "$MEASURE" "$SP" run "$PIPELINE" --progress never -o "$OUTPUT""#,
            environment: ["MEASURE": measure, "PIPELINE": pipeline, "OUTPUT": output], directory: directory)
        return (result.status, Int(result.stdoutLines.last ?? "") ?? -1, result.stderr)
    }

    /// A JSON array, the layout a whole-file reader struggled with most; JSON lines take the
    /// same path through the scanner (and `make bench` measures both).
    @Test("a 250 MB JSON array streams with a peak RSS under 128 MiB, every row once, in order")
    func flatMemory() async throws {
        let lines = false
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent(lines ? "rows.jsonl" : "rows.json")
        try Self.writeFile(at: data.path, lines: lines)
        let size = try FileManager.default.attributesOfItem(atPath: data.path)[.size] as? Int ?? 0
        #expect(size > 240_000_000)
        let pipeline = directory.appendingPathComponent("big.yaml")
        try """
            name: big-file
            source:
              type: file
              path: \(data.lastPathComponent)
              pagination: { first-page-size: 1000, page-size: 1000 }
            sink: { type: stdout, format: items }
            """.write(to: pipeline, atomically: true, encoding: .utf8)
        let output = directory.appendingPathComponent("out.jsonl")
        let (status, kib, stderr) = try await Self.peakRSS(pipeline: pipeline.path, output: output.path, directory: directory)
        #expect(status == 0, "stderr: \(stderr)")
        #expect(kib > 0 && kib < Self.boundMiB << 10, "peak RSS \(kib >> 10) MiB for a \(size >> 20) MiB file")

        // Every row once, in order, values unchanged (the price keeps its text "N.50").
        let handle = try FileHandle(forReadingFrom: output)
        defer { try? handle.close() }
        var count = 0
        var pending = Data()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            pending += chunk
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                if count % 99_991 == 0 || count == Self.rows - 1 { #expect(line == Self.row(count)) }
                count += 1
                pending = pending[(newline + 1)...]
            }
        }
        #expect(count == Self.rows)
    }
}
