package import Logging
import ScreensBus

/// The JSON-WS side of a bookmark write: batches of `add-entry` / `update-entry` commands
/// in one `POST /api/jsonws/invoke`, and the `get-entries` lookup that settles an
/// ambiguous outcome.
struct JSONWSBookmarkTransport: Sendable {
    /// What one batch request came to.
    enum BatchAnswer: Sendable {
        /// One result per command, in order.
        case results([JSONValue])
        /// The portal refused a command; the batch stopped there (commands before it may
        /// have been carried out: JSON-WS runs them one by one, each in its own transaction).
        case refused(ScreensPipeError)
        /// No answer could be read: the commands may or may not have been carried out.
        case ambiguous(String)
    }

    /// An entry found on the portal by key.
    struct Found: Sendable {
        var entryId: Int64
        var content: String
    }

    let settings: HTTPSourceSettings
    let client: HTTPClient
    let baseURL: String

    /// The request for `commands`, with the sink's credentials, headers and limits.
    func request(_ commands: [(service: String, params: JSONObject)]) throws(ScreensPipeError) -> HTTPRequest {
        var request = JSONWSBatch.request(commands, baseURL: baseURL)
        let decision = try CredentialPolicy.check(
            url: request.url, configured: settings.configuredURL, hasCredentials: settings.hasCredentials,
            source: settings.source)
        settings.apply(to: &request, withCredentials: decision == .sendWithCredentials)
        return request
    }

    /// Sends a batch of writes once: a write is never sent twice blindly.
    func send(_ commands: [(service: String, params: JSONObject)]) async throws(ScreensPipeError) -> BatchAnswer {
        var request = try request(commands)
        request.freshConnection = true
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            if error.kind == .cancelled { throw ScreensPipeError(.cancelled, "the write was cancelled", request: request.requestDescription) }
            return .ambiguous("\(error)")
        }
        if RetryPolicy.retryableStatuses.contains(response.status) {
            // A gateway's 502/504 may come after the portal carried the batch out.
            return .ambiguous("HTTP \(response.status)")
        }
        if response.status == 401 || (300..<400).contains(response.status) {
            throw ScreensPipeError.authentication(
                "HTTP \(response.status): the portal refused the credentials (or redirected to its login page)",
                request: request.requestDescription, status: response.status)
        }
        guard response.isSuccess else {
            return .refused(LiferayErrorBody.error(for: response, page: 0, request: request.requestDescription))
        }
        let body: JSONValue
        do {
            body = try JSONValue(parsing: response.body)
        } catch {
            // A 200 whose body cannot be read still means the batch ran.
            return .ambiguous("HTTP 200 with a body that is not JSON: \(error)")
        }
        do throws(ScreensPipeError) {
            return .results(try JSONWSBatch.results(body, count: commands.count))
        } catch {
            return .ambiguous(error.message)
        }
    }

    /// The entries of one folder, by key: one `get-entries` for every row of the folder,
    /// retried like a read (it changes nothing).
    func lookup(groupId: Int64, folderId: Int64, keyFields: [String]) async throws(ScreensPipeError) -> [String: Found] {
        var params = JSONObject()
        params["groupId"] = .int(groupId)
        params["folderId"] = .int(folderId)
        params["start"] = .int(-1)
        params["end"] = .int(-1)
        let request = try request([(service: "/bookmarks.bookmarksentry/get-entries", params: params)])
        let sender = RetryingSender(client: client, policy: settings.retry)
        let response: HTTPResponse
        do {
            response = try await sender.send(request)
        } catch {
            throw ScreensPipeError.connectivity("cannot look entries up in folder \(folderId): \(error)", request: request.requestDescription)
        }
        guard response.isSuccess else {
            throw LiferayErrorBody.error(for: response, page: 0, request: request.requestDescription)
        }
        let entries: [JSONValue]
        do {
            let body = try JSONValue(parsing: response.body)
            entries = try JSONWSBatch.results(body, count: 1)[0].arrayValue ?? []
        } catch {
            throw ScreensPipeError.malformedResponse("the entries of folder \(folderId) could not be read: \(error)", request: request.requestDescription)
        }
        var found: [String: Found] = [:]
        for entry in entries {
            guard let entryId = entry["entryId"]?.int64Value else { continue }
            let row = BookmarkRow(
                line: 0, groupId: groupId, folderId: entry["folderId"]?.int64Value ?? folderId,
                name: entry["name"]?.stringValue ?? "", url: entry["url"]?.stringValue ?? "",
                description: entry["description"]?.stringValue ?? "", key: "")
            // The first entry with a key wins, as a portal lists the oldest first.
            let key = BookmarkRowValidator.key(of: row, fields: keyFields)
            if found[key] == nil { found[key] = Found(entryId: entryId, content: row.content) }
        }
        return found
    }
}
