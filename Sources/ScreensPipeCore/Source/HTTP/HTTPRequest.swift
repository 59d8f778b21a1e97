/// One HTTP request and the transport limits that apply to it.
///
/// Defaults follow `source:` in the pipeline file: 15 s total, 5 s connect,
/// 64 MiB responses, TLS verified, redirects NOT followed (a JSON-WS fetcher must see a 302
/// to a login page to report bad credentials).
package struct HTTPRequest: Sendable, CustomStringConvertible {
    /// The method, e.g. `GET` or `POST`.
    package var method: String
    /// The absolute `http://` or `https://` URL. Userinfo, if any, is sent as basic auth by
    /// libcurl and never shown in messages.
    package var url: String
    /// Request headers, in order. Values may hold secrets; they are redacted in messages.
    package var headers: HTTPHeaders
    /// The request body; nil sends none.
    package var body: [UInt8]?
    /// A body streamed from a file instead of `body` (an upload); nil sends `body`.
    package var upload: HTTPUploadBody?
    /// The whole transfer's time limit; nil means none.
    package var timeout: Duration?
    /// The time limit for connecting (TCP and TLS); nil means libcurl's default (300 s).
    package var connectTimeout: Duration?
    /// Abort when the transfer is slower than this for long enough; nil means never.
    package var lowSpeed: LowSpeedLimit?
    /// The largest response body accepted, in bytes (after content decoding).
    package var maxResponseSize: Int
    /// A CA bundle (PEM) to verify the server against, instead of the system's.
    package var caFile: String?
    /// Verify the server's TLS certificate and host name. Turning it off is the caller's
    /// explicit decision, and the caller warns about it.
    package var verifyTLS: Bool
    /// The proxy the request goes through (``ProxySpec/endpoint(for:environment:)``).
    package var proxy: ProxySpec = .none
    /// The certificate presented when the server asks for one.
    package var clientCertificate: ClientCertificateSpec?
    /// Follow 3xx redirects (at most 10). Off by default.
    package var followRedirects: Bool
    /// Send on a new connection, closed afterwards. A request that must not run twice
    /// (a JSON-WS `add-entry`) needs it: on a reused connection that dies before the
    /// answer, libcurl sends the request again by itself.
    package var freshConnection = false

    /// A request with the pipeline's default limits.
    package init(
        method: String = "GET",
        url: String,
        headers: HTTPHeaders = [:],
        body: [UInt8]? = nil,
        timeout: Duration? = .seconds(15),
        connectTimeout: Duration? = .seconds(5),
        lowSpeed: LowSpeedLimit? = .default,
        maxResponseSize: Int = 64 << 20,
        caFile: String? = nil,
        verifyTLS: Bool = true,
        followRedirects: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.lowSpeed = lowSpeed
        self.maxResponseSize = maxResponseSize
        self.caFile = caFile
        self.verifyTLS = verifyTLS
        self.followRedirects = followRedirects
    }

    /// Secret values this request carries whose names may not say so (`{ secret: value }`
    /// query parameters, headers and JSON-WS parameters): every shown form of the request
    /// replaces them, besides what the name rules redact.
    package var secretValues: [String] = []

    /// `"POST http://127.0.0.1:8080/api/jsonws/invoke"`, with userinfo and secret query
    /// values redacted: the form used in error messages, events and logs.
    package var requestDescription: String {
        redactingValues(ScreensPipeCore.requestDescription(method: method, url: url), secretValues)
    }

    package var description: String { requestDescription }
}

/// libcurl's low-speed abort: the transfer fails with a timeout when it moves fewer than
/// `bytesPerSecond` for `duration` (whole seconds, at least 1). It catches servers that
/// send headers and then stall, well before the total timeout.
package struct LowSpeedLimit: Sendable, Hashable {
    package var bytesPerSecond: Int
    package var duration: Duration

    package init(bytesPerSecond: Int, duration: Duration) {
        self.bytesPerSecond = bytesPerSecond
        self.duration = duration
    }

    /// Below 1 byte/s for 30 s.
    package static let `default` = LowSpeedLimit(bytesPerSecond: 1, duration: .seconds(30))
}

/// `"POST http://127.0.0.1:8080/api/jsonws/invoke"` for `method` and `url`, redacted, with
/// control characters escaped: a next link is the server's text, and it is shown in
/// messages, logs and events.
package func requestDescription(method: String, url: String) -> String {
    "\(method) \(escapedControlCharacters(redactedURL(url)))"
}
