import ScreensJSON
import Synchronization

/// The comment writes Liferay Screens sends, answered as the portal answers them:
///
/// - `/screens.screenscomment/add-comment(className, classPK, body)`: the asset first
///   (`AssetEntryLocalService.getEntry`, NoSuchEntryException), then the add permission on
///   its site, then the body (`MBMessageLocalServiceImpl.validate`: MessageBodyException
///   when it is empty); answers the comment as `toJSONObject` writes it;
/// - `/screens.screenscomment/update-comment(commentId, body)`: the update permission on the
///   comment first (`checkUpdatePermission`: NoSuchMessageException for an unknown id,
///   PrincipalException for a comment of another user), then the body;
/// - `/screens.screenscomment/get-comment(commentId)`: the comment, or, for an unknown id,
///   the NullPointerException the portal throws (`fetchComment` answers null and
///   `getComment` reads its class name);
/// - `/comment.commentmanagerjsonws/delete-comment(commentId)`: `checkDeletePermission`,
///   then the comment is gone; answers nothing.
///
/// Sources: `ScreensCommentServiceImpl` (carmenbianca/liferay-portal@102b5f9b,
/// `modules/apps/screens/screens-service/src/main/java/com/liferay/screens/service/impl/ScreensCommentServiceImpl.java`)
/// and the Mobile SDK's `CommentmanagerjsonwsService`. The sandbox has no roles: only a
/// comment's author may update or delete it (``DiscussionPermission``). Written comments
/// are in the next `get-comments` page and count in the asset's `numberOfComments`.
enum CommentWriteService {
    static let actions: [String: JSONWSServices.Action] = [
        "/screens.screenscomment/add-comment": { portal, params, account in
            guard let className = try params.string("className") else { throw PortalError.missingParameter("className") }
            let classPK = try params.long("classPK")
            let groupId = try portal.commentedAssetGroup(className: className, classPK: classPK)
            try portal.checkGroup(groupId, for: account)
            let body = try checkedBody(params)
            let comment = portal.data.discussions.add(
                groupId: groupId, className: className, classPK: classPK, body: body, account: account,
                now: StructuredContentWrites.currentMilliseconds())
            return comment.screensJSON(for: account)
        },
        "/screens.screenscomment/update-comment": { portal, params, account in
            let commentId = try params.long("commentId")
            try checkOwner(portal, commentId, account, action: "UPDATE_DISCUSSION")
            let body = try checkedBody(params)
            guard let comment = portal.data.discussions.update(commentId, body: body, now: StructuredContentWrites.currentMilliseconds()) else {
                throw PortalError.noSuchMessage(commentId)
            }
            return comment.screensJSON(for: account)
        },
        "/screens.screenscomment/get-comment": { portal, params, account in
            guard let comment = portal.data.discussions.comment(try params.long("commentId")) else {
                // fetchComment answers null, and getComment calls comment.getClassName().
                throw PortalError(status: 500, type: "java.lang.NullPointerException", message: "")
            }
            try portal.checkGroup(try portal.commentedAssetGroup(className: comment.className, classPK: comment.classPK), for: account)
            return comment.screensJSON(for: account)
        },
        "/comment.commentmanagerjsonws/delete-comment": { portal, params, account in
            let commentId = try params.long("commentId")
            try checkOwner(portal, commentId, account, action: "DELETE_DISCUSSION")
            guard portal.data.discussions.delete(commentId) else { throw PortalError.noSuchMessage(commentId) }
            return .null
        },
    ]

    /// `DiscussionPermission.check...Permission(commentId)`: the message first, then the right.
    static func checkOwner(_ portal: Portal, _ commentId: Int64, _ account: Account, action: String) throws {
        guard let comment = portal.data.discussions.comment(commentId) else { throw PortalError.noSuchMessage(commentId) }
        guard DiscussionPermission.owns(comment, account) else {
            throw PortalError(
                status: 403, type: "com.liferay.portal.kernel.security.auth.PrincipalException$MustHavePermission",
                message: "User \(account.userId) must have \(action) permission for com.liferay.message.boards.model.MBMessage \(commentId)")
        }
    }

    /// `body` is a `String`: missing or blank, `validate(subject, body)` refuses it.
    private static func checkedBody(_ params: ServiceParameters) throws -> String {
        guard let body = try params.string("body"), !body.allSatisfy(\.isWhitespace) else {
            throw PortalError(status: 500, type: "com.liferay.message.boards.exception.MessageBodyException", message: "Body is null")
        }
        return body
    }
}

extension PortalError {
    static func noSuchMessage(_ messageId: Int64) -> PortalError {
        PortalError(
            status: 404, type: "com.liferay.message.boards.exception.NoSuchMessageException",
            message: "No MBMessage exists with the primary key \(messageId)")
    }
}

extension DiscussionComment {
    init(commentId: Int64, groupId: Int64, account: Account, now: Int64, className: String, classPK: Int64, body: String) {
        self.commentId = commentId
        self.groupId = groupId
        userId = account.userId
        userName = account.fullName
        createDate = now
        modifiedDate = now
        self.className = className
        self.classPK = classPK
        parentCommentId = 0
        self.body = body
    }
}

extension Discussions {
    /// The first id of a written comment: far above the data directory's.
    static let firstWrittenCommentId: Int64 = 7_100_000

    /// A table of its own with the same comments, for one sandbox to change.
    func copy() -> Discussions {
        Discussions(table.withLock { $0 })
    }

    /// The comment with `commentId`, if it exists.
    func comment(_ commentId: Int64) -> DiscussionComment? {
        table.withLock { rows in rows.first { $0.commentId == commentId } }
    }

    /// How many comments the asset has (its `numberOfComments`; replies to a comment count
    /// for the comment: `parentCommentId`).
    func count(className: String, classPK: Int64) -> Int {
        table.withLock { rows in rows.filter { $0.className == className && $0.classPK == classPK }.count }
    }

    /// How many comments answer `commentId`.
    func replies(to commentId: Int64) -> Int {
        table.withLock { rows in rows.filter { $0.parentCommentId == commentId }.count }
    }

    /// A new comment at the end of the asset's thread; dates never go back, so it sorts last.
    func add(groupId: Int64, className: String, classPK: Int64, body: String, account: Account, now: Int64) -> DiscussionComment {
        table.withLock { rows in
            let commentId = max(Self.firstWrittenCommentId, (rows.map(\.commentId).max() ?? 0) + 1)
            let latest = rows.map(\.createDate).max() ?? 0
            let comment = DiscussionComment(
                commentId: commentId, groupId: groupId, account: account, now: max(now, latest + 1), className: className,
                classPK: classPK, body: body)
            rows.append(comment)
            return comment
        }
    }

    /// The comment with a new body; nil when it does not exist.
    func update(_ commentId: Int64, body: String, now: Int64) -> DiscussionComment? {
        table.withLock { rows in
            guard let index = rows.firstIndex(where: { $0.commentId == commentId }) else { return nil }
            rows[index].body = body
            rows[index].modifiedDate = max(now, rows[index].modifiedDate + 1)
            return rows[index]
        }
    }

    /// Removes the comment; false when it does not exist. Its replies answer its parent,
    /// as `MBMessageLocalServiceImpl.deleteMessage` moves a deleted message's children up.
    func delete(_ commentId: Int64) -> Bool {
        table.withLock { rows in
            guard let index = rows.firstIndex(where: { $0.commentId == commentId }) else { return false }
            let parent = rows[index].parentCommentId
            rows.remove(at: index)
            for reply in rows.indices where rows[reply].parentCommentId == commentId { rows[reply].parentCommentId = parent }
            return true
        }
    }
}
