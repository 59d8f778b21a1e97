/// A transfer that produced no complete response.
///
/// Statuses are never `HTTPError`s (see `HTTPResponse`); this is the transport failing.
package struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, coarse enough to decide on retries and cache fallback.
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Nothing listens on the port, or the host is unreachable.
        case connectionRefused = "connection refused"
        /// The host name did not resolve.
        case dns = "dns"
        /// Connect, total or low-speed timeout.
        case timeout = "timeout"
        /// The connection was closed or reset before a response arrived.
        case connectionReset = "connection reset"
        /// The response started but its body was cut short.
        case truncated = "truncated"
        /// The body is larger than `maxResponseSize`; the transfer was aborted.
        case tooLarge = "too large"
        /// The TLS handshake or certificate verification failed.
        case tls = "tls"
        /// The proxy refused the request before it reached the server: it asked for
        /// credentials it was not given or did not accept (407), or refused the tunnel.
        case proxy = "proxy"
        /// The calling task was cancelled, or the client shut down.
        case cancelled = "cancelled"
        /// Anything else (bad URL, unsupported protocol, bad content encoding, ...).
        case other = "other"
    }

    package var kind: Kind
    /// What libcurl said (its error text and details), never holding secrets.
    package var message: String
    /// The request, as `requestDescription` (redacted).
    package var request: String

    package init(_ kind: Kind, _ message: String, request: String) {
        self.kind = kind
        self.message = message
        self.request = request
    }

    /// Whether the server could not be reached or the answer did not arrive whole: the
    /// failures worth a retry, and the ones remote-first answers from the cache.
    package var isConnectivity: Bool {
        switch kind {
        case .connectionRefused, .dns, .timeout, .connectionReset, .truncated: true
        case .tooLarge, .tls, .proxy, .cancelled, .other: false
        }
    }

    /// The code of the error a run reports for this failure: `cancelled`, `connectivity` for
    /// the failures worth a retry, else `http`.
    package var pipelineCode: ScreensPipeError.Code {
        kind == .cancelled ? .cancelled : (isConnectivity ? .connectivity : .http)
    }

    /// `"connection refused: Failed to connect to 127.0.0.1 port 1 (GET http://127.0.0.1:1/)"`.
    package var description: String { "\(kind.rawValue): \(message) (\(request))" }
}
