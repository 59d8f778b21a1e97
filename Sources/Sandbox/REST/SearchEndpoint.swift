import ScreensJSON

/// A search-style API that pages through a POST body, as search services and Liferay's
/// batch engine do: `POST /rest/search/{bookmarks|generated}` with a JSON body of
/// `{"offset": 0, "limit": 25}`, `{"page": 1, "pageSize": 25}` or
/// `{"cursor": null | "...", "limit": 25}`, answered with
/// `{"items": [...], "totalCount": 73, "nextCursor": "..." | null}`.
struct SearchEndpoint: Sendable {
    static let pathPrefix = "/rest/search/"
    static let maximumBodySize = 64 << 10

    let portal: Portal

    func respond(to request: SandboxRequest) -> SandboxResponse {
        guard request.method == "POST" else {
            var response = SandboxResponse.text(405, "Method Not Allowed\n")
            response.headers.append(("Allow", "POST"))
            return response
        }
        let name = request.path.dropFirst(Self.pathPrefix.count)
        guard !name.contains("/"), let rows = RESTEndpoints(portal: portal).dataset(name) else {
            return .json(404, ["error": .string("No search collection at \(request.path)")])
        }
        guard request.headers["content-type"]?.lowercased().hasPrefix("application/json") == true else {
            return Self.badRequest("The search body must be application/json")
        }
        guard request.body.count <= Self.maximumBodySize, let body = try? JSONValue(parsing: request.body), case .object = body else {
            return Self.badRequest("The search body must be a JSON object")
        }
        let limit: Int
        let offset: Int
        if let page = body["page"] {
            guard let number = page.int64Value, number >= 1, let size = Self.size(body["pageSize"]) else {
                return Self.badRequest("page must be an integer from 1, with pageSize from 1 to \(RESTEndpoints.maximumLimit)")
            }
            limit = size
            let (product, overflow) = (Int(number) - 1).multipliedReportingOverflow(by: size)
            offset = overflow ? Int.max : product
        } else if body.objectValue?.keys.contains("cursor") == true {
            guard let size = Self.size(body["limit"]) else { return Self.badRequest("limit must be from 1 to \(RESTEndpoints.maximumLimit)") }
            limit = size
            switch body["cursor"] {
            case .null?: offset = 0
            case .string(let text)?:
                guard let decoded = RESTEndpoints.decodeCursor(text) else { return Self.badRequest("Unknown cursor") }
                offset = decoded
            default: return Self.badRequest("cursor must be a string or null")
            }
        } else {
            guard let start = body["offset"]?.int64Value, start >= 0, start <= Int64(Int32.max), let size = Self.size(body["limit"]) else {
                return Self.badRequest("The body needs offset (an integer from 0) and limit, page and pageSize, or cursor and limit")
            }
            offset = Int(start)
            limit = size
        }
        let range = offset >= rows.count ? 0..<0 : offset..<min(rows.count, offset + limit)
        let next = range.upperBound < rows.count && !range.isEmpty ? JSONValue.string(RESTEndpoints.encodeCursor(range.upperBound)) : .null
        return .json(200, [
            "items": .array(rows.page(range, hideEvery: portal.hideEvery)), "totalCount": .int(Int64(rows.count)), "nextCursor": next,
        ])
    }

    private static func size(_ value: JSONValue?) -> Int? {
        guard let number = value?.int64Value, number >= 1, number <= Int64(RESTEndpoints.maximumLimit) else { return nil }
        return Int(number)
    }

    private static func badRequest(_ message: String) -> SandboxResponse {
        .json(400, ["error": .string(message)])
    }
}
