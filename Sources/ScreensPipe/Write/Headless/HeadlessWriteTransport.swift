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

    /// The most list pages a lookup reads (100 items each): a site with more web content
    /// than that is not settled by paging it, and the write stops instead.
    static let maximumLookupPages = 2000

    var listURL: String {
        baseURL.trimmingSuffix("/") + "/o/headless-delivery/v1.0/sites/\(siteId)/structured-contents"
    }

    func url(externalReferenceCode erc: String) -> String {
        listURL + "/by-external-reference-code/" + Self.pathSegment(erc)
    }

    /// The request, with the sink's credentials, headers and limits.
    func request(_ method: String, url: String, body: JSONObject?) throws(ScreensPipeError) -> HTTPRequest {
        var request = HTTPRequest(method: method, url: url, body: body.map { JSONValue.object($0).jsonBytes })
        if body != nil { request.headers.add(name: "Content-Type", value: "application/json") }
        request.headers.add(name: "Accept", value: "application/json")
        try settings.authorize(&request)
        return request
    }

    /// Creates an article: one attempt, never repeated here.
    func post(_ body: JSONObject) async throws(ScreensPipeError) -> Answer {
        var request = try request("POST", url: listURL, body: body)
        request.freshConnection = true
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            if error.kind == .cancelled { throw ScreensPipeError(.cancelled, "the write was cancelled", request: request.requestDescription) }
            return .ambiguous("\(error)")
        }
        return try interpret(response, request: request)
    }

    /// Creates or replaces the article with code `erc`, retried within the sink's budget;
    /// `.ambiguous` when every attempt went unanswered.
    func put(_ erc: String, _ body: JSONObject) async throws(ScreensPipeError) -> Answer {
        let request = try request("PUT", url: url(externalReferenceCode: erc), body: body)
        let sender = RetryingSender(client: client, policy: settings.retry)
        var thrown: ScreensPipeError?
        let answer: Answer
        do {
            answer = try await sender.send(request, interpret: { response in
                do throws(ScreensPipeError) {
                    let verdict = try interpret(response, request: request)
                    if case .ambiguous(let reason) = verdict { return .retryable(verdict, reason: .invalidResponse(reason)) }
                    return .final(verdict)
                } catch {
                    thrown = error
                    return .final(.ambiguous(error.message))
                }
            })
        } catch {
            if error.kind == .cancelled { throw ScreensPipeError(.cancelled, "the write was cancelled", request: request.requestDescription) }
            return .ambiguous("\(error)")
        }
        if let thrown { throw thrown }
        return answer
    }

    /// The site's articles by `keyFields`, the first of each key: every page of the list,
    /// retried like any read.
    func lookup(keyFields: [String]) async throws(ScreensPipeError) -> [String: Found] {
        let sender = RetryingSender(client: client, policy: settings.retry)
        var found: [String: Found] = [:]
        var page = 1
        while true {
            let request = try request("GET", url: listURL + "?flatten=true&pageSize=100&page=\(page)", body: nil)
            let response: HTTPResponse
            do {
                response = try await sender.send(request)
            } catch {
                throw ScreensPipeError.connectivity("cannot look the site's web content up: \(error)", request: request.requestDescription)
            }
            guard response.isSuccess else { throw LiferayErrorBody.error(for: response, page: page - 1, request: request.requestDescription) }
            let body: JSONValue
            do {
                body = try JSONValue(parsing: response.body)
            } catch {
                throw ScreensPipeError.malformedResponse("the site's web content list could not be read: \(error)", request: request.requestDescription)
            }
            guard let items = body["items"]?.arrayValue else {
                throw ScreensPipeError.malformedResponse("the site's web content list has no 'items'", request: request.requestDescription)
            }
            for item in items {
                guard let id = item["id"]?.int64Value else { continue }
                let key = StructuredContentRowValidator.key(
                    title: item["title"]?.stringValue ?? "", friendlyUrlPath: item["friendlyUrlPath"]?.stringValue, erc: nil,
                    fields: keyFields)
                if found[key] == nil { found[key] = Found(id: id) }
            }
            let lastPage = body["lastPage"]?.int64Value ?? 1
            guard Int64(page) < lastPage, !items.isEmpty else { return found }
            guard page < Self.maximumLookupPages else {
                throw ScreensPipeError.malformedResponse(
                    "the site's web content list has more than \(Self.maximumLookupPages) pages; the lookup stops there",
                    request: request.requestDescription)
            }
            page += 1
        }
    }

    /// What a write's response says.
    private func interpret(_ response: HTTPResponse, request: HTTPRequest) throws(ScreensPipeError) -> Answer {
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
            guard case .object = body else { return .ambiguous("HTTP \(response.status) with a body that is not a StructuredContent") }
            return .stored(body)
        } catch {
            return .ambiguous("HTTP \(response.status) with a body that is not JSON: \(error)")
        }
    }

    /// `erc` as one path segment: everything but RFC 3986's unreserved characters escaped.
    static func pathSegment(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.append(Character(Unicode.Scalar(byte)))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return result
    }
}
