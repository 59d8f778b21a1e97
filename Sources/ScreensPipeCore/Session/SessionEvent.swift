public import ScreensBus

/// One event of a list session, tagged with the `id` of the command that caused it.
///
/// On the wire (``envelope``) each is the JSON-lines envelope `run --events` writes, with
/// the command's `"id"` added when it had one, plus two events only a session has:
/// `loading` (the "in progress" cell of a page being fetched) and `row` (a row of a page
/// the client asked for: converted, and passed by the filter).
public struct SessionEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// A page is being loaded; its `response` (or an `error` for it) follows.
        case loading(pipeline: String, page: Int)
        /// A page arrived, or a cached copy of it ahead of the fresh one.
        case response(SessionResponse)
        /// A row of a page the client asked for, in list order after its page's `response`.
        case row(SelectedRow)
        /// An upload of an `add` sent more of its file: `sent` of `total` bytes, as Image
        /// Gallery's `onImageUploadProgress`; the edit's `edited` follows.
        case progress(pipeline: String, op: String, sent: Int64, total: Int64)
        /// An edit of the list was written (or kept pending) and the list changed with it.
        case edited(SessionEdited)
        /// A change of the followed list, as `run --follow --events` writes it.
        case changed(pipeline: String, change: ListChange)
        /// The answer to `follow` (the interval) and `unfollow` (nil).
        case following(pipeline: String, every: Duration?)
        /// Any other pipeline event: `started`, `error`, `selected` (the user's choice, as
        /// the Screenlet delegate's `onSelected` gets it) or `finished`.
        case pipeline(PipelineEvent)
    }

    /// The `id` of the command that caused the event; nil when it had none or when nothing
    /// asked for the event (`started`).
    public var id: JSONValue?
    /// What happened.
    public var kind: Kind

    /// Creates an event caused by the command tagged `id`.
    public init(_ kind: Kind, id: JSONValue? = nil) {
        self.kind = kind
        self.id = id
    }

    /// The event as one JSON object: `{"event":"loading","pipeline":"bookmarks","page":1,"id":7}`.
    public var envelope: JSONValue {
        var object: JSONObject
        switch kind {
        case .loading(let pipeline, let page):
            object = ["event": "loading", "pipeline": .string(pipeline), "page": .int(Int64(page))]
        case .pipeline(let event):
            object = event.envelope.objectValue ?? JSONObject()
        case .row(let row):
            object = PipelineEvent.selected(row).envelope.objectValue ?? JSONObject()
            object["event"] = "row"
        case .response(let page):
            object = PipelineEvent.response(page.response).envelope.objectValue ?? JSONObject()
            object["following"] = .int(Int64(page.following))
            if page.last { object["last"] = true }
            if page.provisional { object["provisional"] = true }
        case .progress(let pipeline, let op, let sent, let total):
            object = ["event": "progress", "pipeline": .string(pipeline), "op": .string(op), "sent": .int(sent), "total": .int(total)]
        case .edited(let edited):
            object = edited.envelope
        case .changed(let pipeline, let change):
            object = (try? JSONValue(parsing: change.eventLine(pipeline: pipeline)))?.objectValue ?? JSONObject()
        case .following(let pipeline, let every):
            object = ["event": "following", "pipeline": .string(pipeline), "every": every.map { .string(ConfigUnitText.duration($0)) } ?? .null]
        }
        if let id { object["id"] = id }
        return .object(object)
    }

    /// The event as the pipeline's bus carries it: `started`, `response`, `error`, `selected`
    /// (the user's choice, as a list delegate's `onSelected` gets it) and `finished`; nil for
    /// `loading`, `row`, `progress` and `edited`, which only the session's client sees.
    public var pipelineEvent: PipelineEvent? {
        switch kind {
        case .pipeline(let event): event
        case .response(let page): .response(page.response)
        case .loading, .row, .progress, .edited, .changed, .following: nil
        }
    }

    /// The event's name on the wire: `loading`, `response`, `row`, `selected`, `error`...
    public var name: String { envelope["event"]?.stringValue ?? "" }
}

/// A page's `response` in a session: the envelope of `run --events`, and what a client
/// needs to draw the page.
public struct SessionResponse: Sendable, Hashable {
    /// The `response` a run publishes for the page.
    public var response: ListResponse
    /// How many events of this page follow the response (`row`s, and `error`s of rows that
    /// did not convert), written as `"following"`: the page is complete after them.
    public var following: Int
    /// Whether the page is known to be the last one of the list (`"last":true`).
    public var last: Bool
    /// Whether this is the cached copy under `cache-and-remote`, shown while the fresh page
    /// loads (`"provisional":true`): the final `response` of the page follows.
    public var provisional: Bool

    /// Creates a session response for `response`.
    public init(_ response: ListResponse, following: Int, last: Bool = false, provisional: Bool = false) {
        self.response = response
        self.following = following
        self.last = last
        self.provisional = provisional
    }
}
