import ScreensBus

/// One comment row: what it does to an asset's discussion, and with what.
struct CommentRow: JournaledRow, Hashable {
    /// What a row does, as Screens' three comment interactors do it: `add`
    /// (`CommentAddInteractor`: a new comment on the asset `className`/`classPK`), `update`
    /// (`CommentUpdateInteractor`: a new body for the comment `commentId`) or `delete`
    /// (`CommentDeleteInteractor`: the comment `commentId` is removed).
    typealias Operation = WriteRowOperation

    var line: Int
    var operation: Operation
    /// The commented asset (add).
    var className: String = ""
    var classPK: Int64 = 0
    /// The comment changed or deleted (update, delete).
    var commentId: Int64 = 0
    /// The comment's text as the portal stores it (HTML, `<p>...</p>`); empty for a delete.
    var body: String = ""

    /// An add is the same comment when it says the same on the same asset; an update and a
    /// delete are about their comment (two keys, so one input may update and then delete it).
    var key: String {
        switch operation {
        case .add: WriteKey.encode(["add", className, String(classPK), body])
        case .update: WriteKey.encode(["update", String(commentId)])
        case .delete: WriteKey.encode(["delete", String(commentId)])
        }
    }

    var content: String { operation == .delete ? "deleted" : body }
}

/// `service: comment`: the comment commands of Liferay Screens, with the signatures of
/// `ScreensCommentServiceImpl` (liferay-portal `modules/apps/screens/screens-service`) and
/// the Mobile SDK's `CommentmanagerjsonwsService` (v7 to v73):
///
/// - `/screens.screenscomment/add-comment(className, classPK, body)` (Comment Add
///   Screenlet's `CommentAddInteractor`);
/// - `/screens.screenscomment/update-comment(commentId, body)` (`CommentUpdateInteractor`);
/// - `/comment.commentmanagerjsonws/delete-comment(commentId)` (Comment Display Screenlet's
///   `CommentDeleteInteractor`, through `CommentConnector70`).
///
/// A row says what it does with `op` (`add`, `update` or `delete`); without `op`, a row
/// with a `commentId` updates that comment and one without adds a comment:
///
/// ```json
/// {"className":"com.liferay.journal.model.JournalArticle","classPK":40001,"body":"<p>Nice</p>"}
/// {"commentId":80003,"body":"<p>Edited</p>"}
/// {"op":"delete","commentId":80004}
/// ```
///
/// Rows are checked first, as the interactors' `validateData` does (a body, an asset named
/// by a class name and a positive class PK, a positive comment id), and more strictly: a
/// `className` must read as a Java class name and a body may hold no control character but
/// tab and line breaks, so neither reaches the portal. Exactly once: an add whose answer was
/// lost is looked up among the asset's comments (`get-comments`) by its body; an update is
/// sent again (it sets the same body); a delete goes in a request of its own, and when its
/// answer was lost it is looked up with `get-comment`, which fails once the comment is gone.
struct CommentWriteModel: JSONWSWriteModel {
    /// `ClassName_.value` holds at most 200 characters (the portal's model hints).
    static let classNameLength = 200
    static let addCommand = "/screens.screenscomment/add-comment"
    static let updateCommand = "/screens.screenscomment/update-comment"
    static let deleteCommand = "/comment.commentmanagerjsonws/delete-comment"

    var serviceName: String { "comment" }
    var idField: String { "commentId" }
    var updatesNeedLookup: Bool { false }

    func row(_ value: JSONValue, line: Int) throws(RowRejection) -> CommentRow {
        guard case .object = value else {
            throw RowRejection(message: "a row is a JSON object (className, classPK and body to add; commentId to update or delete), found \(value.typeName)")
        }
        let commentId = try WriteRowParsing.positiveId(value, "commentId")
        let operation: CommentRow.Operation
        if let named = try WriteRowParsing.operation(value) {
            operation = named
        } else {
            operation = commentId == nil ? .add : .update
        }
        var row = CommentRow(line: line, operation: operation)
        switch operation {
        case .add:
            guard commentId == nil else {
                throw RowRejection(message: "'commentId' names a comment to update or delete; a comment to add names its asset with className and classPK")
            }
            row.className = try Self.className(value)
            guard let classPK = try WriteRowParsing.positiveId(value, "classPK") else { throw RowRejection(message: "missing 'classPK', the commented asset's primary key") }
            row.classPK = classPK
            row.body = try Self.body(value)
        case .update:
            guard let commentId else { throw RowRejection(message: "missing 'commentId', the comment to update") }
            row.commentId = commentId
            row.body = try Self.body(value)
        case .delete:
            guard let commentId else { throw RowRejection(message: "missing 'commentId', the comment to delete") }
            row.commentId = commentId
        }
        return row
    }

    /// A Java class name (`com.liferay.journal.model.JournalArticle`): dot-separated
    /// identifiers, nothing a request could read as another parameter.
    private static func className(_ value: JSONValue) throws(RowRejection) -> String {
        let name = try WriteRowParsing.text(value, "className", required: true, limit: classNameLength)
        let identifiers = name.split(separator: ".", omittingEmptySubsequences: false)
        let valid = identifiers.count >= 2 && identifiers.allSatisfy { identifier in
            guard let first = identifier.unicodeScalars.first, isIdentifierStart(first) else { return false }
            return identifier.unicodeScalars.allSatisfy { isIdentifierStart($0) || (0x30...0x39).contains($0.value) }
        }
        guard valid else {
            throw RowRejection(message: "'className' must be a Java class name (like com.liferay.journal.model.JournalArticle), found \(JSONValue.string(String(name.prefix(100))).jsonString)")
        }
        return name
    }

    private static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        (0x61...0x7A).contains(scalar.value) || (0x41...0x5A).contains(scalar.value) || scalar == "_" || scalar == "$"
    }

    /// The body: required and not blank, as `CommentAddInteractor` and the portal's
    /// `MBMessageLocalServiceImpl.validate` (MessageBodyException) require; no control
    /// character but tab, line feed and carriage return.
    /// A headless row's `text` is checked by the same rule (`field`).
    static func body(_ value: JSONValue, field: String = "body") throws(RowRejection) -> String {
        let body = try WriteRowParsing.text(value, field, required: true, limit: WriteInputLines.maximumLineLength)
        for (offset, scalar) in body.unicodeScalars.enumerated() where (scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r") || scalar.value == 0x7F {
            let code = String(scalar.value, radix: 16, uppercase: true)
            throw RowRejection(message: "'\(field)' holds the control character U+\(String(repeating: "0", count: 4 - code.count))\(code) at character \(offset + 1)")
        }
        return body
    }

    /// A delete of a comment that is gone cannot be told from one of a comment that never
    /// was: sent alone, the portal's NoSuchMessageException is the row's own refusal, and a
    /// lookup settles only a delete whose answer was lost.
    func sendsAlone(_ row: CommentRow) -> Bool { row.operation == .delete }

    func outcome(ofFirstCommand row: CommentRow) -> WriteJournal.State {
        switch row.operation {
        case .add: .created
        case .update: .updated
        case .delete: .deleted
        }
    }

    func addCommand(_ row: CommentRow) -> JSONWSCommand {
        switch row.operation {
        case .add:
            var params = JSONObject(minimumCapacity: 3)
            params.appendUnchecked(key: "className", value: .string(row.className))
            params.appendUnchecked(key: "classPK", value: .int(row.classPK))
            params.appendUnchecked(key: "body", value: .string(row.body))
            return (Self.addCommand, params)
        case .update:
            return (Self.updateCommand, ["commentId": .int(row.commentId), "body": .string(row.body)])
        case .delete:
            return (Self.deleteCommand, ["commentId": .int(row.commentId)])
        }
    }

    /// A row the journal knows with other values: an update row with a new body (its
    /// comment found by the id the journal kept). An add's key holds its body, and a
    /// delete's values never change, so those are sent as they are.
    func updateCommand(_ row: CommentRow, _ found: FoundEntry) -> JSONWSCommand {
        addCommand(row)
    }

    func id(ofResult result: JSONValue) -> Int64? { result["commentId"]?.int64Value }

    /// An add is found among its asset's comments by its body (the oldest such comment);
    /// a delete is found done when `get-comment` no longer finds its comment. An update has
    /// no lookup: sent again, it sets the same body.
    func lookup(_ rows: [CommentRow], transport: JSONWSBookmarkTransport) async throws(ScreensPipeError) -> [String: FoundEntry]? {
        var found: [String: FoundEntry] = [:]
        var assets: Set<[String]> = []
        for row in rows {
            switch row.operation {
            case .add:
                guard assets.insert([row.className, String(row.classPK)]).inserted else { continue }
                let params: JSONObject = ["className": .string(row.className), "classPK": .int(row.classPK), "start": .int(-1), "end": .int(-1)]
                let comments: [JSONValue]
                do throws(ScreensPipeError) {
                    comments = try await transport.read(("/screens.screenscomment/get-comments", params), what: "the comments of \(row.className) \(row.classPK)").arrayValue ?? []
                } catch where error.isRefusedRead {
                    continue  // no such asset: nothing was added to it, and sent alone the row gets the portal's reason
                }
                for comment in comments {
                    guard let commentId = comment["commentId"]?.int64Value, let body = comment["body"]?.stringValue else { continue }
                    let stored = CommentRow(line: 0, operation: .add, className: row.className, classPK: row.classPK, body: body)
                    if found[stored.key] == nil { found[stored.key] = FoundEntry(id: commentId, content: stored.content, remote: comment) }
                }
            case .delete:
                do throws(ScreensPipeError) {
                    _ = try await transport.read(("/screens.screenscomment/get-comment", ["commentId": .int(row.commentId)]), what: "comment \(row.commentId)")
                } catch where Self.isGone(error) {
                    found[row.key] = FoundEntry(id: row.commentId, content: row.content)
                }
            case .update:
                continue
            }
        }
        return found
    }

    /// Whether reading a comment failed because it does not exist: the portal's
    /// `ScreensCommentServiceImpl.getComment` dereferences the null that `fetchComment`
    /// answers for a missing comment (a NullPointerException); a permission check on it
    /// throws NoSuchMessageException.
    static func isGone(_ error: ScreensPipeError) -> Bool {
        guard let type = error.exceptionType else { return false }
        return type.hasSuffix("NullPointerException") || type.hasSuffix("NoSuchMessageException")
    }

    func details(_ row: CommentRow) -> JSONObject {
        switch row.operation {
        case .add: ["op": "add", "className": .string(row.className), "classPK": .int(row.classPK)]
        case .update, .delete: ["op": .string(row.operation.rawValue), "commentId": .int(row.commentId)]
        }
    }

    func inputText(_ row: CommentRow) -> String {
        switch row.operation {
        case .add: JSONValue.object(["className": .string(row.className), "classPK": .int(row.classPK), "body": .string(row.body)]).jsonString
        case .update: JSONValue.object(["commentId": .int(row.commentId), "body": .string(row.body)]).jsonString
        case .delete: JSONValue.object(["op": "delete", "commentId": .int(row.commentId)]).jsonString
        }
    }
}
