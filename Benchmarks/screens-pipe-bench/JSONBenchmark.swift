import Foundation
import ScreensBus

/// `json`: parse and write throughput of ScreensBus's JSON core on a bookmark page,
/// against Foundation's JSONSerialization parsing the same bytes.
enum JSONBenchmark {
    struct Mismatch: Error, CustomStringConvertible {
        var description: String
    }

    static func run(_ arguments: [String]) throws {
        let options = try BenchmarkOptions(
            arguments, valued: ["--rows", "--iterations", "--page"], flags: ["--no-baseline", "--parse-only", "--check-only"])
        let rows = try options.int("--rows", default: 100_000)
        let iterations = try options.int("--iterations", default: 5)
        if let path = options.value("--page") {
            try checkPage(path, iterations: iterations)
            return
        }

        let document = BookmarkDocument.make(rows: rows)
        let bytes = document.jsonBytes
        print("json: \(rows) bookmark rows, \(bytes.count) bytes, best of \(iterations)")

        // Check before timing: the parse must give the document back and the writer its bytes.
        let parsed = try JSONValue(parsing: bytes)
        guard parsed == document else { throw Mismatch(description: "parsed document differs from the original") }
        guard parsed.jsonBytes == bytes else { throw Mismatch(description: "written bytes differ from the input") }

        var sink = 0
        // What a page whose rows pass through costs: every row checked, its text kept, no tree.
        guard let (_, texts) = try JSONValue.parseArrayKeepingTexts(bytes, skippingElements: true), texts.count == rows else {
            throw Mismatch(description: "the checked page does not keep one text per row")
        }
        let checkSeconds = try fastestSeconds(iterations: iterations) {
            sink &+= try JSONValue.parseArrayKeepingTexts(bytes, skippingElements: true)?.texts.count ?? 0
        }
        let checkRate = megabytesPerSecond(bytes: bytes.count, seconds: checkSeconds)
        let plain = BookmarkDocument.makePlain(rows: rows).jsonBytes
        let plainSeconds = try fastestSeconds(iterations: iterations) {
            sink &+= try JSONValue.parseArrayKeepingTexts(plain, skippingElements: true)?.texts.count ?? 0
        }
        let plainRate = megabytesPerSecond(bytes: plain.count, seconds: plainSeconds)
        if options.has("--check-only") {
            print("json.check  \(checkRate) MB/s  (plain rows \(plainRate) MB/s)")
            return
        }
        let parseSeconds = try fastestSeconds(iterations: iterations) {
            let value = try JSONValue(parsing: bytes)
            sink &+= value.arrayValue?.count ?? 0
        }
        if options.has("--parse-only") {
            // For profilers: nothing but parsing after the checks above.
            print("json.parse  \(megabytesPerSecond(bytes: bytes.count, seconds: parseSeconds)) MB/s")
            return
        }
        var writer = JSONWriter(reservingCapacity: bytes.count)
        let writeSeconds = fastestSeconds(iterations: iterations) {
            writer.reset()
            writer.write(parsed)
            sink &+= writer.bytes.count
        }
        let freshWriteSeconds = fastestSeconds(iterations: iterations) {
            sink &+= parsed.jsonBytes.count
        }

        let parseRate = megabytesPerSecond(bytes: bytes.count, seconds: parseSeconds)
        let writeRate = megabytesPerSecond(bytes: bytes.count, seconds: writeSeconds)
        let freshWriteRate = megabytesPerSecond(bytes: bytes.count, seconds: freshWriteSeconds)
        if options.has("--no-baseline") {
            print("json.parse  \(parseRate) MB/s")
        } else {
            let data = Data(bytes)
            let baselineSeconds = try fastestSeconds(iterations: max(1, iterations / 2)) {
                let object = try JSONSerialization.jsonObject(with: data)
                sink &+= (object as? [Any])?.count ?? 0
            }
            let baselineRate = megabytesPerSecond(bytes: bytes.count, seconds: baselineSeconds)
            let ratio = String((baselineSeconds / parseSeconds * 10).rounded() / 10)
            print("json.parse  \(parseRate) MB/s  (JSONSerialization \(baselineRate) MB/s, \(ratio)x)")
        }
        print("json.check  \(checkRate) MB/s  (rows checked and kept as texts, as they pass through; plain rows \(plainRate) MB/s)")
        print("json.write  \(writeRate) MB/s  (reused writer; jsonBytes \(freshWriteRate) MB/s)")
        if sink == 42 { print("") } // keeps the measured work observable
    }

    /// `--page FILE`: the check of a page as a server sent it (a JSON array of rows, compact
    /// or pretty-printed), its rows kept as compact texts, as a pass-through run checks each
    /// page: for profiling the row-shape path on real formatting.
    private static func checkPage(_ path: String, iterations: Int) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw Mismatch(description: "cannot read \(path)") }
        let bytes = [UInt8](data)
        guard let (_, texts) = try JSONValue.parseArrayKeepingTexts(bytes, skippingElements: true) else {
            throw Mismatch(description: "\(path) is not a JSON array")
        }
        var sink = 0
        let seconds = try fastestSeconds(iterations: iterations) {
            sink &+= try JSONValue.parseArrayKeepingTexts(bytes, skippingElements: true)?.texts.count ?? 0
        }
        print("json.check-page  \(megabytesPerSecond(bytes: bytes.count, seconds: seconds)) MB/s  (\(texts.count) rows, \(bytes.count) bytes)")
        if sink == 42 { print("") }
    }
}
