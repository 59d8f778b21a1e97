internal import Logging
import ScreensBus

/// One comment row over headless-delivery: a comment to post to a blog post, web content
/// article or document, or a comment to change or delete by its id.
struct HeadlessCommentRow: JournaledRow, Hashable {
    /// The kinds of entry headless-delivery posts comments to, by their path segment.
    enum Parent: String, Sendable, Hashable, CaseIterable {
        case blogPosting = "blog-postings"
        case structuredContent = "structured-contents"
        case document = "documents"

        /// The row field that names a parent of this kind.
        var idField: String {
            switch self {
            case .blogPosting: "blogPostingId"
            case .structuredContent: "structuredContentId"
            case .document: "documentId"
            }
        }

        /// The class a JSON-WS comment row names the same kind of asset by, so one file of
        /// rows writes over either transport.
        var className: String {
            switch self {
            case .blogPosting: "com.liferay.blogs.model.BlogsEntry"
            case .structuredContent: "com.liferay.journal.model.JournalArticle"
            case .document: "com.liferay.document.library.kernel.model.DLFileEntry"
            }
        }
    }

    var line: Int
    var operation: WriteRowOperation
    /// The commented entry (add).
    var parent: Parent = .structuredContent
    var parentId: Int64 = 0
    /// The comment changed or deleted (update, delete).
    var commentId: Int64 = 0
    /// The text sent; the portal stores it as `<p>text</p>`. Empty for a delete.
    var text: String = ""

    /// An add is the same comment when it says the same on the same entry; an update and a
    /// delete are about their comment.
    var key: String {
        switch operation {
        case .add: WriteKey.encode(["headless-add", parent.rawValue, String(parentId), text])
        case .update: WriteKey.encode(["update", String(commentId)])
        case .delete: WriteKey.encode(["delete", String(commentId)])
        }
    }

    var content: String { operation == .delete ? "deleted" : text }

    /// The comment's text as the portal answers it (`CommentResourceImpl` wraps it in `<p>`).
    var storedText: String { "<p>\(text)</p>" }

    var inputText: String {
        switch operation {
        case .add: JSONValue.object([parent.idField: .int(parentId), "text": .string(text)]).jsonString
        case .update: JSONValue.object(["commentId": .int(commentId), "text": .string(text)]).jsonString
        case .delete: JSONValue.object(["op": "delete", "commentId": .int(commentId)]).jsonString
        }
    }

    /// Checks a row before any request: the parent named by exactly one of
    /// `blogPostingId`, `structuredContentId`, `documentId` (or by a JSON-WS row's
    /// `className` and `classPK`), a `text` as the JSON-WS body is checked, a positive
    /// `commentId` for an update or delete. What a row does follows `op`, else a
    /// `commentId` updates and its absence adds, as for JSON-WS comment rows.
    static func parse(_ value: JSONValue, line: Int) throws(RowRejection) -> HeadlessCommentRow {
        guard case .object = value else {
            throw RowRejection(message: "a row is a JSON object (structuredContentId, blogPostingId or documentId and text to add; commentId to update or delete), found \(value.typeName)")
        }
        let commentId = try WriteRowParsing.positiveId(value, "commentId")
        let operation = try WriteRowParsing.operation(value) ?? (commentId == nil ? .add : .update)
        var row = HeadlessCommentRow(line: line, operation: operation)
        if operation != .delete, value["text"] == nil || value["text"]?.isNull == true, value["body"].map({ !$0.isNull }) == true {
            throw RowRejection(message: "'body' is a JSON-WS comment's field: over headless a row gives 'text', which the portal stores as <p>text</p>")
        }
        switch operation {
        case .add:
            guard commentId == nil else {
                throw RowRejection(message: "'commentId' names a comment to update or delete; a comment to add names its entry (structuredContentId, blogPostingId or documentId)")
            }
            (row.parent, row.parentId) = try parent(value)
            row.text = try CommentWriteModel.body(value, field: "text")
        case .update:
            guard let commentId else { throw RowRejection(message: "missing 'commentId', the comment to update") }
            row.commentId = commentId
            row.text = try CommentWriteModel.body(value, field: "text")
        case .delete:
            guard let commentId else { throw RowRejection(message: "missing 'commentId', the comment to delete") }
            row.commentId = commentId
        }
        return row
    }

    private static func parent(_ value: JSONValue) throws(RowRejection) -> (Parent, Int64) {
        var named: [(Parent, Int64)] = []
        for parent in Parent.allCases {
            if let id = try WriteRowParsing.positiveId(value, parent.idField) { named.append((parent, id)) }
        }
        if let className = value["className"], !className.isNull {
            guard let name = className.stringValue, let parent = Parent.allCases.first(where: { $0.className == name }) else {
                let known = Parent.allCases.map(\.className).joined(separator: ", ")
                throw RowRejection(message: "headless-delivery takes comments on \(known); 'className' is \(className.jsonString.prefix(100))")
            }
            guard let classPK = try WriteRowParsing.positiveId(value, "classPK") else {
                throw RowRejection(message: "missing 'classPK', the commented \(parent.className)'s primary key")
            }
            named.append((parent, classPK))
        }
        guard named.count == 1, let only = named.first else {
            throw RowRejection(
                message: named.isEmpty
                    ? "missing the commented entry: one of structuredContentId, blogPostingId, documentId (or className and classPK)"
                    : "the row names \(named.count) entries to comment on; a comment has one")
        }
        return only
    }
}

extension HeadlessWriteTransport {
    func commentsURL(_ parent: HeadlessCommentRow.Parent, _ id: Int64) -> String {
        headlessDeliveryURL + "/\(parent.rawValue)/\(id)/comments"
    }

    func commentURL(_ commentId: Int64) -> String { headlessDeliveryURL + "/comments/\(commentId)" }

    /// The id of the oldest comment of `row`'s parent with the row's text: what a `POST`
    /// whose answer was lost stored. Every page is read, retried like any read; nil when
    /// none matches or the parent does not exist (nothing was stored on it).
    func lookupComment(_ row: HeadlessCommentRow) async throws(ScreensPipeError) -> Int64? {
        let match = try await firstItem(in: commentsURL(row.parent, row.parentId), describing: "the comments of \(row.parent.rawValue) \(row.parentId)") {
            $0["text"]?.stringValue == row.storedText && $0["id"]?.int64Value != nil
        }
        return match?["id"]?.int64Value
    }
}

/// Writes comment rows through headless-delivery (`service: comment`, `transport: headless`),
/// one request per row in input order, exactly once each with the journal:
///
/// - add: `POST /o/headless-delivery/v1.0/{blog-postings|structured-contents|documents}/{id}/comments`
///   with `{"text": ...}`, sent once; after an ambiguous failure (or a run that left it
///   pending) the parent's comments are looked up for the text first, and it is sent again
///   only when none has it.
/// - update: `PUT /o/headless-delivery/v1.0/comments/{commentId}`, which sets the same text
///   however often it is sent: sent again after an ambiguous failure.
/// - delete: `DELETE /o/headless-delivery/v1.0/comments/{commentId}`, sent again after an
///   ambiguous failure; a 404 after an unanswered attempt means that attempt deleted it.
final class HeadlessCommentWriter: CheckingRowWriter {
    private let transport: HeadlessWriteTransport
    private let journal: WriteJournal?
    private let bus: EventBus
    private let pipeline: String
    private let events: WriteEvents
    private let rejects: RejectsFile
    private let dryRun: Bool
    private var journaled = JournalRecords()
    private var seenKeys: [String: Int] = [:]
    private var requestNumber = 0
    private(set) var summary = WriteSummary()

    init(
        pipeline: String, transport: HeadlessWriteTransport, journal: WriteJournal?, bus: EventBus, rejects: RejectsFile, dryRun: Bool
    ) async throws(ScreensPipeError) {
        self.transport = transport
        self.journal = journal
        self.bus = bus
        self.pipeline = pipeline
        self.rejects = rejects
        events = WriteEvents(bus: bus, pipeline: pipeline, rejects: rejects)
        self.dryRun = dryRun
        journaled = try await journal?.records() ?? JournalRecords()
    }

    func check(_ value: JSONValue, line: Int) throws(RowRejection) -> HeadlessCommentRow {
        try HeadlessCommentRow.parse(value, line: line)
    }

    func finish() async throws(ScreensPipeError) -> WriteSummary {
        summary.rejectsPath = try rejects.close()
        return summary
    }

    // MARK: - Rows

    func write(_ row: HeadlessCommentRow) async throws(ScreensPipeError) {
        if let first = seenKeys[row.key] {
            let what = row.operation == .add ? "comment on \(row.parent.rawValue) \(row.parentId)" : "\(row.operation.rawValue) of comment \(row.commentId)"
            try await reject(line: row.line, input: row.inputText, truncated: false, reason: "the same \(what) as line \(first)")
            return
        }
        seenKeys[row.key] = row.line
        let record = journaled[row.key]
        if let record, record.state != .pending, record.content == row.content {
            summary.skipped += 1
            await result(row, "unchanged", id: record.entryId, reason: "written by an earlier run (journal)")
            return
        }
        let (method, url, body) = request(row)
        if dryRun {
            let planned = try transport.request(method, url: url, body: body)
            await events.plan(planned)
            summary.plannedRequests += 1
            switch row.operation {
            case .add: summary.plannedCreates += 1
            case .update: summary.plannedUpdates += 1
            case .delete: summary.plannedDeletes += 1
            }
            await result(row, "planned", id: nil)
            return
        }
        let undecided = record?.state == .pending
        switch row.operation {
        case .add: try await add(row, undecided: undecided)
        case .update, .delete: try await change(row, undecided: undecided, before: record)
        }
    }

    private func request(_ row: HeadlessCommentRow) -> (method: String, url: String, body: JSONObject?) {
        switch row.operation {
        case .add: ("POST", transport.commentsURL(row.parent, row.parentId), ["text": .string(row.text)])
        case .update: ("PUT", transport.commentURL(row.commentId), ["text": .string(row.text)])
        case .delete: ("DELETE", transport.commentURL(row.commentId), nil)
        }
    }

    /// The create: one attempt at a time, each after a lookup when the last one went
    /// unanswered (or an earlier run's did).
    private func add(_ row: HeadlessCommentRow, undecided: Bool) async throws(ScreensPipeError) {
        if undecided, try await settle(row) { return }
        let (method, url, body) = request(row)
        var attempt = 1
        while true {
            try await journal?.record([(row: row, state: WriteJournal.State.pending, entryId: Int64?.none)])
            requestNumber += 1
            summary.batches += 1
            switch try await transport.write(method, url: url, body: body) {
            case .stored(let stored):
                await publishResponse(row)
                try await done(row, .created, id: stored["id"]?.int64Value)
                return
            case .refused(let reason, let status):
                await publishResponse(row)
                try await journal?.forget([row])
                try await reject(line: row.line, input: row.inputText, truncated: false, reason: "the portal refused it (HTTP \(status)): \(reason)")
                return
            case .ambiguous(let reason):
                let settled = try await transport.settleUnanswered(line: row.line, reason: reason, attempt: &attempt, lookingUp: "its comment") {
                    () async throws(ScreensPipeError) -> Bool in try await settle(row)
                }
                if settled { return }
            }
        }
    }

    /// Looks the row's text up among its parent's comments: found means an unanswered
    /// request posted it.
    private func settle(_ row: HeadlessCommentRow) async throws(ScreensPipeError) -> Bool {
        guard let id = try await transport.lookupComment(row) else { return false }
        try await done(row, .created, id: id)
        return true
    }

    /// An update or delete: idempotent, so sent again after an ambiguous failure (and by the
    /// next run when this one left it pending); a delete that finds its comment gone after
    /// an unanswered attempt is done (``HeadlessWriteTransport/change(_:url:body:undecided:line:describing:sending:)``).
    private func change(_ row: HeadlessCommentRow, undecided: Bool, before: WriteJournal.Record?) async throws(ScreensPipeError) {
        let (method, url, body) = request(row)
        try await journal?.record([(row: row, state: WriteJournal.State.pending, entryId: Int64?.none)])
        let outcome = try await transport.change(
            method, url: url, body: body, undecided: undecided, line: row.line, describing: "\(row.operation.rawValue) of comment \(row.commentId)"
        ) {
            requestNumber += 1
            summary.batches += 1
        }
        await publishResponse(row)
        switch outcome {
        case .done:
            try await done(row, row.operation == .delete ? .deleted : .updated, id: row.commentId)
        case .goneAfterUnanswered:
            try await done(row, .deleted, id: row.commentId)
        case .refused(let reason, let status):
            try await journal?.refused(row, before: before)
            try await reject(line: row.line, input: row.inputText, truncated: false, reason: "the portal refused it (HTTP \(status)): \(reason)")
        }
    }

    private func done(_ row: HeadlessCommentRow, _ state: WriteJournal.State, id: Int64?) async throws(ScreensPipeError) {
        try await journal?.record([(row: row, state: state, entryId: id)])
        summary.count(state)
        journaled[row.key] = WriteJournal.Record(state: state, content: row.content, entryId: id)
        await result(row, state.rawValue, id: id)
    }

    func reject(line: Int, input: String?, truncated: Bool, reason: String) async throws(ScreensPipeError) {
        summary.rejected += 1
        try await events.reject(line: line, input: input, truncated: truncated, reason: reason)
    }

    private func result(_ row: HeadlessCommentRow, _ outcome: String, id: Int64?, reason: String? = nil) async {
        var details: JSONObject = ["op": .string(row.operation.rawValue)]
        if row.operation == .add { details[row.parent.idField] = .int(row.parentId) }
        if let id { details["commentId"] = .int(id) } else if row.operation != .add { details["commentId"] = .int(row.commentId) }
        if let reason { details["reason"] = .string(reason) }
        await events.result(line: row.line, outcome: outcome, details: details)
    }

    private func publishResponse(_ row: HeadlessCommentRow) async {
        await bus.publish(
            .response(ListResponse(pipeline: pipeline, page: requestNumber - 1, startRow: row.line, endRow: row.line + 1, rowCount: nil, rows: 1, origin: .remote)))
    }
}
