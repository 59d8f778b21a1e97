public import ScreensBus

/// A place in a pipeline file, for messages that read `file:line:column: message`.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column.
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}

/// A whole pipeline, decoded and validated from a pipeline file (DESIGN §8).
public struct PipelineSpec: Sendable {
    /// The pipeline's name; defaults to the file name without `.yaml`.
    public var name: String
    public var source: SourceSpec
    public var convert: ConvertSpec?
    public var cache: CacheSpec?
    public var filter: FilterSpec?
    public var sink: SinkSpec
    /// The file the spec came from, when it came from a file.
    public var file: String?

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
public struct SourceSpec: Sendable {
    public var protocolSpec: SourceProtocol
    /// The base URL of the server (`http://host:port`), or the bundled sandbox.
    public var server: ServerAddress?
    public var auth: AuthSpec?
    public var pagination: PaginationSpec
    /// Total time allowed for one request.
    public var timeout: Duration
    /// Time allowed to establish a connection.
    public var connectTimeout: Duration
    public var retry: RetrySpec
    /// The largest response body accepted, in bytes.
    public var maxResponseSize: Int
    /// Send credentials over plain http to a host that is not loopback.
    public var allowInsecureAuth: Bool
    /// A CA bundle for TLS verification.
    public var caFile: String?
    /// Turn TLS verification off (explicit, and warned about).
    public var insecureSkipTLSVerify: Bool
    /// Extra request headers (values may hold secrets and are redacted in output).
    public var headers: [(name: String, value: String)]

    public init(
        protocolSpec: SourceProtocol,
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
        headers: [(name: String, value: String)] = []
    ) {
        self.protocolSpec = protocolSpec
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

/// The `source.type` and its protocol-specific settings.
public enum SourceProtocol: Sendable {
    case liferayJSONWS(JSONWSSourceSpec)
    case liferayHeadless(HeadlessSourceSpec)
    case rest(RESTSourceSpec)
    case file(FileSourceSpec)

    /// The `type:` name as written in a pipeline file.
    public var typeName: String {
        switch self {
        case .liferayJSONWS: "liferay-jsonws"
        case .liferayHeadless: "liferay-headless"
        case .rest: "rest"
        case .file: "file"
        }
    }
}

/// `server:` — a base URL or the bundled sandbox portal.
public enum ServerAddress: Sendable, Hashable {
    case url(String)
    /// Start the bundled sandbox portal in-process on a loopback port.
    case sandbox
}

/// Credentials. Values never appear in any output.
public enum AuthSpec: Sendable, Hashable {
    case basic(username: String, password: String)
    case bearer(token: String)
}

/// One JSON-WS command: a service path and its parameters.
public struct ServiceCall: Sendable, Hashable {
    /// The service path, e.g. `/bookmarks.bookmarksentry/get-entries`.
    public var service: String
    /// Parameters as written; nested objects are flattened to `+name` / `name.field` when sent.
    public var params: JSONObject

    public init(service: String, params: JSONObject = [:]) {
        self.service = service
        self.params = params
    }
}

/// `type: liferay-jsonws`.
public struct JSONWSSourceSpec: Sendable, Hashable {
    /// The command that returns a page of rows; `start` and `end` are added per page.
    public var rows: ServiceCall
    /// The command that returns the row count, sent with page 0 only.
    public var count: ServiceCall?
    /// An order-by comparator class, sent as `+obc`; nil sends `"obc": null` where the service takes one.
    public var sort: String?
    /// The parameter that carries the first row (`start`; `entryQuery.start` for asset entries).
    public var startParam: String
    /// The parameter that carries the end row, exclusive (`end`; `entryQuery.end` for asset entries).
    public var endParam: String

    public init(rows: ServiceCall, count: ServiceCall? = nil, sort: String? = nil, startParam: String = "start", endParam: String = "end") {
        self.rows = rows
        self.count = count
        self.sort = sort
        self.startParam = startParam
        self.endParam = endParam
    }
}

/// `type: liferay-headless`.
public struct HeadlessSourceSpec: Sendable, Hashable {
    /// The collection path, e.g. `/o/headless-delivery/v1.0/sites/20143/structured-contents`.
    public var path: String
    /// Extra query parameters (`filter`, `sort`, `fields`...), in order.
    public var query: [QueryParameter]

    public init(path: String, query: [QueryParameter] = []) {
        self.path = path
        self.query = query
    }
}

/// A query-string parameter.
public struct QueryParameter: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// `type: rest` — any paged JSON API.
public struct RESTSourceSpec: Sendable, Hashable {
    /// The URL of the first page, absolute or relative to `server`.
    public var url: String
    /// Path to the array of rows in the response body (`data.items`); nil when the body is the array.
    public var records: String?
    /// Path to the total row count in the body, when the API reports one.
    public var total: String?
    public var paginate: RESTPaginationStyle
    public var query: [QueryParameter]

    public init(url: String, records: String? = nil, total: String? = nil, paginate: RESTPaginationStyle, query: [QueryParameter] = []) {
        self.url = url
        self.records = records
        self.total = total
        self.paginate = paginate
        self.query = query
    }
}

/// How a generic REST API pages.
public enum RESTPaginationStyle: Sendable, Hashable {
    /// `?offset=0&limit=25`.
    case offset(offsetParam: String = "offset", limitParam: String = "limit")
    /// `?page=1&per_page=25`; `firstPage` is the number of the first page (usually 1).
    case page(pageParam: String = "page", sizeParam: String = "per_page", firstPage: Int = 1)
    /// A cursor in the body (`cursorPath`) sent back as `cursorParam`.
    case cursor(cursorParam: String = "cursor", cursorPath: String = "next_cursor", sizeParam: String? = "limit")
    /// A next-page URL in the body at `nextPath`.
    case nextLink(nextPath: String = "next")
    /// The `Link: <...>; rel="next"` response header.
    case linkHeader
}

/// `type: file` — a local JSON array or JSON-lines file, paged like a remote list.
public struct FileSourceSpec: Sendable, Hashable {
    /// The file's path, relative to the working directory.
    public var path: String
    /// Path to the array of rows when the file holds an object.
    public var records: String?

    public init(path: String, records: String? = nil) {
        self.path = path
        self.records = records
    }
}

/// Fluent pagination (DESIGN §2).
public struct PaginationSpec: Sendable, Hashable {
    public var firstPageSize: Int
    public var pageSize: Int
    /// Pages in flight at once.
    public var prefetch: Int
    /// A guard against runaway lists: more pages than this is an error.
    public var maxPages: Int

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
    public var backoff: Duration
    public var maxBackoff: Duration

    public init(attempts: Int = 4, backoff: Duration = .milliseconds(200), maxBackoff: Duration = .seconds(10)) {
        self.attempts = attempts
        self.backoff = backoff
        self.maxBackoff = maxBackoff
    }
}

// MARK: - Convert

/// The built-in models of the list screenlets.
public enum ModelKind: String, Sendable, Hashable, CaseIterable {
    case bookmark
    case webContent = "web-content"
    case asset
    case ddlRecord = "ddl-record"
}

/// `convert:` — raw portal objects to model rows.
public struct ConvertSpec: Sendable, Hashable {
    public var model: ModelKind?
    /// The locale for localized values, e.g. `es_ES`; also sent as Accept-Language / `locale`.
    public var locale: String?
    /// A declarative mapping; when set with a model, it maps the model's output.
    public var fields: [FieldMapping]?
    public var onInvalid: InvalidRowPolicy

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
    public var type: FieldType?
    public var defaultValue: JSONValue?
    public var required: Bool
    /// Resolve a localized value (XML or map form) to the pipeline locale.
    public var localized: Bool
    public var location: SourceLocation?

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
    case string, int, number, bool
    /// Epoch milliseconds or ISO text, written as ISO 8601.
    case date
}

// MARK: - Cache

/// The offline policies of Liferay Screens (DESIGN §4).
public enum CachePolicy: String, Sendable, Hashable, CaseIterable {
    case remoteOnly = "remote-only"
    case cacheOnly = "cache-only"
    case remoteFirst = "remote-first"
    case cacheFirst = "cache-first"
    case cacheAndRemote = "cache-and-remote"
}

/// `cache:`.
public struct CacheSpec: Sendable, Hashable {
    public var policy: CachePolicy
    /// A key template such as `"{groupId}-{folderId}"`; nil derives the key from the request.
    public var key: String?
    /// How old a cached page may be for `cache-first`.
    public var ttl: Duration?
    /// The database file; nil uses the default location.
    public var path: String?

    public init(policy: CachePolicy = .remoteFirst, key: String? = nil, ttl: Duration? = nil, path: String? = nil) {
        self.policy = policy
        self.key = key
        self.ttl = ttl
        self.path = path
    }
}

// MARK: - Filter

/// `filter:`.
public struct FilterSpec: Sendable, Hashable {
    /// The selection expression (DESIGN §5).
    public var expression: String?
    /// Where the expression starts in the pipeline file, for error carets.
    public var expressionLocation: SourceLocation?
    /// Stop after this many selected rows.
    public var limit: Int?

    public init(expression: String? = nil, expressionLocation: SourceLocation? = nil, limit: Int? = nil) {
        self.expression = expression
        self.expressionLocation = expressionLocation
        self.limit = limit
    }
}

// MARK: - Sink

/// `sink:`.
public struct SinkSpec: Sendable, Hashable {
    public var destination: SinkDestination
    public var format: SinkFormat

    public init(destination: SinkDestination = .stdout, format: SinkFormat = .items) {
        self.destination = destination
        self.format = format
    }
}

public enum SinkDestination: Sendable, Hashable {
    case stdout
    /// Written to a temporary name beside `path`, renamed when complete.
    case file(path: String)
    /// No output: for embedding services that only subscribe to the bus.
    case discard
}

public enum SinkFormat: String, Sendable, Hashable, CaseIterable {
    /// One line per selected row: the row itself.
    case items
    /// Every event as a JSON envelope (DESIGN §6).
    case events
    /// Aligned columns for people.
    case table
}
