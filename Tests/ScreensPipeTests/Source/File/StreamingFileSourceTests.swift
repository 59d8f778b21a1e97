import Foundation
import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The file source streams: each page is read from the file on its own, and what comes out
/// is exactly what parsing the whole file at once gives (the in-memory reader pipeline
/// tests still use), rows, number texts and errors alike.
@Suite("file source: streaming")
struct StreamingFileSourceTests {
    /// Writes `bytes` to a fresh temporary file and returns its path.
    private static func file(_ bytes: [UInt8], name: String = "rows.json") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("streaming-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    private static func file(_ text: String, name: String = "rows.json") throws -> String { try file(Array(text.utf8), name: name) }

    /// The error checking `bytes` alone as one JSON document gives; nil when they are one.
    private static func errorAlone(_ bytes: [UInt8]) -> JSONParseError? {
        bytes.withUnsafeBytes { buffer -> JSONParseError? in
            do throws(JSONParseError) {
                _ = try JSONValue.validateFindingWhitespace(buffer)
                return nil
            } catch { return error }
        }
    }

    /// Every page of the file through the source, in order, until a page past the row count.
    private static func readAll(
        _ path: String, records: String? = nil, firstPageSize: Int = 3, pageSize: Int = 2
    ) async throws(ScreensPipeError) -> (rows: [JSONValue], rowCount: Int?) {
        let source = try FileSource(spec: FileSourceSpec(path: path, records: records))
        let pagination = PaginationSpec(firstPageSize: firstPageSize, pageSize: pageSize, prefetch: 1)
        var rows: [JSONValue] = []
        var rowCount: Int?
        var index = 0
        while true {
            let page = try await source.fetch(PageRequest(index: index, pagination: pagination), provisional: { _ in })
            if index == 0 { rowCount = page.rowCount }
            rows += page.rows
            index += 1
            if page.request.startRow >= (rowCount ?? 0) { return (rows, rowCount) }
        }
    }

    /// The rows as the whole-document reader gives them.
    private static func wholeFile(_ path: String, records: String? = nil) throws -> [JSONValue] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        return try FileSource.rows(in: bytes, records: records.map { try FieldPath($0) }, path: path, page: 0)
    }

    private static func text(_ rows: [JSONValue]) -> String {
        var writer = JSONWriter()
        for row in rows {
            writer.write(row)
            writer.writeRaw("\n")
        }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Checks the streamed rows against the whole-file reader: same values, same texts.
    private static func expectSameAsWholeFile(
        _ path: String, records: String? = nil, firstPageSize: Int = 3, pageSize: Int = 2, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws {
        let expected = try wholeFile(path, records: records)
        let streamed = try await readAll(path, records: records, firstPageSize: firstPageSize, pageSize: pageSize)
        #expect(streamed.rowCount == expected.count, sourceLocation: sourceLocation)
        // The first difference only: a diff of thousands of rows would take minutes to print.
        let firstDifference = zip(streamed.rows, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? (streamed.rows.count == expected.count ? nil : min(streamed.rows.count, expected.count))
        #expect(firstDifference == nil, "rows differ from row \(firstDifference ?? 0)", sourceLocation: sourceLocation)
        let (streamedText, expectedText) = (text(streamed.rows), text(expected))
        #expect(Bool(streamedText == expectedText), "the rows' texts differ", sourceLocation: sourceLocation)
    }

    static let documents: [String] = [
        "[]",
        "  [ ]  \n",
        #"[{"entryId":9007199254740993,"name":"a"},{"entryId":-0,"price":1.50,"big":1E400,"tiny":1e-400},3,"x",null,true,false,[1,[2]]]"#,
        "[\n  {\"s\": \"quote \\\" in ] } , string\", \"u\": \"\\u00e9\\ud83d\\ude00\"},\n  {\"nested\": {\"a\": [1, 2, {\"b\": \"]\"}]}}\n]\n",
        "{\"a\":1}\n\n{\"b\":2}\r\n   \n[3]\n\"four\"\n5",
        "{\"a\":1}",
        "",
        "\n\n",
    ]

    @Test("arrays, nested strings with brackets, numbers and JSON lines read as the whole-file reader reads them", arguments: documents)
    func sameRowsAsWholeFile(document: String) async throws {
        try await Self.expectSameAsWholeFile(try Self.file(document))
    }

    @Test(
        "records paths: keys, nested keys, indexes from either end, the last of repeated keys",
        arguments: [
            (#"{"meta":{"n":[1,{"x":"]"}]},"data":{"items":[{"id":1},{"id":2},{"id":3}]}}"#, "data.items"),
            (#"{"items":[1],"items":[2,3,4]}"#, "items"),
            (#"{"pages":[[1,2],[3,4,5],[6]]}"#, "pages[1]"),
            (#"{"pages":[[1,2],[3,4,5],[6]]}"#, "pages[-1]"),
            (#"{"pages":[[1,2],[3,4,5],[6]]}"#, "pages[-3]"),
            (#"[[1,2],[3]]"#, "[0]"),
            (#"{"a key":{"with.dot":[true,false]}}"#, #"["a key"]["with.dot"]"#),
        ])
    func recordsPaths(document: String, records: String) async throws {
        try await Self.expectSameAsWholeFile(try Self.file(document), records: records)
    }

    @Test(
        "a records path that leads to no array names what it found",
        arguments: [
            (#"{"data":{"items":{"id":1}}}"#, "data.items", "found object"),
            (#"{"data":{"items":"x"}}"#, "data.items", "found string"),
            (#"{"data":{}}"#, "data.items", "found nothing"),
            (#"{"pages":[[1]]}"#, "pages[-2]", "found nothing"),
            (#"[1,2]"#, "items", "found nothing"),
        ])
    func recordsNotAnArray(document: String, records: String, found: String) async throws {
        let path = try Self.file(document)
        let error = await #expect(throws: ScreensPipeError.self) { try await Self.readAll(path, records: records) }
        #expect(error?.code == .malformedResponse)
        #expect(error?.page == 0)
        #expect(error?.message.hasSuffix("expected an array of rows at '\(records)', \(found)") == true, "\(error?.message ?? "")")
    }

    /// Rows of every size around the read buffer's edges and past the checkpoint stride,
    /// with escapes that could fool a scanner placed right at a refill.
    @Test("thousands of rows across many read buffers, paged at sizes around the checkpoint stride", arguments: [(1, 1), (50, 64), (64, 65), (1000, 999)])
    func manyBuffers(firstPageSize: Int, pageSize: Int) async throws {
        var text = "["
        var lines = ""
        for row in 0..<6000 {
            let padding = String(repeating: row % 7 == 0 ? "\\\"" : "\\\\", count: row % 173)
            let value = #"{"entryId":\#(9_007_199_254_740_993 + row),"pad":"\#(padding)]}","n":\#(row).50}"#
            text += (row == 0 ? "" : ",\n ") + value
            lines += value + (row % 3 == 0 ? "\r\n" : "\n")
        }
        text += "]"
        #expect(text.utf8.count > 3 * JSONFileScanner.chunkSize)
        try await Self.expectSameAsWholeFile(try Self.file(text), firstPageSize: firstPageSize, pageSize: pageSize)
        try await Self.expectSameAsWholeFile(try Self.file(lines), firstPageSize: firstPageSize, pageSize: pageSize)
    }

    /// `text` with the whitespace outside strings left out: what a row's kept text must be.
    private static func compacted(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        var (inString, escaped) = (false, false)
        for byte in text.utf8 {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if [0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                continue
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            }
            output.append(byte)
        }
        return output
    }

    @Test("rows only checked keep their compact texts: compact rows whole, rows with whitespace compacted, escapes and spaces in strings kept")
    func checkedRowsKeepCompactTexts() throws {
        let rows = (0..<3000).map { row -> String in
            let padding = String(repeating: row % 7 == 0 ? "\\\"" : "\\\\", count: row % 61)
            switch row % 4 {
            case 0: return #"{"id":\#(row),"s":"a b  c\#(padding) ","t":[1,{"u":"]"}]}"#
            case 1: return #"{ "id" : \#(row) , "s" : "a \#(padding)\t" , "t" : [ 1 , { "u" : " } " } ] }"#
            case 2: return "\t{\"id\":\(row),\"s\":\"x\"}  "
            default: return #"[\#(row), "\\u00e9 ", true ,null]"#
            }
        }
        for document in [rows.joined(separator: "\n"), rows.joined(separator: "\r\n") + "\r\n", "[" + rows.joined(separator: ",\n  ") + "\n]"] {
            let path = try Self.file(document)
            let index = try FileRowIndex.build(path: path, records: nil).get()
            #expect(index.rowCount == rows.count)
            let texts = try index.rows(0..<index.rowCount, path: path, checkingOnly: true).texts
            #expect(texts.count == rows.count)
            let first = rows.indices.first { Array(texts[$0] ?? []) != Self.compacted(rows[$0]) }
            #expect(first == nil, "row \(first ?? 0): \(String(decoding: texts[first ?? 0] ?? [], as: UTF8.self))")
        }
    }

    @Test("a pretty-printed array's rows, checked a run at a time, are the compact rows, across runs and from any first row")
    func prettyRowsAcrossRuns() throws {
        // About 7 MiB of rows: more than one run (FileRowIndex.checkedRunSize).
        let rows = (0..<2600).map { row in
            #"{"id":\#(row),"title":"row \#(row) \" , : { [","tags":["a","b"],"body":"\#(String(repeating: "x", count: 2600))","none":{},"n":-1.5e3}"#
        }
        let pretty = "[\n" + rows.map { row in
            "  " + row.replacingOccurrences(of: #"{"id""#, with: "{\n    \"id\"").replacingOccurrences(of: #","title":"#, with: ",\n    \"title\": ")
                .replacingOccurrences(of: #"["a","b"]"#, with: "[\n      \"a\",\n      \"b\"\n    ]").replacingOccurrences(of: "}", with: "\n  }")
        }.joined(separator: ",\n") + "\n]\n"
        #expect(pretty.utf8.count > FileRowIndex.checkedRunSize)
        let path = try Self.file(pretty)
        let index = try FileRowIndex.build(path: path, records: nil).get()
        #expect(index.rowCount == rows.count)
        for range in [0..<rows.count, 1..<2, 999..<2600, 63..<65] {
            let texts = try index.rows(range, path: path, checkingOnly: true).texts
            #expect(texts.count == range.count)
            let first = range.first { Array(texts[$0 - range.lowerBound] ?? []) != Array(rows[$0].utf8) }
            #expect(first == nil, "row \(first ?? 0) of \(range)")
        }
    }

    @Test(
        "a bad row checked in a run fails with the error checking it on its own gives, at its byte in the file",
        arguments: ["tru", #""\x""#, "01", #"{"a" 1}"#, "1.", #""a\u12""#, #"{"a":}"#, #"{"a":[1,]}"#])
    func badRowInARun(bad: String) throws {
        let rows = (0..<40).map { $0 == 33 ? bad : #"{ "id": \#($0) }"# }
        let head = "[\n  " + rows[..<33].joined(separator: ",\n  ") + ",\n  "
        let path = try Self.file(head + rows[33...].joined(separator: ",\n  ") + "\n]")
        let alone = try #require(Self.errorAlone(Array(bad.utf8)))
        let index = try FileRowIndex.build(path: path, records: nil).get()
        for range in [0..<40, 30..<34] {
            let error = try #require(throws: FileScanError.self) { try index.rows(range, path: path, checkingOnly: true) }
            #expect(error.message == "invalid JSON at byte \(head.utf8.count + alone.offset): \(alone.message)")
        }
    }

    @Test("spaced JSON lines (as Python's json.dumps writes them), checked a run at a time, are the compact rows, across runs, blank lines and CRLF included")
    func spacedLinesAcrossRuns() throws {
        // About 7 MiB of lines: more than one run (FileRowIndex.checkedRunSize).
        let rows = (0..<2600).map { row in
            #"{"id":\#(row),"title":"row \#(row) \" , : { [","tags":["a","b"],"body":"\#(String(repeating: "x", count: 2600))","none":{},"n":-1.5e3}"#
        }
        let spaced = rows.enumerated().map { row, text in
            let line = text.replacingOccurrences(of: #"":"#, with: #"": "#).replacingOccurrences(of: #"","#, with: #"", "#)
            return (row % 5 == 0 ? "  " : "") + line + (row % 7 == 0 ? " \r\n" : "\n") + (row % 11 == 0 ? "\n \t\n" : "")
        }.joined()
        #expect(spaced.utf8.count > FileRowIndex.checkedRunSize)
        let path = try Self.file(spaced, name: "rows.jsonl")
        let index = try FileRowIndex.build(path: path, records: nil).get()
        #expect(index.rowCount == rows.count)
        for range in [0..<rows.count, 1..<2, 999..<2600, 63..<65] {
            let texts = try index.rows(range, path: path, checkingOnly: true).texts
            #expect(texts.count == range.count)
            let first = range.first { Array(texts[$0 - range.lowerBound] ?? []) != Array(rows[$0].utf8) }
            #expect(first == nil, "row \(first ?? 0) of \(range)")
        }
    }

    @Test(
        "a bad line checked in a run fails with the error reading it alone gives, at its byte in the file",
        arguments: [
            "tru", #""\x""#, "01", #"{"a" 1}"#, #"{"a":}"#, #"{"a": 1} x"#, "1, 2", "[1", #""open"#, #"{"a":1}}"#, "]", #"{"a":[1}"#, "\u{0C}",
            #"{"a": 1}{"b": 2}"#,
        ])
    func badLineInARun(bad: String) throws {
        let lines = (0..<40).map { $0 == 33 ? bad : #"{"id": \#($0), "name": "n"}"# }
        let head = lines[..<33].joined(separator: "\n") + "\n"
        let path = try Self.file(head + lines[33...].joined(separator: "\n") + "\n", name: "rows.jsonl")
        let alone = try #require(Self.errorAlone(Array(bad.utf8)))
        let index = try FileRowIndex.build(path: path, records: nil).get()
        for range in [0..<40, 30..<34, 33..<34] {
            let error = try #require(throws: FileScanError.self) { try index.rows(range, path: path, checkingOnly: true) }
            #expect(error.message == "invalid JSON at byte \(head.utf8.count + alone.offset): \(alone.message)", "\(range)")
        }
        // The lines before the bad one in its run are checked first: their error comes first.
        let earlier = try Self.file(lines[..<20].joined(separator: "\n") + "\ntru\n" + lines[21...].joined(separator: "\n"), name: "rows.jsonl")
        let earlierError = try #require(throws: FileScanError.self) {
            try FileRowIndex.build(path: earlier, records: nil).get().rows(0..<40, path: earlier, checkingOnly: true)
        }
        #expect(earlierError.message.hasPrefix("invalid JSON at byte \(lines[..<20].joined(separator: "\n").utf8.count + 1 + 3): unexpected end of input"), "\(earlierError.message)")
    }

    @Test("a value that spans lines is two bad lines, refused as reading the first alone refuses it, never one row", arguments: ["[1,\n2]", "{\"a\":\n1}", "{\"a\": [\n  1\n]}"])
    func valueAcrossLines(value: String) throws {
        let head = #"{"id": 0}"# + "\n"
        let path = try Self.file(head + value + "\n" + #"{"id": 3}"# + "\n", name: "rows.jsonl")
        let firstLine = String(value.prefix { $0 != "\n" })
        let alone = try #require(Self.errorAlone(Array(firstLine.utf8)))
        let index = try FileRowIndex.build(path: path, records: nil).get()
        let lines = value.split(separator: "\n").count + 2
        #expect(index.rowCount == lines)
        for checkingOnly in [true, false] {
            let error = try #require(throws: FileScanError.self) { try index.rows(0..<lines, path: path, checkingOnly: checkingOnly) }
            #expect(error.message == "invalid JSON at byte \(head.utf8.count + alone.offset): \(alone.message)")
        }
    }

    @Test("random JSON lines, good and bad, spaced and not: checking in runs accepts what parsing accepts, keeps the same texts, and fails at the first bad line's byte")
    func randomLines() throws {
        var generator = SplitMix(seed: 0x5EED_0F_1135)
        let pieces = [
            #"{"id": 1, "s": "a, b: c"}"#, #"{"id":2,"s":"x"}"#, "[1, 2 ,3]", "  7  ", "null", #""text""#, "{}", " [ ] ",
            "tru", "{\"a\": 1} 2", "[1,", "2]", #""open"#, "}", #"{"a":1}}"#, "1.", "-", #"{"a" 1}"#, "\u{0B}", "\t", "", " \r",
            #"{"k": [{"n": {"m": [true, false]}}]}"#, "01", #""\u00e9\n""#, #"{"a":"#,
        ]
        for _ in 0..<400 {
            let count = Int(generator.next() % 12) + 1
            let lines = (0..<count).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }
            let text = lines.joined(separator: generator.next() % 2 == 0 ? "\n" : "\r\n") + (generator.next() % 2 == 0 ? "\n" : "")
            let path = try Self.file(text, name: "rows.jsonl")
            guard case .success(let index)? = try? FileRowIndex.build(path: path, records: nil) else { continue }
            let checked = Result { () throws(FileScanError) in try index.rows(0..<index.rowCount, path: path, checkingOnly: true) }
            let parsed = Result { () throws(FileScanError) in try index.rows(0..<index.rowCount, path: path) }
            switch (checked, parsed) {
            case (.success(let checked), .success(let parsed)):
                #expect(checked.texts.count == parsed.texts.count, "\(text.debugDescription)")
                for row in 0..<min(checked.texts.count, parsed.texts.count) {
                    #expect(checked.texts[row].map { Array($0) } == parsed.texts[row].map { Array($0) }, "\(text.debugDescription)")
                }
            case (.failure(let error), .failure):
                // The first line that is not one value, read alone, is where the error is.
                var offset = 0
                var expected: String?
                // By bytes: as a String, "\r\n" is one Character, not a "\n".
                for line in Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false) {
                    let bytes = Array(line)
                    defer { offset += bytes.count + 1 }
                    if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                    let failure = Self.errorAlone(bytes)
                    if let failure {
                        expected = "invalid JSON at byte \(offset + failure.offset): \(failure.message)"
                        break
                    }
                }
                #expect(error.message == expected, "\(text.debugDescription)")
            default:
                Issue.record("checking and parsing disagree on \(text.debugDescription)")
            }
        }
    }

    @Test("a line nests as deep as a line read alone may: 512 levels, not one more, in a run of lines")
    func lineNestingInARun() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        let path = try Self.file("1\n" + deepest + "\n{\"a\": 2}\n", name: "rows.jsonl")
        let texts = try FileRowIndex.build(path: path, records: nil).get().rows(0..<3, path: path, checkingOnly: true).texts
        #expect(texts.count == 3)
        #expect(texts[0].map { Array($0) } == Array("1".utf8))
        #expect(texts[1].map { Array($0) } == Array(deepest.utf8))
        #expect(texts[2].map { Array($0) } == Array(#"{"a":2}"#.utf8))
        let tooDeep = try Self.file("1\n[" + deepest + "]\n", name: "rows.jsonl")
        let error = try #require(throws: FileScanError.self) {
            try FileRowIndex.build(path: tooDeep, records: nil).get().rows(0..<2, path: tooDeep, checkingOnly: true)
        }
        #expect(error.message.contains("nesting deeper than 512 levels"), "\(error.message)")
    }

    @Test("blank lines between rows, many runs' worth, are passed without growing the capture: the rows around them are read")
    func manyBlankLines() throws {
        let blanks = String(repeating: " \n\t\n", count: 3 * FileRowIndex.checkedRunSize / 4)
        let path = try Self.file(#"{"a": 1}"# + "\n" + blanks + #"{"b": 2}"# + "\n" + blanks, name: "rows.jsonl")
        let index = try FileRowIndex.build(path: path, records: nil).get()
        #expect(index.rowCount == 2)
        let texts = try index.rows(0..<2, path: path, checkingOnly: true).texts
        #expect(texts.count == 2)
        #expect(texts[1].map { Array($0) } == Array(#"{"b":2}"#.utf8))
    }

    @Test("a row as large as a value may be, after a run of rows, is read: the limit is the row's, not the run's")
    func largeRowAfterARun() throws {
        let small = Array(repeating: #"{"id":1,"s":"\#(String(repeating: "y", count: 1000))"}"#, count: 5000).joined(separator: ",")
        var bytes = Array("[\(small),\"".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "z"), count: JSONFileScanner.maximumValueSize - 2)
        bytes += Array("\"]".utf8)
        let path = try Self.file(bytes)
        let index = try FileRowIndex.build(path: path, records: nil).get()
        #expect(index.rowCount == 5001)
        let texts = try index.rows(0..<5001, path: path, checkingOnly: true).texts
        #expect(texts[5000]?.count == JSONFileScanner.maximumValueSize)
    }

    // MARK: Hostile files

    /// The error reading `bytes` gives on page 0 (the scan) or on the page that holds the bad row.
    private static func failure(_ bytes: [UInt8], records: String? = nil, pageSize: Int = 2) async throws -> ScreensPipeError? {
        let path = try file(bytes)
        return await #expect(throws: ScreensPipeError.self) {
            try await readAll(path, records: records, firstPageSize: pageSize, pageSize: pageSize)
        }
    }

    @Test(
        "hostile files fail with a clear error naming the byte",
        arguments: [
            (#"[{"a":1},{"b":"#, "invalid JSON at byte 14: unexpected end of input"),
            (#"[{"a":1},{"b":2}"#, "invalid JSON at byte 16: unexpected end of input, expected ',' or ']'"),
            (#"[1,2] garbage"#, "invalid JSON at byte 6: unexpected characters after the value"),
            (#"[1,2]]"#, "invalid JSON at byte 5: unexpected characters after the value"),
            (#"[1 2]"#, "invalid JSON at byte 3: expected ',' or ']'"),
            (#"[1,]"#, "invalid JSON at byte 3: expected a value"),
            (#"[{"a":[1}]"#, "invalid JSON at byte 8: expected ',' or ']'"),
            (#"["open string]"#, "invalid JSON at byte 1: unexpected end of input in a string"),
            ("[1,\u{0}2]", "invalid JSON at byte 3: expected a value"),
            ("[\"a\u{0}b\"]", "invalid JSON at byte 3"),
            (#"{"a":1} x"#, "invalid JSON at byte 8"),
        ])
    func hostile(document: String, message: String) async throws {
        let error = try await Self.failure(Array(document.utf8))
        #expect(error?.code == .malformedResponse)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
    }

    @Test("a bad row deep in the file fails on the page that holds it, after the pages before it")
    func badRowNamesItsPage() async throws {
        let rows = (0..<10).map { $0 == 7 ? "tru" : "\($0)" }
        let error = try await Self.failure(Array("[\(rows.joined(separator: ","))]".utf8))
        #expect(error?.page == 3)  // pages of 2: rows 6 and 7
        #expect(error?.message.contains("invalid JSON at byte 18: unexpected end of input") == true, "\(error?.message ?? "")")
    }

    @Test("a UTF-8 byte order mark is refused by name")
    func byteOrderMark() async throws {
        let error = try await Self.failure([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))
        #expect(error?.message.contains("byte order mark") == true, "\(error?.message ?? "")")
        #expect(error?.page == 0)
    }

    @Test("a million nested brackets stop at the nesting limit, in an array, under records and as a line")
    func deepNesting() async throws {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)
        for (bytes, records) in [(deep, nil), (Array(#"{"items":"#.utf8) + deep, "items" as String?), (Array("1\n".utf8) + deep, nil)] {
            let error = try await Self.failure(bytes, records: records)
            #expect(error?.message.contains("nesting deeper than 512 levels") == true, "\(error?.message ?? "")")
        }
    }

    @Test("nesting counts the containers around the rows: 512 levels in all, as the whole-file parser counts them")
    func nestingBudget() async throws {
        let atLimit = "[" + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "]"
        try await Self.expectSameAsWholeFile(try Self.file(atLimit))
        let overLimit = "[" + String(repeating: "[", count: 512) + String(repeating: "]", count: 512) + "]"
        #expect(throws: ScreensPipeError.self) { try Self.wholeFile(try Self.file(overLimit)) }
        let error = try await Self.failure(Array(overLimit.utf8))
        #expect(error?.message.contains("nesting deeper than 512 levels") == true, "\(error?.message ?? "")")
    }

    @Test("a single row larger than 64 MiB is refused, not buffered without end")
    func hugeRow() async throws {
        let row = [UInt8](repeating: UInt8(ascii: "x"), count: JSONFileScanner.maximumValueSize + 1)
        let error = try await Self.failure(Array(#"[1,""#.utf8) + row + Array(#""]"#.utf8), pageSize: 1)
        #expect(error?.message.contains("a value larger than 64 MiB") == true, "\(error?.message ?? "")")
        #expect(error?.page == 1)
    }

    @Test("a file that cannot be opened is an I/O error naming the path")
    func missingFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString).json").path
        let error = await #expect(throws: ScreensPipeError.self) { try await Self.readAll(path) }
        #expect(error?.code == .io)
        #expect(error?.message.contains(path) == true)
    }
}

/// A seeded generator (SplitMix64), so a random test reads the same inputs every run.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
