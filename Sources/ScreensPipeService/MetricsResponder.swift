public import Prometheus

/// The answer to a scrape of `/metrics`, for a route of the embedder's own HTTP server
/// (Hummingbird, Vapor, or any other): no listening socket and no framework of its own,
/// so an app that already serves HTTP exposes its pipelines' metrics beside its routes
/// rather than on a second port. ``MetricsEndpoint`` answers with it too.
///
/// ```swift
/// let responder = MetricsResponder(registry: registry)
/// // In a Hummingbird route, `router.get("metrics") { request, _ in ... }`:
/// let answer = responder.response(method: request.method.rawValue)
/// // answer.status, answer.headers and answer.body become the framework's response.
/// ```
public struct MetricsResponder: Sendable {
    /// An HTTP answer, as plain values a framework's response is made of.
    public struct Response: Sendable {
        /// The status code: 200, or 405 for a method other than GET and HEAD.
        public var status: Int
        /// `Content-Type` and `Content-Length` (and `Allow` on a 405).
        public var headers: [(name: String, value: String)]
        /// The samples in the Prometheus text format (version 0.0.4); empty for HEAD.
        public var body: [UInt8]

        init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A plain-text answer.
        init(status: Int, text: String, headers: [(name: String, value: String)] = []) {
            let body = Array(text.utf8)
            self.init(
                status: status,
                headers: headers + [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.count))],
                body: body)
        }
    }

    /// The registry whose samples are served (the one the pipelines' `PrometheusMetricsFactory` fills).
    public let registry: PrometheusCollectorRegistry

    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// The answer to a request with `method` (`GET`, `HEAD`, ...) at the route the app
    /// mounted: the registry's samples as they are now, for GET; their headers alone for
    /// HEAD; 405 with `Allow` for anything else (a scrape never changes state).
    public func response(method: String) -> Response {
        switch method {
        case "GET", "HEAD":
            let samples = registry.emitToBuffer()
            return Response(
                status: 200,
                headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8"), ("Content-Length", String(samples.count))],
                body: method == "GET" ? samples : [])
        default:
            return Response(status: 405, text: "only GET and HEAD\n", headers: [("Allow", "GET, HEAD")])
        }
    }
}
