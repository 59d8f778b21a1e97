import ScreensJSON

/// A complete HTTP request as the routes see it.
struct SandboxRequest: Sendable {
    var method: String
    /// The path without the query string.
    var path: String
    var query: QueryString
    /// Header names are lowercased.
    var headers: [String: String]
    var body: [UInt8]
    /// A `multipart/form-data` upload, parsed as it arrived instead of kept in `body`
    /// (``MultipartReceiver``).
    var upload: MultipartReceiver.Received?
    /// `http://` plus the Host the client used (else the server's own address), for absolute links.
    var baseURL: String
    /// When the request arrived, before any injected latency: a token is checked as of then.
    var receivedAt = ContinuousClock.now

    init(method: String, uri: String, headers: [(String, String)], body: [UInt8], localAddress: String) {
        self.method = method
        if let mark = uri.firstIndex(of: "?") {
            path = String(uri[..<mark])
            query = QueryString(String(uri[uri.index(after: mark)...]))
        } else {
            path = uri
            query = QueryString("")
        }
        var lowercased: [String: String] = [:]
        for (name, value) in headers { lowercased[name.lowercased()] = value }
        self.headers = lowercased
        self.body = body
        baseURL = "http://" + (lowercased["host"] ?? localAddress)
    }
}

/// A response before fault injection: status, headers and the complete body.
struct SandboxResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    static func json(_ status: Int, _ value: ScreensJSON.JSONValue, headers: [(String, String)] = []) -> SandboxResponse {
        SandboxResponse(
            status: status, headers: [("Content-Type", "application/json; charset=UTF-8")] + headers,
            body: value.jsonBytes)
    }

    static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=UTF-8") -> SandboxResponse {
        SandboxResponse(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
    }
}

/// A decoded query string, in order; `+` and `%XX` are decoded.
struct QueryString: Sendable {
    private(set) var items: [(name: String, value: String)] = []

    init(_ text: String) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            items.append((Self.decode(parts[0]), parts.count > 1 ? Self.decode(parts[1]) : ""))
        }
    }

    subscript(name: String) -> String? { items.last { $0.name == name }?.value }

    /// The integer parameter `name`; nil when absent, an error when not an integer.
    func integer(_ name: String) throws(InvalidQueryParameter) -> Int? {
        guard let text = self[name] else { return nil }
        guard let value = Int(text) else { throw InvalidQueryParameter(name: name, value: text) }
        return value
    }

    private static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let decoded = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(decoded)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A query parameter whose value is not what the endpoint accepts.
struct InvalidQueryParameter: Error, Sendable {
    var name: String
    var value: String
}
