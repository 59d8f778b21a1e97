import ScreensBus
internal import Foundation

/// One wire format for paged lists: how a page becomes an HTTP request, and how the
/// response becomes rows. ``HTTPPageFetcher`` does the rest (auth, retries, errors).
protocol WireFormat: Sendable {
    var chaining: PageChaining { get }

    /// Whether requests carry the page's size (see ``PageFetcher/requestsPageSize``).
    var requestsPageSize: Bool { get }

    /// The settings the format was made from; their cache identity is the fetcher's identity.
    associatedtype Settings: SourceTypeSettings
    var spec: Settings { get }

    /// The `type:` name and the server, for the `started` event and logs.
    var summary: String { get }

    /// The request for a page; headers here are the wire format's own (auth is added later).
    func request(for page: PageRequest) throws(ScreensPipeError) -> HTTPRequest

    /// Where ``decode(_:response:page:)`` takes the rows from, unchanged: the steps from the
    /// body's root to the array of rows. The body is parsed keeping each row's received text
    /// there, and a row nothing changes is written from it. Nil (the default) when the rows
    /// are not one array at a fixed place.
    func rowsPath(for page: PageRequest) -> [JSONPathStep]?

    /// Turns a successful (2xx) response into the page's rows.
    func decode(_ body: JSONValue, response: HTTPResponse, page: PageRequest) throws(ScreensPipeError) -> DecodedPage

    /// Turns an error response into a typed error; the default reads Liferay's error bodies.
    func error(for response: HTTPResponse, page: PageRequest, request: String) -> ScreensPipeError
}

/// What a wire format reads out of one response.
struct DecodedPage: Sendable {
    var rows: [JSONValue]
    var rowCount: Int?
    var continuation: String?
    /// What the response lacked where the next page is named (``FetchedPage/missingContinuation``).
    var missingContinuation: String?
    /// The number of pages the server says the list has (``FetchedPage/pageCount``).
    var pageCount: Int?
    /// Set when an `on-response:` rule skipped the page or ended the list.
    var action: PageResponseAction?
    /// The paginator `paginate: auto` chose, as a `paginate:` value.
    var paginator: String?
    /// The rule that made this page the last (``FetchedPage/endsList``).
    var endsList: ListEnd?
    /// Each row's text as received (``FetchedPage/rowTexts``), set by the fetcher.
    var rowTexts: JSONElementTexts?
}

extension WireFormat {
    var chaining: PageChaining { .indexed }

    var requestsPageSize: Bool { true }

    func rowsPath(for page: PageRequest) -> [JSONPathStep]? { nil }

    func error(for response: HTTPResponse, page: PageRequest, request: String) -> ScreensPipeError {
        LiferayErrorBody.error(for: response, page: page.index, request: request)
    }
}

/// Liferay's error bodies: `{"exception":"...","error":{"message":"...","type":"..."}}`
/// (7.x) or `{"exception":"...","message":"..."}` (older), mapped to typed errors.
enum LiferayErrorBody {
    static func error(for response: HTTPResponse, page: Int, request: String) -> ScreensPipeError {
        let body = try? JSONValue(parsing: response.body)
        var (rawMessage, rawType) = body.map(details(of:)) ?? (nil, nil)
        // Gateways, proxies and web servers answer in HTML; their page title says why
        // (nginx: "400 No required SSL certificate was sent").
        if body == nil { rawMessage = htmlTitle(response.body) }
        // Server text reaches the terminal: escape control characters, cap the length.
        let message = rawMessage.map { sanitizedServerText($0) }
        let type = rawType.map { sanitizedServerText($0, limit: 200) }
        let code: ScreensPipeError.Code = response.status == 401 ? .authentication : .http
        var text = "HTTP \(response.status)"
        switch response.status {
        case 401: text += " bad or missing credentials"
        case 403: text += " permission denied"
        case 404: text += " not found"
        default: break
        }
        if let message { text += ": \(message)" }
        if let type { text += " [\(type)]" }
        return ScreensPipeError(code, text, page: page, request: request, status: response.status, exceptionType: type)
    }

    /// The text of an HTML page's `<title>`, from its first 4 KiB; nil when there is none.
    static func htmlTitle(_ body: [UInt8]) -> String? {
        let text = String(decoding: body.prefix(4096), as: UTF8.self)
        guard let open = text.range(of: "<title>", options: .caseInsensitive),
            let close = text.range(of: "</title>", options: .caseInsensitive, range: open.upperBound..<text.endIndex)
        else { return nil }
        let title = text[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        return title.isEmpty ? nil : title
    }

    /// The message and exception class of a Liferay error body, if it is one.
    static func details(of body: JSONValue) -> (message: String?, type: String?) {
        guard case .object = body else { return (nil, nil) }
        if let error = body["error"], case .object = error {
            return (error["message"]?.stringValue ?? body["exception"]?.stringValue, error["type"]?.stringValue)
        }
        let message = body["message"]?.stringValue ?? body["exception"]?.stringValue
        let type = body["exception"]?.stringValue.flatMap { $0.hasPrefix("com.") || $0.hasPrefix("java.") ? $0 : nil }
        return (message, type)
    }

    /// Whether a 2xx body is actually a portal exception (JSON-WS answers some errors with 200).
    static func portalException(in body: JSONValue) -> (message: String, type: String?)? {
        guard case .object = body, body["exception"] != nil else { return nil }
        let (message, type) = details(of: body)
        return (message ?? "the portal reported an exception", type)
    }
}
