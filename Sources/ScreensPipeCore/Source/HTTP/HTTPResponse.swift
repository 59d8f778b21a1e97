/// A complete HTTP response. Any status is a response, not an error: the caller decides
/// what a 404 or a 302 means for its wire format.
package struct HTTPResponse: Sendable {
    /// The status code of the final response (the redirect itself when not following).
    package var status: Int
    /// The final response's headers, in order, case-insensitive lookup.
    package var headers: HTTPHeaders
    /// The body, content-decoded (gzip/deflate).
    package var body: [UInt8]
    /// The URL the body came from (differs from the request's after followed redirects).
    package var effectiveURL: String

    package init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [], effectiveURL: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.effectiveURL = effectiveURL
    }

    /// Whether the status is 2xx.
    package var isSuccess: Bool { (200..<300).contains(status) }

    /// The body as UTF-8 text (invalid sequences replaced).
    package var text: String { String(decoding: body, as: UTF8.self) }
}
