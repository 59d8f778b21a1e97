internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix

/// The sandbox portal: a Liferay look-alike over real HTTP on loopback.
///
/// Serves JSON-WS (`POST /api/jsonws/invoke`), headless delivery structured contents and a
/// generic REST family over sample data, and misbehaves on purpose as its ``FaultPlan`` says.
public final class SandboxServer: Sendable {
    private let channel: any Channel
    let state: ServerState
    /// The configuration the server was started with.
    public let configuration: SandboxConfiguration

    /// The bound TCP port (the ephemeral one when the configuration asked for port 0).
    public let port: Int

    /// `http://HOST:PORT`, ready for a pipeline's `server:`.
    public var baseURL: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(port)"
    }

    /// HTTP requests received so far, on any path, including those answered with an injected fault.
    public var requestCount: Int { state.requestCount }

    /// OAuth 2 access tokens issued so far by `/o/oauth2/token`.
    public var oauth2TokensIssued: Int { state.router.oauth2?.tokensIssued ?? 0 }

    /// Token requests `/o/oauth2/token` answered with a token, per `grant_type`
    /// (`client_credentials`, `password`, `refresh_token`).
    public var oauth2GrantsAnswered: [String: Int] { state.router.oauth2?.grantsAnswered ?? [:] }

    /// Successful form sign-ins at `/c/portal/login`.
    public var cookieSignIns: Int { state.router.sessions.signIns }

    /// Every session cookie value and CSRF token the form sign-in handed out, so a test
    /// can search a run's outputs for them.
    public var cookieSessionSecrets: [String] { state.router.sessions.issuedSecrets }

    /// Every OAuth 2 access and refresh token the provider issued or holds, so a test can
    /// search a run's outputs for them.
    public var oauth2IssuedTokens: [String] { state.router.oauth2?.knownTokens ?? [] }

    /// When each data request admitted by the rate limit arrived, from the server's start
    /// (empty without a rate limit).
    public var admittedRequestTimes: [Duration] { state.router.rateLimit?.admittedTimes ?? [] }

    /// Data requests answered 429 by the rate limit.
    public var rateLimitedRequests: Int { state.router.rateLimit?.refusedCount ?? 0 }

    /// The most client connections that were open at once since the server started.
    public var peakConnectionCount: Int { state.connectionGauge.peak }
    /// Connections accepted since the start: fewer than requests when clients reuse them.
    public var acceptedConnectionCount: Int { state.connectionGauge.accepted }
    /// With `FaultPlan.capacity`: the most data requests in flight at once.
    public var peakRequestsInFlight: Int { state.faults.peakInFlight }
    /// With `FaultPlan.overloadAt`: the data requests refused with a 503 as overload.
    public var overloadedRequests: Int { state.faults.overloaded }

    private init(channel: any Channel, state: ServerState, configuration: SandboxConfiguration, port: Int) {
        self.channel = channel
        self.state = state
        self.configuration = configuration
        self.port = port
    }

    /// Loads the data and starts listening.
    ///
    /// - Throws: ``SandboxError`` when the data cannot be found or read, or the bind error.
    public static func start(_ configuration: SandboxConfiguration) async throws -> SandboxServer {
        var data = try DataDirectory.load(try DataDirectory.locate(configured: configuration.dataDirectory))
        for index in data.accounts.users.indices {
            if let password = configuration.passwords[data.accounts.users[index].emailAddress] { data.accounts.users[index].password = password }
        }
        // The parsed data is shared by every sandbox of the process; comment writes change
        // this sandbox's own copy of the discussions.
        data.discussions = data.discussions.copy()
        data.uploads = UploadedFiles(fileMaxSize: configuration.fileMaxSize)
        let portal = Portal(
            data: data,
            generated: configuration.generatedRows > 0 ? GeneratedBookmarks(count: configuration.generatedRows) : nil,
            hideEvery: configuration.hideEvery, entries: BookmarkEntries(data.bookmarks))
        var router = Router(
            portal: portal, loginRedirect: configuration.loginRedirect, version: configuration.liferayVersion,
            oauth2: configuration.oauth2.map(OAuth2Authority.init(plan:)), sessions: PortalSessions(sessionUses: configuration.sessionUses),
            rateLimit: configuration.rateLimit.map(RateLimitGate.init(limit:)), prettyHeadless: !configuration.compactHeadless)
        router.jsonLayout = configuration.jsonLayout
        let state = ServerState(
            router: router,
            faults: FaultInjector(plan: configuration.faults, seed: configuration.seed))
        let down = configuration.faults.down

        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if down {
                        try channel.pipeline.syncOperations.addHandler(ResetOnConnectHandler())
                        return
                    }
                    state.track(channel)
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(SandboxHTTPHandler(server: state))
                }
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()

        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw SandboxError("the sandbox could not read its bound port")
        }
        return SandboxServer(channel: channel, state: state, configuration: configuration, port: port)
    }

    /// Stops listening and closes every open connection, stalled ones included.
    public func stop() async throws {
        if channel.isActive { try await channel.close() }
        await state.closeAll()
    }
}
