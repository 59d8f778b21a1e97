// libFuzzer target: the HTTP response interpreter of every wire format (status, headers such
// as Retry-After, Link and Location, and the body), then the page checks that follow it.
//
// Input: 2 bytes of status, then header lines ("Name: value\n") up to a blank line, then
// the body.
@testable import ScreensPipe
import Foundation
import Logging
import ScreensBus

private let fetchers: [(PageRequest, HTTPResponse, String) -> Void] = {
    let sources = [
        "{ type: liferay-jsonws, server: 'http://127.0.0.1:1', rows: { service: /a/get-entries, params: { groupId: 1 } }, count: { service: /a/get-entries-count, params: { groupId: 1 } } }",
        "{ type: liferay-jsonws, server: 'http://127.0.0.1:1', rows: { service: /a/get-entries } }",
        "{ type: liferay-headless, server: 'http://127.0.0.1:1', path: /o/headless-delivery/v1.0/sites/1/structured-contents }",
        "{ type: rest, server: 'http://127.0.0.1:1', url: /items, records: data.items, total: data.total, paginate: offset }",
        "{ type: rest, server: 'http://127.0.0.1:1', url: /items, records: results, paginate: { style: cursor, cursor-param: cursor, cursor-path: next_cursor } }",
        "{ type: rest, server: 'http://127.0.0.1:1', url: /items, records: items, paginate: { style: next-link, next-path: next } }",
        "{ type: rest, server: 'http://127.0.0.1:1', url: /items, paginate: link-header }",
    ]
    return sources.compactMap { source in
        guard let spec = try? PipelineLoader(environment: [:]).load(yaml: "source: \(source)", file: "fuzz.yaml"),
            case .http(let wire, let settings)? = try? SourceFactory.makeBlueprint(spec: spec, baseURL: "http://127.0.0.1:1")
        else { return nil }
        return open(wire, settings: settings)
    }
}()

private func open(_ wire: some WireFormat, settings: HTTPSourceSettings) -> (PageRequest, HTTPResponse, String) -> Void {
    let fetcher = HTTPPageFetcher(wire: wire, settings: settings)
    return { page, response, request in
        _ = fetcher.interpret(response, page: page, request: request)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponse(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    guard input.count >= 2 else { return 0 }
    let status = 100 + Int(UInt16(input[0]) << 8 | UInt16(input[1])) % 500
    let rest = input.dropFirst(2)
    let split = rest.firstRange(of: [0x0A, 0x0A])
    let headerBytes = split.map { rest[..<$0.lowerBound] } ?? rest[rest.endIndex...]
    let body = split.map { Array(rest[$0.upperBound...]) } ?? Array(rest)
    var headers = HTTPHeaders()
    for line in String(decoding: headerBytes, as: UTF8.self).split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers.add(name: String(line[..<colon]), value: String(line[line.index(after: colon)...]))
    }
    let response = HTTPResponse(status: status, headers: headers, body: body, effectiveURL: "http://127.0.0.1:1/items")
    if let retryAfter = headers["Retry-After"] { _ = RetryAfter.delay(retryAfter, now: Date()) }
    for (index, interpret) in fetchers.enumerated() {
        let page = PageRequest(index: index % 3, pagination: PaginationSpec(firstPageSize: 5, pageSize: 3))
        interpret(page, response, "GET http://127.0.0.1:1/items")
    }
    return 0
}
