internal import Logging
import ScreensBus

/// The JSON-WS side of a write: batches of add and update commands (`add-entry`,
/// `add-article`, `add-record`...) in one `POST /api/jsonws/invoke`, and the read
/// commands of the lookups that settle an ambiguous outcome.
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
        /// The request never left: no connection (refused, a name that does not resolve, a
        /// failed TLS handshake), so nothing was carried out.
        case notSent(String)
    }

    let settings: HTTPSourceSettings
    let client: HTTPClient
    let baseURL: String
    /// The sink's credentials, an OAuth 2 token included, as reads send them.
    let credentials: WriteCredentials

    init(settings: HTTPSourceSettings, client: HTTPClient, baseURL: String) {
        self.settings = settings
        self.client = client
        self.baseURL = baseURL
        credentials = WriteCredentials(settings: settings, client: client)
    }

    /// The request for `commands`, with the sink's credentials, headers and limits (an
    /// OAuth 2 token is a placeholder here: it is obtained when the request is sent).
    func request(_ commands: [JSONWSCommand]) throws(ScreensPipeError) -> HTTPRequest {
        var request = JSONWSBatch.request(commands, baseURL: baseURL)
        try settings.authorize(&request)
        try credentials.planned(&request)
        return request
    }

    /// Sends a batch of writes once: a write is never sent twice blindly (but for a 401 to
    /// an OAuth 2 token, which the portal answers before it runs anything).
    func send(_ commands: [JSONWSCommand]) async throws(ScreensPipeError) -> BatchAnswer {
        var prepared = try request(commands)
        prepared.freshConnection = true
        let client = client
        let (request, result) = try await credentials.send(prepared) { (request) async throws(HTTPError) -> HTTPResponse in
            try await client.send(request)
        }
        let response: HTTPResponse
        switch result {
        case .success(let answer): response = answer
        case .failure(let error):
            if error.kind == .cancelled { throw ScreensPipeError(.cancelled, "the write was cancelled", request: request.requestDescription) }
            // On a fresh connection these fail before a byte of the request is written.
            if [.connectionRefused, .dns, .tls, .proxy].contains(error.kind) { return .notSent("\(error)") }
            return .ambiguous("\(error)")
        }
        let body: JSONValue
        switch try WriteAnswerStatus.read(response, request: request.requestDescription) {
        case .ambiguous(let reason): return .ambiguous(reason)
        case .refused(let error): return .refused(error)
        case .body(let answer): body = answer
        }
        do throws(ScreensPipeError) {
            return .results(try JSONWSBatch.results(body, count: commands.count))
        } catch {
            return .ambiguous(error.message)
        }
    }

    /// The result of one read command (a lookup's `get-entries`, `get-articles`...),
    /// retried like a read: it changes nothing. `what` names the list in messages.
    func read(_ command: JSONWSCommand, what: String) async throws(ScreensPipeError) -> JSONValue {
        let sender = RetryingSender(client: client, policy: settings.retry)
        let (request, result) = try await credentials.send(try self.request([command])) { (request) async throws(HTTPError) -> HTTPResponse in
            try await sender.send(request)
        }
        let response: HTTPResponse
        switch result {
        case .success(let answer): response = answer
        case .failure(let error): throw ScreensPipeError.connectivity("cannot look \(what) up: \(error)", request: request.requestDescription)
        }
        guard response.isSuccess else {
            throw LiferayErrorBody.error(for: response, page: 0, request: request.requestDescription)
        }
        do {
            let body = try JSONValue(parsing: response.body)
            return try JSONWSBatch.results(body, count: 1)[0]
        } catch {
            throw ScreensPipeError.malformedResponse("\(what) could not be read: \(error)", request: request.requestDescription)
        }
    }
}
