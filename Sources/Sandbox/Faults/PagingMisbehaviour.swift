import ScreensJSON

/// Servers that break the paging contract, chosen per request with the header
/// `X-Sandbox-Misbehave: <name>` (a pipeline sends it with `source.headers`), so a client's
/// end-of-list rules can be tried against each way a real API goes wrong:
///
/// | name | JSON-WS `invoke`, headless | REST `offset` / `pages` | REST `cursor` / `next-link` / `link-header` |
/// |---|---|---|---|
/// | `ignore-end` | `end` is ignored: rows from `start` to the end of the list (headless: all rows) | `limit` / `per_page` ignored: every row from the offset (all rows for `pages`) | as `pages` for `link-header` |
/// | `repeat-pages` | `start` is ignored: every page is the first one | every page is the first one | every page holds the first page's rows, with fresh next links |
/// | `drop-next` | – | – | the next-page key (`next_cursor`, `next`) or the `Link` header is left out |
/// | `repeat-link` | – | – | every next link or cursor names the second page |
/// | `empty-first` | – | – | the first page is empty but has a next link to the real first page |
///
/// The misbehaviour wraps the honest endpoints: it rewrites the request before them or
/// their answer after, so the data and every other rule stay those of the sandbox.
enum PagingMisbehaviour: String, CaseIterable, Sendable {
    case ignoreEnd = "ignore-end"
    case repeatPages = "repeat-pages"
    case dropNext = "drop-next"
    case repeatLink = "repeat-link"
    case emptyFirst = "empty-first"

    static let headerName = "x-sandbox-misbehave"

    /// The answer to `request` under this misbehaviour; `honest` answers a request the normal way.
    func respond(to request: SandboxRequest, honest: (SandboxRequest) -> SandboxResponse) -> SandboxResponse {
        if request.path == Router.invokePath { return honest(rewritingInvoke(request)) }
        if request.path.hasPrefix(StructuredContents.pathPrefix) {
            switch self {
            case .ignoreEnd: return honest(request.replacingQuery(["page": "1", "pageSize": String(RESTEndpoints.maximumLimit)]))
            case .repeatPages: return honest(request.replacingQuery(["page": "1"]))
            default: return honest(request)
            }
        }
        guard request.path.hasPrefix(RESTEndpoints.pathPrefix) else { return honest(request) }
        let style = request.path.split(separator: "/").last.map(String.init) ?? ""
        switch (self, style) {
        case (.ignoreEnd, "offset"):
            return honest(request.replacingQuery(["limit": String(RESTEndpoints.maximumLimit)]))
        case (.ignoreEnd, "pages"), (.ignoreEnd, "link-header"):
            return honest(request.replacingQuery(["page": "1", "per_page": String(RESTEndpoints.maximumLimit)]))
        case (.repeatPages, "offset"):
            return honest(request.replacingQuery(["offset": "0"]))
        case (.repeatPages, "pages"):
            return honest(request.replacingQuery(["page": "1"]))
        case (.repeatPages, "cursor"), (.repeatPages, "next-link"), (.repeatPages, "link-header"):
            let first = honest(request.replacingQuery(["cursor": nil, "after": nil, "page": nil]))
            return Self.replacingRows(of: honest(request), withRowsOf: first)
        case (.dropNext, "cursor"):
            return Self.removingKey("next_cursor", from: honest(request))
        case (.dropNext, "next-link"):
            return Self.removingKey("next", from: honest(request))
        case (.dropNext, "link-header"):
            var response = honest(request)
            response.headers.removeAll { $0.0.lowercased() == "link" }
            return response
        case (.repeatLink, "cursor"), (.repeatLink, "next-link"), (.repeatLink, "link-header"):
            // Whatever page is asked for, the next one named is the one after the first page.
            let first = honest(request.replacingQuery(["cursor": nil, "after": nil, "page": nil]))
            return Self.replacingNext(of: honest(request), withNextOf: first)
        case (.emptyFirst, "cursor"):
            guard request.query["cursor"] == nil else { return honest(request) }
            return .json(200, ["results": [], "next_cursor": .string(RESTEndpoints.encodeCursor(0))])
        case (.emptyFirst, "next-link"):
            guard request.query["after"] == nil else { return honest(request) }
            let limit = request.query["limit"] ?? String(RESTEndpoints.defaultLimit)
            return .json(200, ["items": [], "next": .string("\(request.baseURL)\(request.path)?limit=\(limit)&after=0")])
        case (.emptyFirst, "link-header"):
            guard request.query["page"] == nil else { return honest(request) }
            let perPage = request.query["per_page"] ?? String(RESTEndpoints.defaultLimit)
            return .json(200, [], headers: [("Link", "<\(request.baseURL)\(request.path)?page=1&per_page=\(perPage)>; rel=\"next\"")])
        default:
            return honest(request)
        }
    }

    /// JSON-WS: rewrites `start`/`end` of every command in the batch.
    private func rewritingInvoke(_ request: SandboxRequest) -> SandboxRequest {
        guard case .array(let commands)? = try? JSONValue(parsing: request.body) else { return request }
        let rewritten = commands.map { command -> JSONValue in
            guard case .object(let object) = command, let (name, params) = object.first, case .object(var values) = params,
                let start = values["start"]?.int64Value, let end = values["end"]?.int64Value
            else { return command }
            switch self {
            case .ignoreEnd: values["end"] = .int(Int64(Int32.max))
            case .repeatPages: values["start"] = 0; values["end"] = .int(end - start)
            default: break
            }
            return .object([name: .object(values)])
        }
        var copy = request
        copy.body = JSONValue.array(rewritten).jsonBytes
        return copy
    }

    private static func replacingRows(of response: SandboxResponse, withRowsOf first: SandboxResponse) -> SandboxResponse {
        guard let body = try? JSONValue(parsing: response.body), let firstBody = try? JSONValue(parsing: first.body) else {
            return response
        }
        var copy = response
        switch (body, firstBody) {
        case (.array, .array):
            copy.body = firstBody.jsonBytes
        case (.object(var object), .object(let firstObject)):
            for key in ["results", "items"] where object[key] != nil { object[key] = firstObject[key] }
            copy.body = JSONValue.object(object).jsonBytes
        default:
            break
        }
        return copy
    }

    private static func replacingNext(of response: SandboxResponse, withNextOf first: SandboxResponse) -> SandboxResponse {
        var copy = response
        if let link = first.headers.first(where: { $0.0.lowercased() == "link" }) {
            copy.headers.removeAll { $0.0.lowercased() == "link" }
            copy.headers.append(link)
            return copy
        }
        guard case .object(var object)? = try? JSONValue(parsing: response.body),
            case .object(let firstObject)? = try? JSONValue(parsing: first.body)
        else { return response }
        for key in ["next_cursor", "next"] where object[key] != nil && object[key] != .null { object[key] = firstObject[key] }
        copy.body = JSONValue.object(object).jsonBytes
        return copy
    }

    private static func removingKey(_ key: String, from response: SandboxResponse) -> SandboxResponse {
        guard case .object(var object)? = try? JSONValue(parsing: response.body) else { return response }
        object[key] = nil
        var copy = response
        copy.body = JSONValue.object(object).jsonBytes
        return copy
    }
}

extension SandboxRequest {
    /// The request with query parameters set (or removed, for nil), others kept in order.
    fileprivate func replacingQuery(_ changes: [String: String?]) -> SandboxRequest {
        var items = query.items.filter { changes[$0.name] == nil }
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let value { items.append((name, value)) }
        }
        var copy = self
        copy.query = QueryString(items.map { "\(Self.encode($0.name))=\(Self.encode($0.value))" }.joined(separator: "&"))
        return copy
    }

    private static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + String(byte, radix: 16, uppercase: true).leftPaddedToTwo()
            }
        }
        return result
    }
}

extension String {
    fileprivate func leftPaddedToTwo() -> String { count >= 2 ? self : "0" + self }
}

/// `X-Sandbox-Link: <template>` on a `link-header` request: the `Link` header of every page
/// but the last becomes the template, with `{q}` replaced by the next page's query
/// (`page=2&per_page=10`) and `{host}` by the request's Host; the last page gets only a
/// `rel="first"` link. So a client's RFC 8288 parser and RFC 3986 resolver can be tried end
/// to end with any header a server might send (relative references, quoted commas, ...).
enum LinkTemplate {
    static let headerName = "x-sandbox-link"

    static func respond(to request: SandboxRequest, template: String, honest: SandboxResponse) -> SandboxResponse {
        guard request.path.hasSuffix("/link-header") else { return honest }
        let links = honest.headers.filter { $0.0.lowercased() == "link" }.map(\.1).joined(separator: ", ")
        var response = honest
        response.headers.removeAll { $0.0.lowercased() == "link" }
        // The honest header names the next page as `<...?page=N&per_page=M>; rel="next"`.
        guard let nextMember = links.split(separator: ",").first(where: { $0.contains("rel=\"next\"") }),
            let open = nextMember.firstIndex(of: "?"), let close = nextMember.firstIndex(of: ">")
        else {
            let perPage = request.query["per_page"] ?? String(RESTEndpoints.defaultLimit)
            response.headers.append(("Link", "<\(request.path)?page=1&per_page=\(perPage)>; rel=\"first\""))
            return response
        }
        let query = String(nextMember[nextMember.index(after: open)..<close])
        let host = request.baseURL.dropFirst("http://".count)
        let value = template.replacingOccurrences(of: "{q}", with: query).replacingOccurrences(of: "{host}", with: String(host))
        response.headers.append(("Link", value))
        return response
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
