/// How a ``SandboxServer`` listens, what it serves and how it misbehaves.
public struct SandboxConfiguration: Sendable {
    /// The address to bind; loopback by default so the sandbox is never reachable from outside.
    public var host: String
    /// The TCP port; 0 picks a free ephemeral port (read it back from ``SandboxServer/port``).
    public var port: Int
    /// A directory of portal data files; nil serves the bundled sample data.
    public var dataDirectory: String?
    /// Rows of the generated bookmarks folder (group 20143, folder 1000000) and of the
    /// `/rest/generated/...` endpoints; 0 turns the generator off.
    public var generatedRows: Int
    /// Permission filtering: after a page is sliced, drop every row whose list index
    /// `% hideEvery == hideEvery - 1`, while counts still include those rows.
    public var hideEvery: Int?
    /// Answer bad or missing credentials with a 302 to `/c/portal/login` instead of a 401,
    /// as portals behind a login page do.
    public var loginRedirect: Bool
    /// Faults injected into data endpoints.
    public var faults: FaultPlan
    /// Seeds the generator behind ``FaultPlan/failRate``, so a run can be replayed.
    public var seed: UInt64
    /// The portal version to stand in for: its JSON-WS signatures decide which commands are
    /// answered, and headless delivery exists from 7.2 on.
    public var liferayVersion: LiferayVersion
    /// The OAuth 2 provider at `/o/oauth2/token` and its clients; nil serves none.
    public var oauth2: OAuth2Plan? = .standard
    /// Passwords that replace users.json's, by email address: a test signs in with a
    /// password it can search every output for (users.json's are short words).
    public var passwords: [String: String] = [:]
    /// End each form sign-in's session (`/c/portal/login`) after this many data requests
    /// carried it: the session expires mid-list; nil keeps sessions for the server's life.
    public var sessionUses: Int?
    /// The largest file `/dlapp/add-file-entry` accepts, in bytes (the portal's
    /// `dl.file.max.size`, 100 MB by default); a larger one gets FileSizeException.
    public var fileMaxSize: Int64 = 104_857_600
    /// A request budget on the data endpoints (429 beyond it); nil admits everything.
    public var rateLimit: SandboxRateLimit?
    /// Answer headless requests with compact JSON. By default they are pretty-printed with
    /// two-space indentation, as a portal answers `curl`; JSON-WS is compact either way.
    public var compactHeadless = false
    /// Lay out every JSON answer (JSON-WS, headless and REST) this way, for clients measured
    /// or tested on each layout; nil answers as a portal does (headless pretty-printed unless
    /// ``compactHeadless``, everything else compact).
    public var jsonLayout: SandboxJSONLayout?

    /// Creates a configuration; every default is a well-behaved portal on an ephemeral loopback port.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        dataDirectory: String? = nil,
        generatedRows: Int = 0,
        hideEvery: Int? = nil,
        loginRedirect: Bool = false,
        faults: FaultPlan = .none,
        seed: UInt64 = 0,
        liferayVersion: LiferayVersion = .default
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.generatedRows = generatedRows
        self.hideEvery = hideEvery
        self.loginRedirect = loginRedirect
        self.faults = faults
        self.seed = seed
        self.liferayVersion = liferayVersion
    }
}

/// Faults injected into data endpoints (JSON-WS invoke, headless delivery, REST).
///
/// Data requests are numbered 1, 2, 3... in arrival order; an `...Every: n` fault hits the
/// requests whose number is a multiple of n. When several faults pick the same request, the
/// first of reset, failure (every/rate), truncation, malformed body and stall wins.
public struct FaultPlan: Sendable {
    /// Delay before every data answer (faulty or not).
    public var latency: Duration
    /// Every Nth data request gets ``failStatus`` with a JSON error body.
    public var failEvery: Int?
    /// The probability (0...1) that a data request gets ``failStatus``; drawn from the seeded generator.
    public var failRate: Double
    /// The status of injected failures: 503 by default, 429 for rate limiting, any 5xx.
    public var failStatus: Int
    /// The `Retry-After` value sent with injected failures: seconds ("1") or an HTTP date.
    public var retryAfter: String?
    /// Every Nth data request: the connection is closed abruptly (RST, SO_LINGER 0), no response.
    public var resetEvery: Int?
    /// Every Nth data request: processed (a write is stored), then the connection is reset
    /// before the answer, the ambiguous failure a client must not blindly retry.
    public var dropAfterProcessingEvery: Int?
    /// Every Nth data request: the full Content-Length is announced, half the body is sent, then the connection closes.
    public var truncateEvery: Int?
    /// Every Nth data request: a 200 whose body is not valid JSON.
    public var malformedEvery: Int?
    /// Every Nth data request: headers and half the body, then nothing for ``stallDuration``, then the rest.
    public var stallEvery: Int?
    /// How long a stalled response pauses mid-body.
    public var stallDuration: Duration
    /// The portal is down: every connection is accepted and reset at once (clients see
    /// "connection reset by peer"), so nothing is ever answered.
    public var down: Bool
    /// Fail every data request whose target (path and query) or body contains this text
    /// with ``failStatus``: one child list of a fan-out fails, the others do not.
    public var failMatching: String?
    /// Whether ``latency`` counts the sandbox's own work: each data answer is made as its
    /// request arrives (the data as of then) and leaves when the latency has passed since
    /// the arrival, however long making it took. Off, the latency comes first and the answer
    /// is made after it, so its time adds to the delay. A benchmark of a client's prefetch
    /// turns this on, so a round of requests costs the latency and nothing for the
    /// sandbox's work on the same cores.
    public var latencyCountsWork = false
    /// A portal of limited capacity: this many data requests are served at ``latency``
    /// at once; with more in flight the server shares itself among them, so each one's
    /// latency grows with their number (k requests: latency × k / capacity). Nil: unlimited.
    public var capacity: Int?
    /// With ``capacity``: a data request that arrives with this many in flight already is
    /// refused at once with a 503, as an overloaded portal's proxy refuses.
    public var overloadAt: Int?

    /// Creates a fault plan; the defaults inject nothing.
    public init(
        latency: Duration = .zero,
        failEvery: Int? = nil,
        failRate: Double = 0,
        failStatus: Int = 503,
        retryAfter: String? = nil,
        resetEvery: Int? = nil,
        truncateEvery: Int? = nil,
        malformedEvery: Int? = nil,
        stallEvery: Int? = nil,
        stallDuration: Duration = .seconds(30),
        down: Bool = false,
        dropAfterProcessingEvery: Int? = nil
    ) {
        self.dropAfterProcessingEvery = dropAfterProcessingEvery
        self.latency = latency
        self.failEvery = failEvery
        self.failRate = failRate
        self.failStatus = failStatus
        self.retryAfter = retryAfter
        self.resetEvery = resetEvery
        self.truncateEvery = truncateEvery
        self.malformedEvery = malformedEvery
        self.stallEvery = stallEvery
        self.stallDuration = stallDuration
        self.down = down
    }

    /// A well-behaved portal.
    public static let none = FaultPlan()
}
