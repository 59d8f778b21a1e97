internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix
public import Prometheus
public import ServiceLifecycle

/// An HTTP `/metrics` endpoint for Prometheus, as a `Service` beside ``PipelineService``
/// in the same `ServiceGroup`: `GET /metrics` answers the registry's samples in the
/// Prometheus text format; every other path is a 404.
///
/// ```swift
/// let registry = PrometheusCollectorRegistry()
/// var environment = PipelineEnvironment.current(sandbox: BundledSandbox())
/// environment.metricsFactory = PrometheusMetricsFactory(registry: registry)
/// let pipeline = try PipelineService(file: "pipelines/bookmarks.yaml", environment: environment, schedule: .every(.seconds(300)))
/// let metrics = try await MetricsEndpoint.bind(host: "127.0.0.1", port: 9464, registry: registry)
/// let group = ServiceGroup(services: [pipeline, metrics], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// It listens on a loopback address only: the samples name pipelines, and exposing them
/// beyond the machine is a decision for a proxy in front of it. A graceful shutdown closes
/// the listening socket.
public struct MetricsEndpoint: Service, Sendable {
    /// The port it listens on (the one the system chose when asked for port 0).
    public let port: Int
    /// The address it listens on.
    public let host: String
    private let channel: any Channel

    /// An error of ``MetricsEndpoint/bind(host:port:registry:)``.
    public struct BindError: Error, Sendable, CustomStringConvertible {
        /// Why it cannot listen.
        public var description: String
    }

    /// Listens on `host:port` now (so a port in use fails here, before the group runs);
    /// serves `registry` until ``run()`` sees a graceful shutdown.
    ///
    /// - Throws: ``BindError`` for a host that is not a loopback address, or a port that
    ///   cannot be bound.
    public static func bind(host: String = "127.0.0.1", port: Int, registry: PrometheusCollectorRegistry) async throws(BindError) -> MetricsEndpoint {
        guard host == "localhost" || host == "::1" || host.hasPrefix("127.") else {
            throw BindError(description: "the metrics endpoint listens on a loopback address only (127.0.0.1, ::1, localhost), not \(host)")
        }
        guard (0...65535).contains(port) else { throw BindError(description: "port \(port) is not between 0 and 65535") }
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(registry: registry))
                    }
                }
                .bind(host: host, port: port).get()
            return MetricsEndpoint(port: channel.localAddress?.port ?? port, host: host, channel: channel)
        } catch {
            throw BindError(description: "cannot listen on \(host):\(port) for metrics: \(error)")
        }
    }

    /// Serves until a graceful shutdown (or cancellation), then closes the socket.
    public func run() async throws {
        try? await gracefulShutdown()
        try? await channel.close()
    }
}

/// One connection: answers each request, then closes, so a scraper's connection holds no
/// state between scrapes. Request bodies are ignored.
final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let registry: PrometheusCollectorRegistry
    private var head: HTTPRequestHead?

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let response =
            path == "/metrics"
            ? MetricsResponder(registry: registry).response(method: head.method.rawValue)
            : MetricsResponder.Response(status: 404, text: "metrics are at /metrics\n")
        var headers = HTTPHeaders([("Connection", "close")])
        headers.add(contentsOf: response.headers)
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if !response.body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
