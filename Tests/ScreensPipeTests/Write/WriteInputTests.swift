@testable import ScreensPipeCore
import ScreensPipe
import ScreensBus
import Testing

/// Input lines are split and numbered exactly, whatever the chunking, and a line over the
/// limit keeps only its beginning.
@Suite struct LineSplitterTests {
    private func split(_ text: String, chunk: Int) -> [WriteInputLine] {
        let bytes = Array(text.utf8)
        var splitter = LineSplitter()
        var lines: [WriteInputLine] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + chunk)
            lines += splitter.feed(bytes[start..<end])
            start = end
        }
        if let last = splitter.finish() { lines.append(last) }
        return lines
    }

    @Test(arguments: [1, 2, 3, 7, 64])
    func linesAreTheSameForEveryChunkSize(chunk: Int) {
        let lines = split("{\"a\":1}\r\n\n{\"b\":2}\nlast", chunk: chunk)
        #expect(lines.map(\.number) == [1, 2, 3, 4])
        #expect(lines.map { String(decoding: $0.bytes, as: UTF8.self) } == ["{\"a\":1}", "", "{\"b\":2}", "last"])
        #expect(lines.allSatisfy { !$0.truncated })
    }

    @Test func aTrailingNewlineMakesNoEmptyLastLine() {
        #expect(split("x\ny\n", chunk: 4).count == 2)
        #expect(split("", chunk: 4).isEmpty)
    }

    @Test func aLongLineKeepsItsBeginningAndTheNextLineItsNumber() {
        let long = String(repeating: "x", count: WriteInputLines.maximumLineLength + 10)
        let lines = split(long + "\nafter\n", chunk: 1 << 16)
        #expect(lines.count == 2)
        #expect(lines[0].truncated)
        #expect(lines[0].bytes.count == WriteInputLines.maximumLineLength)
        #expect(lines[1].number == 2 && String(decoding: lines[1].bytes, as: UTF8.self) == "after")
    }
}

/// Rows are checked as the portal checks them, before any request.
@Suite struct BookmarkRowValidatorTests {
    private let spec = LiferaySinkSpec(connection: SourceSpec.writeInput, groupId: 20143, folderId: nil)

    private func check(_ json: String) -> Result<BookmarkRow, RowRejection> {
        Result { () throws(RowRejection) in
            try BookmarkRowValidator.row(WriteInputLine(number: 7, bytes: Array(json.utf8), truncated: false), spec: spec)
        }
    }

    private func reason(_ json: String) -> String? {
        if case .failure(let rejection) = check(json) { return rejection.message }
        return nil
    }

    @Test func aGoodRowKeepsItsValuesAndAnEmptyNameBecomesTheURL() throws {
        let row = try check(#"{"url":"https://example.com/a","folderId":"20201","description":"d","entryId":1}"#).get()
        #expect(row.line == 7)
        #expect(row.name == "https://example.com/a")
        #expect(row.folderId == 20201)
        #expect(row.groupId == 20143)
        #expect(row.key == #"["https://example.com/a","20201"]"#)
        #expect(row.legacyKey == "https://example.com/a\u{1F}20201")
        #expect(row.parameters()["serviceContext"] == nil, "the portal's own ServiceContext, never a null over it")
        #expect(row.parameters(entryId: 5)["entryId"] == .int(5))
    }

    @Test func theSinksFolderWinsOverTheRows() throws {
        var spec = spec
        spec.folderId = 0
        let row = try BookmarkRowValidator.row(JSONValue(parsing: Array(#"{"url":"ftp://x","folderId":99}"#.utf8)), line: 1, spec: spec)
        #expect(row.folderId == 0)
    }

    @Test func whatThePortalWouldRefuseIsRefusedHere() {
        #expect(reason(#"{"name":"x","folderId":0}"#)?.contains("missing 'url'") == true)
        #expect(reason(#"{"url":"   ","folderId":0}"#)?.contains("'url' is empty") == true)
        #expect(reason(#"{"url":"www.example.com","folderId":0}"#)?.contains("EntryURLException") == true)
        #expect(reason(#"{"url":"gopher://x","folderId":0}"#)?.contains("EntryURLException") == true)
        #expect(reason(#"{"url":"https://x","name":5,"folderId":0}"#)?.contains("'name' must be text") == true)
        #expect(reason(#"{"url":"https://x","folderId":-1}"#)?.contains("'folderId' must be a folder id") == true)
        #expect(reason(#"{"url":"https://x","folderId":1.5}"#)?.contains("'folderId' must be a folder id") == true)
        #expect(reason(#"{"url":"https://x"}"#)?.contains("missing 'folderId'") == true)
        let longName = String(repeating: "é", count: 256)
        #expect(reason(#"{"url":"https://x","folderId":0,"name":"\#(longName)"}"#)?.contains("256 characters") == true)
        #expect(reason(#"{"url":"https://x","folderId":0,"name":"\#(String(repeating: "é", count: 255))"}"#) == nil)
        #expect(reason("[]")?.contains("found array") == true)
        #expect(reason(String(repeating: "[", count: 600))?.contains("not JSON") == true)
    }
}

/// `sink: { type: liferay }` decodes with the source's connection keys and its own.
@Suite struct LiferaySinkDecodingTests {
    @Test func aWritingPipelineNeedsNoSource() throws {
        let spec = try PipelineLoader(environment: [:]).load(
            yaml: """
                name: w
                sink:
                  type: liferay
                  server: { url: "https://portal.example.com", group-id: 20143 }
                  auth: { basic: { username: u, password: p } }
                  batch-size: 100
                  key: url
                """)
        let sink = try #require(spec.sink.liferay)
        #expect(spec.source.isWriteInput)
        #expect(sink.groupId == 20143)
        #expect(sink.batchSize == 100)
        #expect(sink.key == ["url"])
        #expect(sink.folderId == nil)
        #expect(sink.connection.server == .url("https://portal.example.com"))
        #expect(spec.sink.destination == .discard)
    }

    @Test func aReadingPipelineStillNeedsItsSource() {
        #expect(throws: ScreensPipeError.self) {
            try PipelineLoader(environment: [:]).load(yaml: "name: r\nsink: { type: stdout }\n")
        }
    }
}
