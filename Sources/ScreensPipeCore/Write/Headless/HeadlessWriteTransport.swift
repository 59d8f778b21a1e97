import ScreensBus

/// The headless side of a web content write, on one site's structured contents:
///
/// - `POST /o/headless-delivery/v1.0/sites/{siteId}/structured-contents` creates; sent
///   once on a fresh connection, as a create must never run twice blindly.
/// - `PUT .../structured-contents/by-external-reference-code/{erc}` creates or replaces the
///   article with that code; the same request twice leaves one article, so it is retried
///   like a read, ambiguous failures included.
/// - The site's list (`flatten=true`, every folder) is the lookup that settles a POST
///   whose answer was lost.
struct HeadlessWriteTransport: Sendable {
    /// What one write request came to.
    enum Answer: Sendable {
        /// The stored `StructuredContent`.
        case stored(JSONValue)
        /// The portal refused the row: its problem JSON's `title` (or what the body says).
        case refused(String, status: Int)
        /// No answer could be read: the write may or may not have happened.
        case ambiguous(String)
    }

    /// An article found by key.
    struct Found: Sendable {
        var id: Int64
    }

    let settings: HTTPSourceSettings
    let client: HTTPClient
    let baseURL: String
    let siteId: Int64
    /// The sink's credentials, an OAuth 2 token included, as reads send them.
    let credentials: WriteCredentials

    init(settings: HTTPSourceSettings, client: HTTPClient, baseURL: String, siteId: Int64) {
        self.settings = settings
        self.client = client
        self.baseURL = baseURL
        self.siteId = siteId
        credentials = WriteCredentials(settings: settings, client: client)
    }

    /// The most list pages a lookup reads (100 items each): a site with more web content
    /// than that is not settled by paging it, and the write stops instead.
    static let maximumLookupPages = 2000

    var listURL: String {
        baseURL.trimmingSuffix("/") + "/o/headless-delivery/v1.0/sites/\(siteId)/structured-contents"
    }

    /// One article by its id (`resourcePrimKey`): what a delete by id or key removes.
    func articleURL(_ id: Int64) -> String {
        baseURL.trimmingSuffix("/") + "/o/headless-delivery/v1.0/structured-contents/\(id)"
    }

    func url(externalReferenceCode erc: String) -> String {
        // A dot segment is refused with its row before this (StructuredContentRow).
        listURL + "/by-external-reference-code/" + URLText.encode(erc)
    }

    /// The request, with the sink's credentials, headers and limits (an OAuth 2 token is a
    /// placeholder here: it is obtained when the request is sent).
    func request(_ method: String, url: String, body: JSONObject?) throws(ScreensPipeError) -> HTTPRequest {
        var request = HTTPRequest(method: method, url: url, body: body.map { JSONValue.object($0).jsonBytes })
        if body != nil { request.headers.add(name: "Content-Type", value: "application/json") }
        request.headers.add(name: "Accept", value: "application/json")
        try settings.authorize(&request)
        try credentials.planned(&request)
        return request
    }

    /// Creates an article: one attempt, never repeated here (but for a 401 to an OAuth 2
    /// token, which the portal answers before it stores anything).
    func post(_ body: JSONObject) async throws(ScreensPipeError) -> Answer {
        var prepared = try request("POST", url: listURL, body: body)
        prepared.freshConnection = true
        let client = client
        let (request, result) = try await credentials.send(prepared) { (request) async throws(HTTPError) -> HTTPResponse in
            try await client.send(request)
        }
        switch result {
        case .success(let response): return try interpret(response, request: request)
        case .failure(let error):
            if error.kind == .cancelled { throw ScreensPipeError(.cancelled, "the write was cancelled", request: request.requestDescription) }
            return .ambiguous("\(error)")
        }
    }

    /// Creates or replaces the article with code `erc`, retried within the sink's budget;
    /// `.ambiguous` when every attempt went unanswered.
    func put(_ erc: String, _ body: JSONObject) async throws(ScreensPipeError) -> Answer {
        let sender = RetryingSender(client: client, policy: settings.retry)
        // Retried like a read: a 401 is final to the sender, and answered by `credentials`.
        let (request, result) = try await credentials.send(try self.request("PUT", url: url(externalReferenceCode: erc), body: body)) {
            (request) async throws(HTTPError) -> HTTPResponse in
            try await sender.send(request, interpret: { response in
                if response.status != 401, case .ambiguous(let reason)? = try? interpret(response, request: request) {
                    return .retryable(response, reason: .invalidResponse(reason))
                }
                return .final(response)
            })
        }
        switch result {
        case .success(let response): return try interpret(response, request: request)
        case .failure(let error):
            if error.kind == .cancelled { throw ScreensPipeError(.cancelled, "the write was cancelled", request: request.requestDescription) }
            return .ambiguous("\(error)")
        }
    }

    /// The site's articles by `keyFields`, the first of each key: every page of the list,
    /// retried like any read.
    func lookup(keyFields: [String]) async throws(ScreensPipeError) -> [String: Found] {
        var found: [String: Found] = [:]
        try await walkItems(in: listURL, query: "flatten=true&", describing: "the site's web content list", missingIsEmpty: false) { item in
            guard let id = item["id"]?.int64Value else { return false }
            let key = StructuredContentRowValidator.key(
                title: item["title"]?.stringValue ?? "", friendlyUrlPath: item["friendlyUrlPath"]?.stringValue, erc: nil, fields: keyFields)
            if found[key] == nil { found[key] = Found(id: id) }
            return false
        }
        return found
    }

    /// What a write's response says (every headless write reads its answer by this rule).
    func interpret(_ response: HTTPResponse, request: HTTPRequest) throws(ScreensPipeError) -> Answer {
        if response.status == 401 || (300..<400).contains(response.status) {
            throw ScreensPipeError.authentication(
                "HTTP \(response.status): the portal refused the credentials (or redirected to its login page)",
                request: request.requestDescription, status: response.status)
        }
        if RetryPolicy.retryableStatuses.contains(response.status) {
            // A gateway's 502/504 may come after the portal stored the article.
            return .ambiguous("HTTP \(response.status)")
        }
        guard response.isSuccess else {
            let body = try? JSONValue(parsing: response.body)
            if let title = body?["title"]?.stringValue, !title.isEmpty { return .refused(title, status: response.status) }
            let error = LiferayErrorBody.error(for: response, page: 0, request: request.requestDescription)
            return .refused(error.message, status: response.status)
        }
        do {
            let body = try JSONValue(parsing: response.body)
            guard case .object = body else { return .ambiguous("HTTP \(response.status) with a body that is not a JSON object") }
            return .stored(body)
        } catch {
            return .ambiguous("HTTP \(response.status) with a body that is not JSON: \(error)")
        }
    }
}

extension HeadlessWriteTransport {
    /// The root of headless-delivery's paths on the sink's server.
    var headlessDeliveryURL: String { baseURL.trimmingSuffix("/") + "/o/headless-delivery/v1.0" }

    /// One write request, sent once on a fresh connection (never repeated here but for a
    /// 401 to an OAuth 2 token, answered before anything is stored). A `DELETE`'s empty 204
    /// is `.stored(.null)`.
    func write(_ method: String, url: String, body: JSONObject?) async throws(ScreensPipeError) -> Answer {
        var prepared = try request(method, url: url, body: body)
        prepared.freshConnection = true
        let client = client
        let (request, result) = try await credentials.send(prepared) { (request) async throws(HTTPError) -> HTTPResponse in
            try await client.send(request)
        }
        switch result {
        case .success(let response):
            if method == "DELETE", response.isSuccess, response.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D }) { return .stored(.null) }
            return try interpret(response, request: request)
        case .failure(let error):
            if error.kind == .cancelled { throw ScreensPipeError(.cancelled, "the write was cancelled", request: request.requestDescription) }
            return .ambiguous("\(error)")
        }
    }
}

extension HeadlessWriteTransport {
    /// After a create that got no answer (`attempt` of them so far): once the retries are
    /// spent, the error that leaves the row pending; else, after the retry delay, whether the
    /// lookup `settle` found the row created (true: done; false: send it again). The rule
    /// every headless create follows, so none of them sends blindly twice.
    func settleUnanswered(
        line: Int, reason: String, attempt: inout Int, lookingUp what: String, settle: () async throws(ScreensPipeError) -> Bool
    ) async throws(ScreensPipeError) -> Bool {
        guard attempt < settings.retry.attempts else {
            throw ScreensPipeError.connectivity(
                "line \(line) got no answer after \(attempt) attempts (\(reason)); the journal keeps it pending, and a rerun looks it up before writing")
        }
        let delay = settings.retry.exponentialDelay(beforeRetry: attempt)
        attempt += 1
        settings.logger.warning("line \(line) got no answer (\(reason)); looking \(what) up before sending again")
        do { try await Task.sleep(for: delay) } catch { throw ScreensPipeError(.cancelled, "the write was cancelled") }
        do throws(ScreensPipeError) {
            return try await settle()
        } catch {
            throw ScreensPipeError(
                error.code,
                "line \(line) got no answer (\(reason)) and the lookup that would settle it failed: \(error.message); the journal keeps it pending, and a rerun looks it up before writing",
                request: error.request, status: error.status)
        }
    }
}

extension HeadlessWriteTransport {
    /// What an idempotent change came to.
    enum ChangeOutcome: Sendable {
        /// The portal answered with success: the stored item (`.null` for a DELETE's 204).
        case done(JSONValue)
        /// A DELETE found its item gone (404) after an attempt that got no answer (this
        /// run's, or an earlier run's when `undecided`): that attempt deleted it.
        case goneAfterUnanswered
        /// The portal refused it.
        case refused(String, status: Int)
    }

    /// An idempotent change, a `PUT` or a `DELETE`: the same request twice leaves the
    /// portal as once, so it is sent again after an ambiguous failure, with the retry
    /// delays, until answered or the attempts are spent (then the error that leaves the row
    /// pending, for the next run to send again). `sending` runs before each attempt. The
    /// rule every headless update and delete follows.
    func change(
        _ method: String, url: String, body: JSONObject?, undecided: Bool, line: Int, describing what: String,
        sending: () -> Void
    ) async throws(ScreensPipeError) -> ChangeOutcome {
        var unanswered = undecided
        var attempt = 1
        while true {
            sending()
            switch try await write(method, url: url, body: body) {
            case .stored(let stored):
                return .done(stored)
            case .refused(let reason, let status):
                if method == "DELETE", status == 404, unanswered { return .goneAfterUnanswered }
                return .refused(reason, status: status)
            case .ambiguous(let reason):
                guard attempt < settings.retry.attempts else {
                    throw ScreensPipeError.connectivity(
                        "line \(line) (\(what)) got no answer after \(attempt) attempts (\(reason)); the journal keeps it pending, and a rerun sends it again")
                }
                unanswered = true
                let delay = settings.retry.exponentialDelay(beforeRetry: attempt)
                attempt += 1
                do { try await Task.sleep(for: delay) } catch { throw ScreensPipeError(.cancelled, "the write was cancelled") }
            }
        }
    }
}

extension HeadlessWriteTransport {
    /// The first item of the headless collection at `url` that `matches`: what a create
    /// whose answer was lost stored there. Nil when none matches or the collection's parent
    /// does not exist (a 404: nothing was stored on it). `what` names the collection in
    /// errors ("the comments of structured-contents 12").
    func firstItem(in url: String, describing what: String, where matches: (JSONValue) -> Bool) async throws(ScreensPipeError) -> JSONValue? {
        var match: JSONValue?
        try await walkItems(in: url, describing: what, missingIsEmpty: true) { item in
            guard matches(item) else { return false }
            match = item
            return true
        }
        return match
    }

    /// Reads every page of the headless collection at `url` (`query` before its paging
    /// parameters), each retried like any read, up to ``maximumLookupPages``, handing each
    /// item to `visit` until it answers true. With `missingIsEmpty`, a 404 is an empty
    /// collection (its parent does not exist); else it is the portal's error.
    private func walkItems(
        in url: String, query: String = "", describing what: String, missingIsEmpty: Bool, _ visit: (JSONValue) -> Bool
    ) async throws(ScreensPipeError) {
        let sender = RetryingSender(client: client, policy: settings.retry)
        var page = 1
        while true {
            let (request, result) = try await credentials.send(try self.request("GET", url: url + "?\(query)pageSize=100&page=\(page)", body: nil)) {
                (request) async throws(HTTPError) -> HTTPResponse in
                try await sender.send(request)
            }
            let response: HTTPResponse
            switch result {
            case .success(let answer): response = answer
            case .failure(let error):
                throw ScreensPipeError.connectivity("cannot look \(what) up: \(error)", request: request.requestDescription)
            }
            if missingIsEmpty, response.status == 404 { return }
            guard response.isSuccess else { throw LiferayErrorBody.error(for: response, page: page - 1, request: request.requestDescription) }
            let body: JSONValue
            do {
                body = try JSONValue(parsing: response.body)
            } catch {
                throw ScreensPipeError.malformedResponse("\(what) could not be read: \(error)", request: request.requestDescription)
            }
            guard let items = body["items"]?.arrayValue else {
                throw ScreensPipeError.malformedResponse("\(what): the answer has no 'items'", request: request.requestDescription)
            }
            for item in items where visit(item) { return }
            guard Int64(page) < body["lastPage"]?.int64Value ?? 1, !items.isEmpty else { return }
            guard page < Self.maximumLookupPages else {
                throw ScreensPipeError.malformedResponse(
                    "\(what) runs past \(Self.maximumLookupPages) pages; the lookup stops there", request: request.requestDescription)
            }
            page += 1
        }
    }
}
