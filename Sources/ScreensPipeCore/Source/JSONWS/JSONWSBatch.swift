import ScreensBus

/// A JSON-WS batch as `POST /api/jsonws/invoke` takes it: one-key command objects in an
/// array, answered by an array of results in the same order.
enum JSONWSBatch {
    /// The request for `commands` to the portal at `baseURL`.
    static func request(_ commands: [(service: String, params: JSONObject)], baseURL: String) -> HTTPRequest {
        let batch = commands.map { JSONValue.object([$0.service: .object($0.params)]) }
        var request = HTTPRequest(method: "POST", url: endpoint(baseURL), body: JSONValue.array(batch).jsonBytes)
        request.headers.add(name: "Content-Type", value: "application/json")
        return request
    }

    /// `/api/jsonws/invoke` on `baseURL`.
    static func endpoint(_ baseURL: String) -> String { baseURL.trimmingSuffix("/") + "/api/jsonws/invoke" }

    /// The results of a batch of `count` commands.
    static func results(_ body: JSONValue, count: Int) throws(ScreensPipeError) -> [JSONValue] {
        guard case .array(let results) = body, results.count == count else {
            throw ScreensPipeError(
                .malformedResponse, "expected a JSON array with one result for each of the \(count) commands, found \(body.typeName)")
        }
        return results
    }
}
