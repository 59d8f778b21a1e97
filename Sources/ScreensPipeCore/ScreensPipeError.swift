import ScreensBus

/// An error from any stage of a pipeline, with a stable code and the context a user needs
/// to act on it: the page, the request (secrets redacted), the file position.
///
/// Modelled on swift-service-lifecycle's error structs: the code is an extensible struct,
/// not an enum, so new codes never break callers that switch on the ones they know.
public struct ScreensPipeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable error code.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The name used in `error` events (`"kind"`).
        public let name: String

        init(_ name: String) { self.name = name }

        /// The pipeline file, the command line or a spec built in code is wrong.
        public static let configuration = Code("config")
        /// Could not reach the server: refused, DNS, timeout, reset, truncated body.
        public static let connectivity = Code("connectivity")
        /// The server answered with an HTTP error status.
        public static let http = Code("http")
        /// The portal reported an exception in a successful-looking response.
        public static let portal = Code("portal")
        /// Bad credentials (401, or a redirect to a login page).
        public static let authentication = Code("auth")
        /// The response was not what the wire format promises (malformed JSON, wrong shape).
        public static let malformedResponse = Code("malformed")
        /// Pagination went wrong: too many pages, or a page repeated.
        public static let pagination = Code("pagination")
        /// The local cache could not be read or written, or a page is missing from it.
        public static let cache = Code("cache")
        /// A row could not be converted to the model.
        public static let conversion = Code("convert")
        /// The filter expression failed on a row.
        public static let filter = Code("filter")
        /// The sink could not write.
        public static let sink = Code("sink")
        /// A local file could not be read.
        public static let io = Code("io")
        /// The run was cancelled: its task was cancelled, or ``Pipeline/interrupt(signal:)``
        /// stopped it. ``Pipeline/run()`` throws it with the summary of what was delivered.
        public static let cancelled = Code("cancelled")
        /// Another run of the same list or write target held its lock for longer than
        /// `cache.lock-wait`: nothing is wrong, try again later.
        public static let locked = Code("locked")

        /// The code's name, as in `error` events.
        public var description: String { name }
    }

    /// What kind of failure this is; decides the event's `kind` (and the CLI's exit status).
    public var code: Code
    /// A human-readable description, without the page, request or location prefix.
    public var message: String
    /// The page that failed, when the error belongs to one.
    public var page: Int?
    /// The row that failed, when the error belongs to one.
    public var row: Int?
    /// The request that failed ("POST http://127.0.0.1:8080/api/jsonws/invoke"), redacted.
    public var request: String?
    /// The HTTP status, for errors that came with a response.
    public var status: Int?
    /// The portal's exception class, when it named one.
    public var exceptionType: String?
    /// Where in a pipeline file the error is.
    public var location: SourceLocation?
    /// The run this error ended, when it ended one that had started (see ``summary``).
    var finishedRun: FinishedRun? {
        get { attachedRun.run }
        set { attachedRun.run = newValue }
    }
    /// Stored apart, out of the synthesized `==` and hash (see ``AttachedRun``).
    private var attachedRun = AttachedRun()
    /// The errors this one groups (a pipeline file's mistakes, see ``errors``); empty for one.
    var grouped: [ScreensPipeError] = []

    /// Creates an error with `code` and `message`; the context fields default to nil.
    public init(
        _ code: Code, _ message: String, page: Int? = nil, row: Int? = nil, request: String? = nil,
        status: Int? = nil, exceptionType: String? = nil, location: SourceLocation? = nil
    ) {
        self.code = code
        self.message = message
        self.page = page
        self.row = row
        self.request = request
        self.status = status
        self.exceptionType = exceptionType
        self.location = location
    }

    /// Whether the error means the server could not be reached (remote-first falls back on these).
    public var isConnectivity: Bool { code == .connectivity }

    /// One line for stderr: `file:line:column: message`, or the page and request for run errors.
    public var description: String {
        if !grouped.isEmpty { return message }
        if let location { return "\(location): \(message)" }
        return ListError.line(page: page, row: row, message: message, request: request)
    }

    /// The error as a bus event of pipeline `pipeline`.
    public func event(pipeline: String) -> ListError {
        ListError(
            pipeline: pipeline, page: page, row: row, kind: code.name, status: status,
            exceptionType: exceptionType, request: request, message: message)
    }
}
