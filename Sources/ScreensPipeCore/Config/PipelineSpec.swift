import ScreensBus

/// A place in a pipeline file, for messages that read `file:line:column: message`.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file as named in messages; `--set key.path` for a command-line override.
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column.
    public var column: Int

    /// Creates a location from a file name and a 1-based line and column.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, the prefix of a configuration message.
    public var description: String { "\(file):\(line):\(column)" }
}

/// A whole pipeline, decoded and validated from a pipeline file.
public struct PipelineSpec: Sendable, Hashable {
    /// The pipeline's name; defaults to the file name without `.yaml`.
    public var name: String
    /// `source:` — where the rows come from.
    public var source: SourceSpec
    /// `convert:`; nil passes the raw rows through unchanged.
    public var convert: ConvertSpec?
    /// `cache:`; nil means remote-only without storing.
    public var cache: CacheSpec?
    /// `filter:`; nil selects every row.
    public var filter: FilterSpec?
    /// `sink:` — where selected rows go.
    public var sink: SinkSpec
    /// The file the spec came from, when it came from a file.
    public var file: String?
    /// `incremental:`; nil delivers every row on every run.
    public var incremental: IncrementalSpec?
    /// `follow:`; what `run --follow` does beyond its polls (the key sweep).
    public var follow: FollowSpec?

    /// Creates a pipeline spec; the sink defaults to items on stdout, and no cache section
    /// means remote-only without storing.
    public init(
        name: String, source: SourceSpec, convert: ConvertSpec? = nil, cache: CacheSpec? = nil,
        filter: FilterSpec? = nil, sink: SinkSpec = SinkSpec(), file: String? = nil
    ) {
        self.name = name
        self.source = source
        self.convert = convert
        self.cache = cache
        self.filter = filter
        self.sink = sink
        self.file = file
    }
}

// MARK: - Source

/// Where rows come from, and how to ask for them.
public struct SourceSpec: Sendable, Hashable {
    /// The `type:` and the settings of that type.
    public var type: SourceTypeSpec
    /// The base URL of the server (`http://host:port`), or the bundled sandbox.
    public var server: ServerAddress?
    /// The server's company and default site (`server: { url:, company-id:, group-id: }`),
    /// as Liferay Screens' `LiferayServerContext` holds them; nil when not given.
    public var serverContext: ServerContext?
    /// Credentials sent with every request; nil sends none.
    public var auth: AuthSpec?
    /// How the list is split into pages.
    public var pagination: PaginationSpec
    /// Total time allowed for one request.
    public var timeout: Duration
    /// Time allowed to establish a connection.
    public var connectTimeout: Duration
    /// How failed requests are retried.
    public var retry: RetrySpec
    /// The largest response body accepted, in bytes.
    public var maxResponseSize: Int
    /// Send credentials over plain http to a host that is not loopback.
    public var allowInsecureAuth: Bool
    /// Follow a next link or `Link` header that names another origin (scheme, host, port);
    /// such requests are sent without credentials. Off: another origin is an error.
    public var followOtherOrigins: Bool = false
    /// A CA bundle for TLS verification.
    public var caFile: String?
    /// Turn TLS verification off (explicit, and warned about).
    public var insecureSkipTLSVerify: Bool
    /// `proxy:`: how requests reach the server (directly by default).
    public var proxy: ProxySpec = .none
    /// `client-cert:`, `client-key:`, `client-key-passphrase:`: the certificate presented
    /// to a server that asks for one; nil presents none.
    public var clientCertificate: ClientCertificateSpec? = nil
    /// Extra request headers; secret-named ones (`Cookie`, `X-Api-Key`...) and those
    /// written `{ secret: value }` hold a ``SensitiveText/secret(_:)``.
    public var headers: [HeaderSpec]
    /// `rate-limit:`: the request budget for the server's origin, shared by the process;
    /// nil leaves only the server's own signals (429, `RateLimit-*` headers).
    public var rateLimit: RateLimitSpec? = nil
    /// `on-response:`: rules that skip a page, end the list, retry or fail on a status or
    /// body match, tried in order before a response is read as a page.
    public var onResponse: [ResponseRule] = []
    /// `for-each:`: run this source once per row of another list (see ``FanOutSpec``).
    public var forEach: FanOutSpec?
    /// `include:`: parent fields copied into every output row under `_parent`.
    public var include: [IncludedField] = []
    /// `recursive:`: list a tree (folders within folders) by listing each row's children.
    public var recursive: RecursionSpec?
    /// The `source:` mapping as written, placeholders unresolved: each parent row resolves
    /// it into the source of its child list. Nil for sources built in code.
    var rowTemplate: YAMLMapping?

    /// Creates a source spec with the defaults of a pipeline file: 15 s timeout, 5 s connect
    /// timeout, a 64 MiB response limit and TLS verification on.
    public init(
        type: SourceTypeSpec,
        server: ServerAddress? = nil,
        auth: AuthSpec? = nil,
        pagination: PaginationSpec = PaginationSpec(),
        timeout: Duration = .seconds(15),
        connectTimeout: Duration = .seconds(5),
        retry: RetrySpec = RetrySpec(),
        maxResponseSize: Int = 64 << 20,
        allowInsecureAuth: Bool = false,
        caFile: String? = nil,
        insecureSkipTLSVerify: Bool = false,
        headers: [HeaderSpec] = []
    ) {
        self.type = type
        self.server = server
        self.auth = auth
        self.pagination = pagination
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.retry = retry
        self.maxResponseSize = maxResponseSize
        self.allowInsecureAuth = allowInsecureAuth
        self.caFile = caFile
        self.insecureSkipTLSVerify = insecureSkipTLSVerify
        self.headers = headers
    }
}

/// One extra request header of `source.headers`, in the order written.
public struct HeaderSpec: Sendable, Hashable {
    /// The header name, an HTTP token.
    public var name: String
    /// The value; a ``SensitiveText/secret(_:)`` for secret-named headers (`Cookie`,
    /// `X-Api-Key`...) and those written `{ secret: value }`.
    public var value: SensitiveText

    /// Creates a header.
    public init(name: String, value: SensitiveText) {
        self.name = name
        self.value = value
    }
}

/// `server:` — a base URL or the bundled sandbox portal.
public enum ServerAddress: Sendable, Hashable {
    /// An `http://` or `https://` base URL.
    case url(String)
    /// Start the bundled sandbox portal in-process on a loopback port.
    case sandbox
}

/// Credentials. Values never appear in any output.
public enum AuthSpec: Sendable, Hashable {
    /// `Authorization: Basic base64(username:password)`.
    case basic(username: String, password: Secret)
    /// `Authorization: Bearer <token>`.
    case bearer(token: Secret)
    /// `Authorization: Bearer <token>` with a token obtained (and renewed) from an OAuth 2
    /// token endpoint.
    case oauth2(OAuth2Spec)
    /// A portal session from its login form (`Cookie` and the `X-CSRF-Token` of
    /// `Liferay.authToken`), as Liferay Screens' cookie authentication signs in.
    case cookie(CookieSignInSpec)
}

/// Fluent pagination (docs/architecture.md, "Pagination").
public struct PaginationSpec: Sendable, Hashable {
    /// Rows on page 0 (`first-page-size`, default 50).
    /// Headless and page-numbered REST sources use ``pageSize`` for page 0 too.
    public var firstPageSize: Int
    /// Rows on every page after the first (`page-size`, default 25).
    public var pageSize: Int
    /// Pages in flight at once; with ``adaptivePrefetch``, the most it may keep in flight.
    public var prefetch: Int
    /// `prefetch: auto`: the pages in flight are tuned from the server's response times and
    /// back-pressure, from 1 up to ``prefetch`` (`max-prefetch`, default
    /// ``defaultPrefetchCeiling``).
    public var adaptivePrefetch = false
    /// `max-prefetch` when `prefetch: auto` does not name one.
    public static let defaultPrefetchCeiling = 16
    /// A guard against runaway lists: more pages than this is an error.
    public var maxPages: Int

    /// Creates a pagination spec; the defaults are those of docs/architecture.md, "Pagination" (50, 25, 4 in flight,
    /// at most 10,000 pages).
    public init(firstPageSize: Int = 50, pageSize: Int = 25, prefetch: Int = 4, maxPages: Int = 10_000) {
        self.firstPageSize = firstPageSize
        self.pageSize = pageSize
        self.prefetch = prefetch
        self.maxPages = maxPages
    }

    /// The first row of page `page`: `page == 0 ? 0 : firstPageSize + (page - 1) * pageSize`.
    public func firstRow(ofPage page: Int) -> Int {
        page == 0 ? 0 : firstPageSize + (page - 1) * pageSize
    }

    /// The rows page `page` covers, end exclusive.
    public func rowRange(ofPage page: Int) -> Range<Int> {
        firstRow(ofPage: page)..<firstRow(ofPage: page + 1)
    }
}

/// Retries for 408/429/5xx and connectivity failures.
public struct RetrySpec: Sendable, Hashable {
    /// Total tries of one request, the first included.
    public var attempts: Int
    /// The wait before the first retry, doubled for each one after and randomised (full jitter).
    public var backoff: Duration
    /// The longest backoff; a server's `Retry-After` is honoured up to the larger of this and 60 s.
    public var maxBackoff: Duration

    /// Creates a retry spec: 4 tries by default, waits from 200 ms up to 10 s.
    public init(attempts: Int = 4, backoff: Duration = .milliseconds(200), maxBackoff: Duration = .seconds(10)) {
        self.attempts = attempts
        self.backoff = backoff
        self.maxBackoff = maxBackoff
    }
}

// MARK: - Convert

/// The built-in models of the list screenlets.
public enum ModelKind: String, Sendable, Hashable, CaseIterable {
    /// A bookmarks entry (`entryId`, `name`, `url`, ...).
    case bookmark
    /// A web content article (`articleId`, `title`, `content`, ...).
    case webContent = "web-content"
    /// A Screens asset entry (`entryId`, `className`, `title`, ...), its own `object` kept as it came.
    case asset
    /// A DDL record, flattened: `recordId`, `recordSetId`, the attributes, then the record's values.
    case ddlRecord = "ddl-record"
    /// A comment of an asset's discussion (`commentId`, `body`, `userName`, `editable`, ...).
    case comment
    /// An image file entry of a folder (`fileEntryId`, `title`, `imageUrl`, `thumbnailUrl`, ...).
    case image
}

/// `convert:` — raw portal objects to model rows.
public struct ConvertSpec: Sendable, Hashable {
    /// The built-in model rows are converted to; nil leaves the raw object to `fields`, or passes it through.
    public var model: ModelKind?
    /// The locale for localized values, e.g. `es_ES`; also sent as Accept-Language / `locale`.
    public var locale: String?
    /// A declarative mapping; when set with a model, it maps the model's output.
    public var fields: [FieldMapping]?
    /// What to do with a row that fails conversion (`on-invalid`, default `fail`).
    public var onInvalid: InvalidRowPolicy

    /// Creates a convert spec; with no model and no fields rows pass through, and invalid rows fail.
    public init(model: ModelKind? = nil, locale: String? = nil, fields: [FieldMapping]? = nil, onInvalid: InvalidRowPolicy = .fail) {
        self.model = model
        self.locale = locale
        self.fields = fields
        self.onInvalid = onInvalid
    }
}

/// What to do with a row that fails conversion (a missing required field, a bad type).
public enum InvalidRowPolicy: String, Sendable, Hashable {
    /// Emit an error event for the row, go on, and exit 1 at the end.
    case fail
    /// Drop the row quietly.
    case skip
}

/// One output field of a `fields:` mapping.
public struct FieldMapping: Sendable, Hashable {
    /// The output name.
    public var name: String
    /// The source path: `name`, `author.email`, `tags[0]`.
    public var from: String
    /// The type the value is coerced to; nil keeps it as found.
    public var type: FieldType?
    /// Written when the source is missing or null; coerced to `type` once, when the pipeline is built.
    public var defaultValue: JSONValue?
    /// A missing or null source with no default makes the row invalid; otherwise it is written as `null`.
    public var required: Bool
    /// Resolve a localized value (XML or map form) to the pipeline locale.
    public var localized: Bool
    /// Where the field is named in the pipeline file, for configuration errors.
    public var location: SourceLocation?

    /// Creates a mapping of `from` to the output `name`: untyped, optional and not localized
    /// unless told otherwise.
    public init(
        name: String, from: String, type: FieldType? = nil, defaultValue: JSONValue? = nil,
        required: Bool = false, localized: Bool = false, location: SourceLocation? = nil
    ) {
        self.name = name
        self.from = from
        self.type = type
        self.defaultValue = defaultValue
        self.required = required
        self.localized = localized
        self.location = location
    }
}

/// The type a mapped field is coerced to.
public enum FieldType: String, Sendable, Hashable, CaseIterable {
    /// Text, a 64-bit integer, any number, or a boolean; a value that cannot be converted
    /// without loss is refused, never rounded.
    case string, int, number, bool
    /// Epoch milliseconds or ISO text, written as ISO 8601.
    case date
}

// MARK: - Cache

/// The offline policies of Liferay Screens (docs/architecture.md, "Cache and offline policies").
public enum CachePolicy: String, Sendable, Hashable, CaseIterable {
    /// Fetch, and store on success; a failure is an error.
    case remoteOnly = "remote-only"
    /// Read the cache only; a missing page is an error.
    case cacheOnly = "cache-only"
    /// Fetch and store; on a connectivity failure read the cache. HTTP and portal errors do not fall back.
    case remoteFirst = "remote-first"
    /// Read the cache; on a miss, or an entry older than `ttl`, fetch and store.
    case cacheFirst = "cache-first"
    /// Emit the cached page at once, then fetch and emit the fresh one, each marked with its origin.
    case cacheAndRemote = "cache-and-remote"
}

/// `cache:`.
public struct CacheSpec: Sendable, Hashable {
    /// The offline policy, per page (default `remote-first`).
    public var policy: CachePolicy
    /// A key template such as `"{groupId}-{folderId}"`; nil derives the key from the request.
    public var key: String?
    /// How old a cached page may be for `cache-first`.
    public var ttl: Duration?
    /// The database file; nil uses the default location.
    public var path: String?
    /// A PostgreSQL database instead of a file (`url:`, `tls:`, `ca-file:`), shared by every
    /// process that names it.
    public var postgres: PostgresTarget?
    /// How long a run waits for another run of the same list or write target to finish
    /// (`lock-wait`; nil: ``RunLock/defaultWait``) before it fails with a `locked` error.
    public var lockWait: Duration?

    /// Creates a cache spec; by default `remote-first`, with a key derived from the request, no
    /// age limit and the default database.
    public init(
        policy: CachePolicy = .remoteFirst, key: String? = nil, ttl: Duration? = nil, path: String? = nil,
        postgres: PostgresTarget? = nil, lockWait: Duration? = nil
    ) {
        self.postgres = postgres
        self.lockWait = lockWait
        self.policy = policy
        self.key = key
        self.ttl = ttl
        self.path = path
    }
}

// MARK: - Filter

/// `filter:`.
public struct FilterSpec: Sendable, Hashable {
    /// The selection expression.
    public var expression: String?
    /// Where the expression starts in the pipeline file, for error carets.
    public var expressionLocation: SourceLocation?
    /// Stop after this many selected rows.
    public var limit: Int?

    /// Creates a filter spec; with no expression every row is selected, and with no limit all of them.
    public init(expression: String? = nil, expressionLocation: SourceLocation? = nil, limit: Int? = nil) {
        self.expression = expression
        self.expressionLocation = expressionLocation
        self.limit = limit
    }
}

// MARK: - Sink

/// `sink:`.
public struct SinkSpec: Sendable, Hashable {
    /// Where the lines are written (default stdout).
    public var destination: SinkDestination
    /// What the lines hold (default `items`).
    public var format: SinkFormat
    /// The fields each written row keeps, in this order (`sink.fields`, `--fields`); nil
    /// keeps whole rows. Only the sink's output is projected: the bus carries whole rows.
    public var fields: [FieldPath]?
    /// `type: liferay`: rows are written to a portal (`screens-pipe write`), not printed.
    public var liferay: LiferaySinkSpec?

    /// Creates a sink spec; by default one line per selected row on stdout.
    public init(destination: SinkDestination = .stdout, format: SinkFormat = .items, fields: [FieldPath]? = nil) {
        self.destination = destination
        self.format = format
        self.fields = fields
    }
}

/// Where a sink writes (`sink.type`).
public enum SinkDestination: Sendable, Hashable {
    /// Standard output.
    case stdout
    /// Written to a temporary name beside `path`, renamed when complete.
    case file(path: String)
    /// No output: for embedding services that only subscribe to the bus.
    case discard
    /// A sink of a type a linked product registered, such as `type: postgres` (rows
    /// upserted into a PostgreSQL table by a key, from `ScreensPipePostgres`).
    case registered(RegisteredSink)
}

/// What a sink writes (`sink.format`).
public enum SinkFormat: String, Sendable, Hashable, CaseIterable {
    /// One line per selected row: the row itself.
    case items
    /// Every event as a JSON envelope.
    case events
    /// Aligned columns for people.
    case table
    /// RFC 4180 comma-separated values with a header line.
    case csv
    /// Tab-separated values with a header line; tabs and line breaks in values escaped.
    case tsv
}
