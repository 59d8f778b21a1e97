public import struct Foundation.Date

/// Where the rows of a `response` came from.
public enum PageOrigin: String, Sendable, Hashable {
    /// Fetched from the server during this run.
    case remote
    /// Read from the local cache, stored by an earlier fetch.
    case cache
    /// A local file source (no server involved).
    case file
}

/// Everything that happens on a pipeline's bus, in the order it happened.
///
/// The cases mirror the delegate of a Liferay Screens list screenlet (`onListResponse`,
/// `onListError`, `onSelected`), plus the start and end of a run, plus events that an
/// embedding service publishes itself.
public enum PipelineEvent: Sendable, Hashable {
    /// A run began.
    case started(RunStarted)
    /// A page of rows arrived (`onListResponse`).
    case response(ListResponse)
    /// Something failed: a page, a row, or the run (`onListError`).
    case error(ListError)
    /// A converted row passed the filter (`onSelected`).
    case selected(SelectedRow)
    /// A run that started has ended, with its totals.
    case finished(RunFinished)
    /// An event published by an embedding service with ``EventBus/publish(_:)``.
    case custom(CustomEvent)

    /// The name of the pipeline that produced the event.
    public var pipeline: String {
        switch self {
        case .started(let e): e.pipeline
        case .response(let e): e.pipeline
        case .error(let e): e.pipeline
        case .selected(let e): e.pipeline
        case .finished(let e): e.pipeline
        case .custom(let e): e.pipeline
        }
    }
}

/// A run began: the pipeline is about to ask for page 0.
public struct RunStarted: Sendable, Hashable {
    /// The pipeline's name.
    public var pipeline: String
    /// A redacted, human description of the source ("liferay-jsonws http://127.0.0.1:8080").
    public var source: String
    /// An incremental run's starting cursor: rows at or before it are not delivered again
    /// (nil for a first or full-refresh run, and for pipelines that are not incremental).
    public var cursor: String?
    /// Whether the cursor was sent to the server (a filter or query parameter) rather than
    /// applied to every row client-side; nil for pipelines that are not incremental.
    public var cursorPushed: Bool?
    /// For `run --resume`: the first page this run delivers; the pages before it are
    /// already in the kept output (nil for a run that starts at the top of the list).
    public var resumedFromPage: Int?

    /// Creates a start event for `pipeline`, reading from `source`.
    public init(pipeline: String, source: String) {
        self.pipeline = pipeline
        self.source = source
    }
}

/// A page of rows arrived (Screens' `onListResponse`).
public struct ListResponse: Sendable, Hashable {
    /// The pipeline's name.
    public var pipeline: String
    /// The page index, 0-based.
    public var page: Int
    /// The first row the page covers.
    public var startRow: Int
    /// One past the last row the page covers (exclusive, as Liferay's `end`).
    public var endRow: Int
    /// The total row count, when the server reported one (page 0 asks for it).
    public var rowCount: Int?
    /// How many rows the page actually held (can be fewer than `endRow - startRow`).
    public var rows: Int
    /// Where the rows came from; under `cache-and-remote` one page can arrive twice, once per origin.
    public var origin: PageOrigin
    /// When the rows were fetched from the server (long ago, for a page from the cache);
    /// nil for rows that never came from a server (a file).
    public var fetchedAt: Date?
    /// `skip-page` or `end-list` when an `on-response:` rule answered for the page (it then
    /// holds no rows); nil for a page read as usual.
    public var action: String?
    /// Which rule matched and why, with ``action``.
    public var actionReason: String?
    /// The paginator `paginate: auto` chose from the first page, as a `paginate:` value.
    public var paginator: String?
    /// For a child list of a `for-each` source: the parent rows it was made from,
    /// `{"site": {"row": 1, "id": 20144}}` (each parent's row index and the fields its
    /// placeholders read; `tree` holds the keys above a list of a tree); nil otherwise.
    public var parent: JSONValue?

    /// Creates a response event for `page`, which covers `startRow..<endRow` and held `rows` rows.
    public init(pipeline: String, page: Int, startRow: Int, endRow: Int, rowCount: Int?, rows: Int, origin: PageOrigin) {
        self.pipeline = pipeline
        self.page = page
        self.startRow = startRow
        self.endRow = endRow
        self.rowCount = rowCount
        self.rows = rows
        self.origin = origin
    }
}

/// Something went wrong (Screens' `onListError`). A page that failed is named by `page`.
public struct ListError: Sendable, Hashable {
    /// The pipeline's name.
    public var pipeline: String
    /// The page that failed, when the error belongs to a page.
    public var page: Int?
    /// The row that failed (conversion errors), as its index in the list.
    public var row: Int?
    /// A stable, machine-readable kind: "http", "connectivity", "portal", "config", ...
    public var kind: String
    /// The HTTP status, for errors that came with one.
    public var status: Int?
    /// The portal's exception class, when the portal named one.
    public var exceptionType: String?
    /// The request that failed, with secrets redacted ("POST http://host/api/jsonws/invoke").
    public var request: String?
    /// A human-readable description of the failure.
    public var message: String
    /// For a child list of a `for-each` source: the parent rows it was made from,
    /// `{"site": {"row": 1, "id": 20144}}` (each parent's row index and the fields its
    /// placeholders read; `tree` holds the keys above a list of a tree); nil otherwise.
    public var parent: JSONValue?

    /// Creates an error event; only `kind` and `message` are required.
    public init(
        pipeline: String, page: Int? = nil, row: Int? = nil, kind: String, status: Int? = nil,
        exceptionType: String? = nil, request: String? = nil, message: String
    ) {
        self.pipeline = pipeline
        self.page = page
        self.row = row
        self.kind = kind
        self.status = status
        self.exceptionType = exceptionType
        self.request = request
        self.message = message
    }
}

/// A row passed the filter (Screens' `onSelected`).
public struct SelectedRow: Sendable, Hashable {
    /// The pipeline's name.
    public var pipeline: String
    /// The index of the page the row came on, 0-based.
    public var page: Int
    /// The row's index in the whole list.
    public var row: Int
    /// The converted row.
    public var item: JSONValue
    /// For a child list of a `for-each` source: the parent rows it was made from,
    /// `{"site": {"row": 1, "id": 20144}}` (each parent's row index and the fields its
    /// placeholders read; `tree` holds the keys above a list of a tree); nil otherwise.
    public var parent: JSONValue?

    /// Creates a selection event for the `row`-th row of the list.
    public init(pipeline: String, page: Int, row: Int, item: JSONValue) {
        self.pipeline = pipeline
        self.page = page
        self.row = row
        self.item = item
    }
}

/// The run ended, successfully or not.
public struct RunFinished: Sendable, Hashable {
    /// The pipeline's name.
    public var pipeline: String
    /// Pages delivered (converted and filtered); early cached copies under `cache-and-remote` are not counted.
    public var pages: Int
    /// Rows in the delivered pages.
    public var rows: Int
    /// Rows that passed the filter.
    public var selected: Int
    /// Errors of the run, each of which was also an `error` event.
    public var errors: Int
    /// Rows left out because they did not convert (`on-invalid: skip`); nil when none were.
    public var skipped: Int?
    /// Whether every row was delivered (exit status 0).
    public var succeeded: Bool
    /// Why the run stopped; nil when the publisher did not say.
    public var reason: RunStopReason?
    /// The signal that interrupted the run (`SIGINT`, `SIGTERM`, `SIGHUP`), when one did.
    public var signal: String?
    /// How the end of the list was recognised, when it was reached.
    public var end: ListEnd?
    /// Why that end may not be the real end of the list, and how to make it exact.
    public var endWarning: String?
    /// An incremental run's new cursor: the largest value delivered, committed once the
    /// output is durable (nil when the pipeline is not incremental or has no cursor yet).
    public var cursor: String?
    /// With `prefetch: auto`, the pages in flight it had settled on when the run ended
    /// (nil for a fixed prefetch).
    public var prefetch: Int?

    /// Creates an end-of-run event with the run's totals.
    public init(pipeline: String, pages: Int, rows: Int, selected: Int, errors: Int, succeeded: Bool) {
        self.pipeline = pipeline
        self.pages = pages
        self.rows = rows
        self.selected = selected
        self.errors = errors
        self.succeeded = succeeded
    }
}

/// An event that an embedding service publishes on the bus.
public struct CustomEvent: Sendable, Hashable {
    /// The pipeline the event belongs to.
    public var pipeline: String
    /// The service's own name for the event, written as `"name"` on the wire.
    public var name: String
    /// Any JSON the service attaches, written as `"payload"` on the wire.
    public var payload: JSONValue

    /// Creates a custom event named `name`, carrying `payload`.
    public init(pipeline: String, name: String, payload: JSONValue) {
        self.pipeline = pipeline
        self.name = name
        self.payload = payload
    }
}

extension ListError: CustomStringConvertible {
    /// One line for people: `page 3, row 7: message (POST http://…)`.
    public var description: String { Self.line(page: page, row: row, message: message, request: request) }

    /// The one form of an error line on stderr, for list errors and run errors alike: the
    /// page and row when known, the message, then the (redacted) request.
    public static func line(page: Int?, row: Int?, message: String, request: String?) -> String {
        var parts: [String] = []
        if let page { parts.append("page \(page)") }
        if let row { parts.append("row \(row)") }
        var text = parts.isEmpty ? message : "\(parts.joined(separator: ", ")): \(message)"
        if let request { text += " (\(request))" }
        return text
    }
}
