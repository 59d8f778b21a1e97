internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// One connection: collects each request, routes it, and writes the answer through the fault plan.
final class SandboxHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Requests larger than this are refused; portal requests are a few kilobytes.
    static let maximumBodySize = 8 << 20

    private enum State {
        case idle
        case receiving(HTTPRequestHead, [UInt8])
        /// An upload (``DLAppUploads``): the multipart body is parsed as it arrives, its
        /// file counted and dropped, so its size costs no memory.
        case uploading(HTTPRequestHead, MultipartReceiver)
        /// The body was too large; the rest of it is drained, then a 413 is sent.
        case refusing(HTTPRequestHead)
        case responding
    }

    private let server: ServerState
    private var state = State.idle

    init(server: ServerState) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (.head(let head), _):
            if head.method == .POST,
                head.uri.split(separator: "?").first.map({ $0 == Substring(DLAppUploads.path) || HeadlessDocumentWrites.isUploadPath($0) }) == true,
                let receiver = head.headers.first(name: "Content-Type").flatMap(MultipartReceiver.init(contentType:))
            {
                state = .uploading(head, receiver)
            } else {
                state = .receiving(head, [])
            }
        case (.body(var buffer), .uploading(let head, var receiver)):
            state = .responding
            receiver.feed(buffer.readBytes(length: buffer.readableBytes) ?? [])
            state = .uploading(head, receiver)
        case (.body(var buffer), .receiving(let head, var body)):
            state = .responding  // drop the state's reference so appending does not copy the body
            if body.count + buffer.readableBytes > Self.maximumBodySize {
                state = .refusing(head)
            } else {
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
                state = .receiving(head, body)
            }
        case (.body, _):
            break
        case (.end, .receiving(let head, let body)):
            state = .responding
            handle(head: head, body: body, context: context)
        case (.end, .uploading(let head, var receiver)):
            state = .responding
            handle(head: head, body: [], upload: receiver.finish(), context: context)
        case (.end, .refusing(let head)):
            state = .responding
            write(.text(413, "Request Entity Too Large\n"), head: head, context: context)
        case (.end, _):
            break
        }
    }

    private func handle(head: HTTPRequestHead, body: [UInt8], upload: MultipartReceiver.Received? = nil, context: ChannelHandlerContext) {
        server.countRequest()
        var request = SandboxRequest(
            method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: body,
            localAddress: Self.hostAndPort(context.localAddress))
        request.upload = upload
        guard Router.isDataEndpoint(request.path) else {
            write(server.router.respond(to: request), head: head, context: context)
            return
        }
        var (number, action) = server.faults.nextRequest()
        if server.faults.plan.targets(uri: head.uri, body: body) { action = .fail }
        guard let stretch = server.faults.admit() else {
            write(server.faults.overloadResponse(), head: head, context: context)
            return
        }
        let faults = server.faults
        let latency = server.faults.plan.latency * stretch
        if latency > .zero {
            let due = NIODeadline.now() + TimeAmount(latency)
            if server.faults.plan.latencyCountsWork && action == .none {
                // A latency that counts the sandbox's work: the answer is made now and only
                // its sending waits. It is made on the thread pool, side by side with others,
                // as a portal's worker threads make them: made on the event loop, answers to
                // requests that arrive together were made one after another, and a request
                // was only read, and its latency started, once the answers before it were
                // made (the first round of eight pages at once left up to 60 ms late).
                let router = server.router
                NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) { router.respond(to: request) }
                    .assumeIsolated().whenComplete { result in
                        switch result {
                        case .success(let prepared):
                            context.eventLoop.assumeIsolated().scheduleTask(deadline: due) {
                                faults.release()
                                self.write(prepared, head: head, context: context)
                            }
                        case .failure:
                            // The pool is shut down: the sandbox is stopping.
                            faults.release()
                            context.close(promise: nil)
                        }
                    }
                return
            }
            // A faulty answer is made when due, as without.
            context.eventLoop.assumeIsolated().scheduleTask(deadline: due) {
                faults.release()
                self.answer(request, number: number, action: action, head: head, context: context)
            }
        } else {
            faults.release()
            answer(request, number: number, action: action, head: head, context: context)
        }
    }

    private func answer(
        _ request: SandboxRequest, number: Int, action: FaultAction, head: HTTPRequestHead, context: ChannelHandlerContext
    ) {
        switch action {
        case .none:
            write(server.router.respond(to: request), head: head, context: context)
        case .fail:
            write(server.faults.failureResponse(requestNumber: number), head: head, context: context)
        case .malformed:
            write(FaultInjector.malformed(server.router.respond(to: request)), head: head, context: context)
        case .reset:
            Self.reset(context.channel)
        case .dropAfterProcessing:
            _ = server.router.respond(to: request)
            Self.reset(context.channel)
        case .truncate:
            let response = server.router.respond(to: request)
            writeHead(response, head: head, keepAlive: false, context: context)
            writeBody(response.body.prefix(response.body.count / 2), context: context)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer()))), promise: nil)
            context.close(promise: nil)
        case .stall:
            let response = server.router.respond(to: request)
            let half = response.body.count / 2
            writeHead(response, head: head, keepAlive: head.isKeepAlive, context: context)
            writeBody(response.body.prefix(half), context: context)
            context.flush()
            context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(server.faults.plan.stallDuration)) {
                guard context.channel.isActive else { return }
                self.writeBody(response.body.dropFirst(half), context: context)
                self.finish(keepAlive: head.isKeepAlive, context: context)
            }
        }
    }

    private func write(_ response: SandboxResponse, head: HTTPRequestHead, context: ChannelHandlerContext) {
        writeHead(response, head: head, keepAlive: head.isKeepAlive, context: context)
        writeBody(response.body[...], context: context)
        finish(keepAlive: head.isKeepAlive, context: context)
    }

    private func writeHead(_ response: SandboxResponse, head: HTTPRequestHead, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        for (name, value) in response.headers { headers.add(name: name, value: value) }
        headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
        headers.replaceOrAdd(name: "Server", value: "Liferay Sandbox (screens-pipe)")
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        let responseHead = HTTPResponseHead(
            version: head.version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
    }

    private func writeBody(_ bytes: ArraySlice<UInt8>, context: ChannelHandlerContext) {
        guard !bytes.isEmpty else { return }
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))), promise: nil)
    }

    private func finish(keepAlive: Bool, context: ChannelHandlerContext) {
        state = .idle
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            done.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    private static func hostAndPort(_ address: SocketAddress?) -> String {
        guard let address, let ip = address.ipAddress, let port = address.port else { return "127.0.0.1" }
        return address.protocol == .inet6 ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Closes `channel` with a TCP reset (SO_LINGER 0) instead of an orderly FIN.
    static func reset(_ channel: any Channel) {
        guard let provider = channel as? any SocketOptionProvider else {
            channel.close(promise: nil)
            return
        }
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// Resets every connection as soon as it is accepted: the sandbox's "down" mode.
final class ResetOnConnectHandler: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    func channelActive(context: ChannelHandlerContext) {
        SandboxHTTPHandler.reset(context.channel)
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
