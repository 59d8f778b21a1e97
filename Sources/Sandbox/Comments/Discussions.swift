import ScreensJSON
import Synchronization

/// One comment of an asset's discussion (a message board message of the discussion thread),
/// as `comments.json` stores it.
struct DiscussionComment: Sendable {
    var commentId: Int64
    var groupId: Int64
    var userId: Int64
    var userName: String
    var createDate: Int64
    var modifiedDate: Int64
    var className: String
    var classPK: Int64
    /// 0 for a comment on the asset itself; a reply names the comment it answers.
    var parentCommentId: Int64
    /// The body as the portal stores it: HTML (`<p>...</p>`), which Screens' `Comment` reads.
    var body: String

    init(row: JSONValue, reader: DataFileReader) throws {
        let file = "comments.json"
        commentId = try reader.int64(row, "commentId", in: file)
        groupId = try reader.int64(row, "groupId", in: file)
        userId = try reader.int64(row, "userId", in: file)
        createDate = try reader.int64(row, "createDate", in: file)
        modifiedDate = try reader.int64(row, "modifiedDate", in: file)
        classPK = try reader.int64(row, "classPK", in: file)
        parentCommentId = row["parentCommentId"]?.int64Value ?? 0
        guard let className = row["className"]?.stringValue, let body = row["body"]?.stringValue else {
            throw SandboxError("\(reader.directory)/\(file): a comment needs className and body")
        }
        self.className = className
        self.body = body
        userName = row["userName"]?.stringValue ?? ""
    }

    /// The comment as `ScreensCommentServiceImpl.toJSONObject` writes it: body, id, dates as
    /// epoch milliseconds, the user, and whether `account` may delete or update it.
    func screensJSON(for account: Account) -> JSONValue {
        let owned = DiscussionPermission.owns(self, account)
        return [
            "body": .string(body),
            "commentId": .int(commentId),
            "createDate": .int(createDate),
            "deletePermission": .bool(owned),
            "modifiedDate": .int(modifiedDate),
            "updatePermission": .bool(owned),
            "userId": .int(userId),
            "userName": .string(userName),
        ]
    }
}

/// Who may change a comment. A portal asks `DiscussionPermission` (the comment's owner, or a
/// user with the site's UPDATE_DISCUSSION/DELETE_DISCUSSION permission); the sandbox has no
/// roles, so only a comment's author may update or delete it.
enum DiscussionPermission {
    static func owns(_ comment: DiscussionComment, _ account: Account) -> Bool {
        comment.userId == account.userId
    }
}

/// The portal's comments as they stand: the data directory's `comments.json`, plus what
/// writes change while the sandbox runs. One lock holds the table (sample data is small).
final class Discussions: Sendable {
    /// The comments, oldest first; writes (CommentWriteService.swift) change them in place.
    let table: Mutex<[DiscussionComment]>

    init(_ comments: [DiscussionComment]) {
        table = Mutex(comments)
    }

    /// Loads `comments.json` (optional: data directories written before it have no comments).
    static func load(_ reader: DataFileReader) throws -> Discussions {
        Discussions(try reader.array("comments.json", optional: true).map { try DiscussionComment(row: $0, reader: reader) })
    }

    /// The comments of one asset in thread order (oldest first, as the discussion's thread
    /// iterator walks them).
    func comments(className: String, classPK: Int64) -> [DiscussionComment] {
        table.withLock { rows in
            rows.filter { $0.className == className && $0.classPK == classPK }
        }.sorted { ($0.createDate, $0.commentId) < ($1.createDate, $1.commentId) }
    }
}

extension Portal {
    /// The site of the asset `className`/`classPK`, as `AssetEntryLocalService.getEntry(className, classPK)`
    /// finds it: a web content article by its `resourcePrimKey`, a bookmark by its id, any
    /// other class among the asset entries. Missing: `NoSuchEntryException` (404).
    func commentedAssetGroup(className: String, classPK: Int64) throws -> Int64 {
        switch className {
        case "com.liferay.journal.model.JournalArticle":
            if let article = allArticles.first(where: { $0.row["resourcePrimKey"]?.int64Value == classPK }) {
                return article.groupId
            }
        case "com.liferay.bookmarks.model.BookmarksEntry":
            if let groupId = entries.groupId(ofEntry: classPK) { return groupId }
        default:
            if let asset = data.assets.first(where: {
                $0.row["className"]?.stringValue == className && $0.row["classPK"]?.int64Value == classPK
            }) {
                return asset.groupId
            }
        }
        let classNameId = data.classNames.first { $0.value == className }?.key ?? 0
        throw PortalError(
            status: 404, type: "com.liferay.asset.kernel.exception.NoSuchEntryException",
            message: "No AssetEntry exists with the key {classNameId=\(classNameId), classPK=\(classPK)}")
    }

    /// The comments of an asset that `account` may view (`checkViewPermission` on the
    /// asset's site: 403 outside it).
    func comments(className: String, classPK: Int64, for account: Account) throws -> [DiscussionComment] {
        let groupId = try commentedAssetGroup(className: className, classPK: classPK)
        try checkGroup(groupId, for: account)
        return data.discussions.comments(className: className, classPK: classPK)
    }
}
