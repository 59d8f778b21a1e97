// libFuzzer target: what a server sends to the real-API features: an OAuth2 token endpoint's
// answer, rate-limit headers (429, Retry-After, X-RateLimit-*, RateLimit-*), `on-response`
// rules matched against any body, `paginate: auto` choosing a paginator from a first page,
// and incremental cursor values read from row data and state documents.
//
// Input: 2 bytes of status, then header lines ("Name: value\n") up to a blank line, then
// the body.
@testable import ScreensPipe
import Foundation
import ScreensBus

private let rules: [ResponseRule] = {
    var rules = [
        ResponseRule(statuses: [404], action: .skipPage),
        ResponseRule(bodyContains: "NoSuchFolderException", action: .endList),
        ResponseRule(statuses: [500, 503], bodyContains: "busy", action: .retry),
    ]
    if let path = try? FieldPath("error.code") {
        rules.append(ResponseRule(json: .init(path: path, value: .string("EMPTY")), action: .endList))
        rules.append(ResponseRule(json: .init(path: path, value: .int(404)), action: .fail, message: "gone"))
    }
    return rules
}()

private let cursorPaths: [FieldPath] = ["modifiedDate", "dateModified", "a.b[0]", "id"].compactMap { try? FieldPath($0) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRealAPIs(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
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

    _ = try? OAuth2TokenResponse.parse(body)
    _ = RateLimitHeaders.pause(status: status, headers: headers, now: Date(timeIntervalSince1970: 1_700_000_000))
    for rule in rules { _ = rule.matches(status: status, body: body) }

    let text = String(decoding: body, as: UTF8.self)
    for type in CursorType.allCases { _ = CursorValue.parse(text, as: type) }
    guard let json = try? JSONValue(parsing: body) else { return 0 }
    _ = try? RESTAutoPagination.choose(json, response: response)
    _ = try? RESTAutoPagination.rows(in: json, records: nil)
    for path in cursorPaths {
        guard let value = path.resolve(in: json) else { continue }
        for type in CursorType.allCases { _ = try? CursorValue.read(value, as: type, path: path) }
    }
    return 0
}
