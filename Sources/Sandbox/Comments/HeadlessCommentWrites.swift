import ScreensJSON

/// Headless-delivery's comment writes, answered as `CommentResourceImpl` answers them
/// (liferay/liferay-portal `modules/apps/headless/headless-delivery/headless-delivery-impl`,
/// `CommentResourceImpl.java` and the generated `BaseCommentResourceImpl.java`):
///
/// - `POST /o/headless-delivery/v1.0/{blog-postings|structured-contents|documents}/{id}/comments`
///   (`postBlogPostingComment`, `postStructuredContentComment`, `postDocumentComment`): the
///   parent first (404 with the portal's NoSuchModel title), then the add permission on its
///   site (403), then the text. The portal stores `<p>` + text + `</p>` and answers the
///   stored `Comment` with 200; an empty text is the MessageSubjectException it maps to
///   `422 Comment text is null`, and the same text from the same user on the same asset the
///   DuplicateCommentException it maps to `409 A comment with the same text already exists`.
/// - `GET`, `PUT`, `DELETE /o/headless-delivery/v1.0/comments/{commentId}` (`getComment`,
///   `putComment`, `deleteComment`): `DiscussionPermission.checkUpdatePermission` /
///   `checkDeletePermission` first (404 for an unknown id, 403 for another user's comment);
///   `PUT` answers the stored comment with 200, `DELETE` nothing with 204.
/// - `GET .../{blog-postings|documents}/{id}/comments`: the parent's comments, paged as
///   ``StructuredContentComments`` pages a web content article's.
///
/// A body is a `Comment` (the OpenAPI's schema): a property the schema does not define is
/// refused with 400, as portal-vulcan's `UnrecognizedPropertyExceptionMapper` refuses it.
struct HeadlessCommentWrites: Sendable {
    static let prefix = "/o/headless-delivery/v1.0/"
    static let commentsSegment = "comments/"

    /// The kinds of entry a comment is posted to, by their path segment.
    enum Parent: String, Sendable, CaseIterable {
        case blogPostings = "blog-postings"
        case structuredContents = "structured-contents"
        case documents

        /// The commented asset's class, as the discussion stores it.
        var className: String {
            switch self {
            case .blogPostings: "com.liferay.blogs.model.BlogsEntry"
            case .structuredContents: StructuredContentComments.journalArticle
            case .documents: FolderDocuments.fileEntry
            }
        }
    }

    /// What a path names.
    enum Target: Sendable, Equatable {
        /// `.../{parent}/{id}/comments`.
        case parent(Parent, Substring)
        /// `.../comments/{commentId}`.
        case comment(Substring)
    }

    /// The properties of the OpenAPI's `Comment` schema.
    static let commentProperties: Set<String> = [
        "actions", "creator", "dateCreated", "dateModified", "externalReferenceCode", "id", "numberOfComments",
        "parentCommentExternalReferenceCode", "parentCommentId", "text",
    ]

    let portal: Portal

    /// The target of a request this type answers: a POST to a parent's comments, a GET of a
    /// blog post's or document's comments (a web content article's are
    /// ``StructuredContentComments``'), and any method on a comment.
    static func target(of request: SandboxRequest) -> Target? {
        guard let target = target(ofPath: request.path) else { return nil }
        if case .parent(.structuredContents, _) = target, request.method == "GET" { return nil }
        return target
    }

    /// The target a path names, whatever the method; nil for any other path.
    static func target(ofPath path: String) -> Target? {
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        if rest.hasPrefix(commentsSegment) {
            let id = rest.dropFirst(commentsSegment.count)
            return id.isEmpty || id.contains("/") ? nil : .comment(id)
        }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == "comments", !parts[1].isEmpty, let parent = Parent(rawValue: String(parts[0])) else { return nil }
        return .parent(parent, parts[1])
    }

    func respond(to request: SandboxRequest, target: Target, account: Account) -> SandboxResponse {
        do {
            switch (request.method, target) {
            case ("POST", .parent(let parent, let id)):
                let (classPK, groupId) = try resolve(parent, id)
                try checkGroup(groupId, account)
                let text = try Self.text(request.body)
                let body = "<p>\(text)</p>"
                let discussions = portal.data.discussions
                if discussions.comments(className: parent.className, classPK: classPK).contains(where: { $0.userId == account.userId && $0.body == body }) {
                    throw HeadlessError(status: 409, statusName: "CONFLICT", title: "A comment with the same text already exists")
                }
                let comment = discussions.add(
                    groupId: groupId, className: parent.className, classPK: classPK, body: body, account: account,
                    now: StructuredContentWrites.currentMilliseconds())
                return .json(200, StructuredContentComments.item(comment, replies: 0))
            case ("GET", .parent(let parent, let id)):
                let (classPK, groupId) = try resolve(parent, id)
                try checkGroup(groupId, account)
                let page = try HeadlessPaging.positive(request.query, "page", default: 1)
                let pageSize = try HeadlessPaging.positive(request.query, "pageSize", default: 20)
                let comments = portal.data.discussions.comments(className: parent.className, classPK: classPK)
                let range = HeadlessPaging.range(page: page, pageSize: pageSize, count: comments.count)
                let items = comments[range].map { StructuredContentComments.item($0, replies: portal.data.discussions.replies(to: $0.commentId)) }
                return .json(200, HeadlessPaging.body(items: items, page: page, pageSize: pageSize, totalCount: comments.count))
            case ("GET", .comment(let id)):
                guard let commentId = Int64(id), let comment = portal.data.discussions.comment(commentId) else {
                    throw HeadlessError.notFound("No comment exists with comment ID \(id)")
                }
                try checkGroup(try portal.commentedAssetGroup(className: comment.className, classPK: comment.classPK), account)
                return .json(200, StructuredContentComments.item(comment, replies: portal.data.discussions.replies(to: commentId)))
            case ("PUT", .comment(let id)):
                let commentId = try Self.commentId(id)
                try headless { try CommentWriteService.checkOwner(portal, commentId, account, action: "UPDATE_DISCUSSION") }
                let text = try Self.text(request.body)
                guard let comment = portal.data.discussions.update(commentId, body: "<p>\(text)</p>", now: StructuredContentWrites.currentMilliseconds()) else {
                    throw HeadlessError.notFound(PortalError.noSuchMessage(commentId).message)
                }
                return .json(200, StructuredContentComments.item(comment, replies: portal.data.discussions.replies(to: commentId)))
            case ("DELETE", .comment(let id)):
                let commentId = try Self.commentId(id)
                try headless { try CommentWriteService.checkOwner(portal, commentId, account, action: "DELETE_DISCUSSION") }
                guard portal.data.discussions.delete(commentId) else { throw HeadlessError.notFound(PortalError.noSuchMessage(commentId).message) }
                return SandboxResponse(status: 204, headers: [], body: [])
            default:
                var response = SandboxResponse.json(405, ["status": "METHOD_NOT_ALLOWED", "title": "HTTP 405 Method Not Allowed"])
                if case .parent = target { response.headers.append(("Allow", "GET, POST")) } else { response.headers.append(("Allow", "DELETE, GET, PUT")) }
                return response
            }
        } catch let error as HeadlessError {
            return .json(error.status, error.body)
        } catch {
            return .json(500, ["status": "INTERNAL_SERVER_ERROR", "title": .string("\(error)")])
        }
    }

    /// The parent's class PK and site, as the resource's service call finds it
    /// (`JournalArticleService.getLatestArticle`, `BlogsEntryService.getEntry`,
    /// `DLFileEntryService.getFileEntry`): 404 with the portal's title when it does not exist.
    private func resolve(_ parent: Parent, _ id: Substring) throws -> (classPK: Int64, groupId: Int64) {
        let notFound: HeadlessError
        switch parent {
        case .structuredContents: notFound = .notFound("No JournalArticle exists with the key {resourcePrimKey=\(id)}")
        case .blogPostings: notFound = .notFound("No BlogsEntry exists with the primary key \(id)")
        case .documents: notFound = .notFound("No DLFileEntry exists with the primary key \(id)")
        }
        guard let classPK = Int64(id) else { throw notFound }
        if parent == .documents {
            guard let entry = portal.data.uploads.find(classPK, stored: portal.data.documents.entries) else { throw notFound }
            return (classPK, entry["groupId"]?.int64Value ?? 0)
        }
        do {
            return (classPK, try portal.commentedAssetGroup(className: parent.className, classPK: classPK))
        } catch is PortalError {
            throw notFound
        }
    }

    private func checkGroup(_ groupId: Int64, _ account: Account) throws {
        try headless { try portal.checkGroup(groupId, for: account) }
    }

    /// Runs a portal check, its PortalError reported as headless reports it.
    private func headless(_ check: () throws -> Void) throws {
        do {
            try check()
        } catch let error as PortalError {
            throw HeadlessError(status: error.status, statusName: error.status == 403 ? "FORBIDDEN" : error.status == 404 ? "NOT_FOUND" : "BAD_REQUEST", title: error.message)
        }
    }

    private static func commentId(_ id: Substring) throws -> Int64 {
        guard let commentId = Int64(id) else { throw HeadlessError.notFound(PortalError.noSuchMessage(0).message) }
        return commentId
    }

    /// The body's `text`: a `Comment` with no property the schema lacks, its text not blank.
    private static func text(_ body: [UInt8]) throws -> String {
        guard let value = try? JSONValue(parsing: body), case .object(let object) = value else {
            throw HeadlessError.badRequest("The request body is not a Comment JSON object")
        }
        for key in object.keys where !commentProperties.contains(key) {
            throw HeadlessError.badRequest("The property \"\(key)\" is not defined in Comment.")
        }
        if let given = object["text"], !given.isNull, given.stringValue == nil {
            throw HeadlessError.badRequest("Comment.text must be a string, found \(given.typeName)")
        }
        guard let text = object["text"]?.stringValue, !text.allSatisfy(\.isWhitespace) else {
            throw HeadlessError(status: 422, statusName: "UNPROCESSABLE_ENTITY", title: "Comment text is null")
        }
        return text
    }
}
