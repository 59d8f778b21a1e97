import ScreensJSON

/// `GET /o/headless-delivery/v1.0/structured-contents/{structuredContentId}/comments`: the
/// comments of a web content article, as headless-delivery's `CommentResourceImpl`
/// answers them (`getStructuredContentCommentsPage`: the latest article by its
/// `resourcePrimKey`, then the discussion of `JournalArticle` with that class PK).
///
/// Items follow the OpenAPI's `Comment` schema (`creator`, `dateCreated`, `dateModified`,
/// `id`, `numberOfComments`, `text`...; liferay/liferay-portal@4be0bdd7
/// `modules/apps/headless/headless-delivery/headless-delivery-impl/rest-openapi.yaml`), in a
/// portal-vulcan `Page`. The sandbox pages (`page`, `pageSize`) and refuses `filter`,
/// `search` and `sort`, which it does not implement for comments, with a 400.
struct StructuredContentComments: Sendable {
    static let pathPrefix = "/o/headless-delivery/v1.0/structured-contents/"
    static let pathSuffix = "/comments"
    static let journalArticle = "com.liferay.journal.model.JournalArticle"

    let portal: Portal

    /// The structured content id of a comments path, or nil for any other path.
    static func structuredContentId(ofPath path: String) -> Substring? {
        guard path.hasPrefix(pathPrefix), path.hasSuffix(pathSuffix), path.count > pathPrefix.count + pathSuffix.count else {
            return nil
        }
        let id = path.dropFirst(pathPrefix.count).dropLast(pathSuffix.count)
        return id.isEmpty || id.contains("/") ? nil : id
    }

    func page(structuredContentId: Substring, query: QueryString, account: Account) throws -> JSONValue {
        let page = try HeadlessPaging.positive(query, "page", default: 1)
        let pageSize = try HeadlessPaging.positive(query, "pageSize", default: 20)
        for unsupported in ["filter", "search", "sort"] where !(query[unsupported] ?? "").isEmpty {
            throw HeadlessError.badRequest("The sandbox does not \(unsupported) comments")
        }
        guard let id = Int64(structuredContentId) else {
            throw HeadlessError.notFound("No JournalArticle exists with the key {resourcePrimKey=\(structuredContentId)}")
        }
        let comments: [DiscussionComment]
        do {
            comments = try portal.comments(className: Self.journalArticle, classPK: id, for: account)
        } catch let error as PortalError {
            if error.status == 403 { throw HeadlessError.forbidden(error.message) }
            throw HeadlessError.notFound("No JournalArticle exists with the key {resourcePrimKey=\(id)}")
        }
        let range = HeadlessPaging.range(page: page, pageSize: pageSize, count: comments.count)
        let items = comments[range].map { Self.item($0, replies: portal.data.discussions.replies(to: $0.commentId)) }
        return HeadlessPaging.body(items: items, page: page, pageSize: pageSize, totalCount: comments.count)
    }

    /// One comment as a headless `Comment`; dates to the second, as headless writes them.
    static func item(_ comment: DiscussionComment, replies: Int) -> JSONValue {
        var item: JSONObject = [
            "actions": [:],
            "creator": ["contentType": "UserAccount", "id": .int(comment.userId), "name": .string(comment.userName)],
            "dateCreated": .string(ISODate.format(epochMilliseconds: comment.createDate - comment.createDate % 1000)),
            "dateModified": .string(ISODate.format(epochMilliseconds: comment.modifiedDate - comment.modifiedDate % 1000)),
            "id": .int(comment.commentId),
            "numberOfComments": .int(Int64(replies)),
            "text": .string(comment.body),
        ]
        // Liferay leaves unset values out: a comment on the asset itself has no parent.
        if comment.parentCommentId != 0 { item["parentCommentId"] = .int(comment.parentCommentId) }
        return .object(item)
    }
}
