/// What a write's HTTP answer says before its body is read, the one rule every JSON-WS
/// write (a batch, an upload) applies: a write is never sent again blindly, so a status
/// that may come after the portal carried it out is `ambiguous`, and is settled by a lookup.
enum WriteAnswerStatus {
    /// The portal may have carried the write out (a gateway's 502/504, a 503 after the
    /// work, a 200 whose body cannot be read): look it up before anything is sent again.
    case ambiguous(String)
    /// The portal refused the write and changed nothing.
    case refused(ScreensPipeError)
    /// A successful answer's body.
    case body(JSONValue)

    /// Reads `response` to the write `request`; throws an authentication error for a 401
    /// or a redirect (to the login page), which stops the whole write.
    static func read(_ response: HTTPResponse, request: String) throws(ScreensPipeError) -> WriteAnswerStatus {
        if RetryPolicy.retryableStatuses.contains(response.status) { return .ambiguous("HTTP \(response.status)") }
        if response.status == 401 || (300..<400).contains(response.status) {
            throw ScreensPipeError.authentication(
                "HTTP \(response.status): the portal refused the credentials (or redirected to its login page)",
                request: request, status: response.status)
        }
        guard response.isSuccess else { return .refused(LiferayErrorBody.error(for: response, page: 0, request: request)) }
        do {
            return .body(try JSONValue(parsing: response.body))
        } catch {
            return .ambiguous("HTTP \(response.status) with a body that is not JSON: \(error)")
        }
    }
}
