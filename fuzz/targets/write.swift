// libFuzzer target: the write path's untrusted inputs: the JSON lines a user pipes into
// `screens-pipe write` (split in arbitrary chunks, each line validated as a bookmark row
// with and without a fixed folder, and as a headless structured content) and the portal's
// answer to a JSON-WS batch (the result array, or an error body read for the reject reason).
//
// Input: 1 byte of chunk size, then the bytes, read both as write input and as an answer.
@testable import ScreensPipe
import Foundation
import ScreensBus

private let specs: [LiferaySinkSpec] = [
    "{ type: liferay, server: 'http://127.0.0.1:1', service: bookmark, group-id: 20143, folder-id: 20201 }",
    "{ type: liferay, server: 'http://127.0.0.1:1', service: bookmark, group-id: 20143, key: [url, name, folderId] }",
].compactMap { sink in
    (try? PipelineLoader(environment: [:]).load(
        yaml: "source: { type: file, path: rows.json }\nsink: \(sink)", file: "fuzz.yaml"))?.sink.liferay
}

private let webContent: LiferaySinkSpec? = (try? PipelineLoader(environment: [:]).load(
    yaml: "sink: { type: liferay, server: 'http://127.0.0.1:1', service: web-content, transport: headless, group-id: 20143, content-structure-id: 20701, key: [title] }",
    file: "fuzz.yaml"))?.sink.liferay

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWrite(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    guard let first = input.first else { return 0 }
    let bytes = Array(input.dropFirst())
    let chunk = Int(first) + 1

    var splitter = LineSplitter()
    var lines: [WriteInputLine] = []
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + chunk)
        lines += splitter.feed(bytes[offset..<end])
        offset = end
    }
    if let last = splitter.finish() { lines.append(last) }
    for line in lines {
        if let webContent { _ = try? StructuredContentRowValidator.row(line, spec: webContent) }
        for spec in specs {
            if let row = try? BookmarkRowValidator.row(line, spec: spec) {
                _ = row.parameters()
                _ = row.key
            }
        }
    }

    let status = 200 + Int(first % 4) * 100
    let response = HTTPResponse(status: status, body: bytes, effectiveURL: "http://127.0.0.1:1/api/jsonws/invoke")
    _ = LiferayErrorBody.error(for: response, page: 0, request: "POST /api/jsonws/invoke")
    if let answer = try? JSONValue(parsing: bytes) {
        for count in [1, 2, 25] { _ = try? JSONWSBatch.results(answer, count: count) }
    }
    return 0
}
