/// An HTTP client on libcurl's multi interface: one connection cache and one I/O thread
/// for any number of concurrent requests.
///
/// ```swift
/// let client = HTTPClient()
/// let response = try await client.send(HTTPRequest(url: "http://127.0.0.1:8080/api/jsonws/invoke"))
/// await client.shutdown()
/// ```
///
/// Any HTTP status is a response; only transport failures throw (`HTTPError`). Cancelling
/// the calling task aborts its transfer and throws `.cancelled` promptly.
package final class HTTPClient: Sendable {
    /// Client-wide settings.
    package struct Configuration: Sendable {
        /// Connections open to one host at once; more transfers queue for a free one. HTTP/2
        /// multiplexes many transfers over one connection.
        package var maxConnectionsPerHost: Int
        /// Idle connections kept for reuse.
        package var maxCachedConnections: Int
        /// The `User-Agent` sent unless a request sets its own.
        package var userAgent: String

        package init(maxConnectionsPerHost: Int = 8, maxCachedConnections: Int = 32, userAgent: String = "screens-pipe") {
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxCachedConnections = maxCachedConnections
            self.userAgent = userAgent
        }

        /// Room for `prefetch` pages in flight plus one more connection, so a page whose
        /// connection is still closing (or a count request beside page 0) never waits for a
        /// slot while the loader keeps its whole window in flight.
        package static func following(prefetch: Int) -> Self {
            let connections = max(1, prefetch) + 1
            let defaults = Self()
            return Self(maxConnectionsPerHost: connections, maxCachedConnections: max(defaults.maxCachedConnections, connections))
        }
    }

    package let configuration: Configuration
    private let loop: CurlMultiLoop

    /// Starts the client and its I/O thread.
    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        loop = CurlMultiLoop(
            limits: .init(
                maxConnectionsPerHost: configuration.maxConnectionsPerHost,
                maxCachedConnections: configuration.maxCachedConnections))
    }

    deinit {
        // Never wait in deinit: the loop's thread finishes on its own.
        loop.requestShutdown()
    }

    /// Sends `request` and returns the complete response, whatever its status.
    ///
    /// - Throws: `HTTPError` when no complete response arrived: refused, DNS, timeout,
    ///   reset, truncated, too large, TLS, cancelled (the task, or `shutdown()`), other.
    package func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        if Task.isCancelled {
            throw HTTPError(.cancelled, "the request was cancelled", request: request.requestDescription)
        }
        let transfer = try CurlTransfer(request: request, userAgent: configuration.userAgent)
        let loop = self.loop
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                loop.submit(transfer, continuation: continuation)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
        return try result.get()
    }

    /// Cancels every transfer in flight (they throw `.cancelled`), closes all connections
    /// and returns once the I/O thread has stopped (suspending, not blocking). Later sends
    /// throw `.cancelled`. Safe to call twice.
    package func shutdown() async {
        await loop.shutdown()
    }
}
