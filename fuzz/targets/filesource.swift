// libFuzzer target: the file source's streaming reader (FileRowIndex and JSONFileScanner) on
// any file. It must accept exactly the files the whole-document reader accepts, give the
// same rows in order, and keep for each row the same compact text whether the rows are parsed
// or only checked; each text must read back as its row and hold no line break.
// @testable: the readers are package-internal; scripts/fuzz.sh builds ScreensPipe with -enable-testing.
@testable import ScreensPipe
import ScreensBus
import Foundation

private let path = FileManager.default.temporaryDirectory.appendingPathComponent("screens-pipe-fuzz-\(getpid()).json").path

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFileSource(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { fatalError("cannot write \(path)") }
    let whole = try? FileSource.rows(in: bytes, records: nil, path: path, page: 0)
    var streamed: [JSONValue]?
    if let index = try? FileRowIndex.build(path: path, records: nil).get() {
        // In pages, as a run reads them: the texts of a page are that page's rows only.
        let pageSize = max(1, index.rowCount / 3)
        var rows: [JSONValue] = []
        var texts: [[UInt8]] = []
        var checkedTexts: [[UInt8]] = []
        var failed = false
        var start = 0
        while start < index.rowCount, !failed {
            let range = start..<min(start + pageSize, index.rowCount)
            let parsed = try? index.rows(range, path: path)
            let only = try? index.rows(range, path: path, checkingOnly: true)
            guard (parsed == nil) == (only == nil) else { fatalError("checking rows \(range) disagrees with parsing them: \(bytes)") }
            if let parsed, let only {
                rows += parsed.rows
                texts += (0..<parsed.texts.count).map { Array(parsed.texts[$0] ?? []) }
                checkedTexts += (0..<only.texts.count).map { Array(only.texts[$0] ?? []) }
            } else {
                failed = true
            }
            start = range.upperBound
        }
        if !failed {
            guard texts == checkedTexts else { fatalError("checked rows keep other texts than parsed ones: \(bytes)") }
            for (row, text) in zip(rows, texts) {
                guard !text.contains(0x0A), !text.contains(0x0D), (try? JSONValue(parsing: text)) == row else {
                    fatalError("a row's kept text does not read back as the row: \(bytes)")
                }
            }
            streamed = rows
        }
    }
    switch (whole, streamed) {
    case (nil, nil): break
    case (let whole?, let streamed?) where whole == streamed: break
    default: fatalError("the streaming reader and the whole-file reader disagree: \(bytes)")
    }
    return 0
}
