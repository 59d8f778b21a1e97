import Foundation
@testable import Sandbox
import ScreensJSON
import Testing

/// The sandbox's comment writes, against `ScreensCommentServiceImpl` (add-comment,
/// update-comment, get-comment) and `CommentManagerJSONWS.deleteComment`: what they check,
/// in the portal's order, and that the lists it serves (get-comments, headless
/// `numberOfComments`) show what was written.
@Suite("Comment writes")
struct CommentWriteServiceTests {
    static let article = "com.liferay.journal.model.JournalArticle"

    static func invoke(_ client: TestHTTPClient, _ path: String, _ params: String, as user: (String, String) = TestHTTPClient.testUser) throws -> Exchange {
        try client.invoke(#"{"\#(path)":\#(params)}"#, headers: [user])
    }

    static func comments(_ client: TestHTTPClient, classPK: Int64 = 40001) throws -> [JSONValue] {
        try client.invoke(
            #"{"/screens.screenscomment/get-comments":{"className":"\#(article)","classPK":\#(classPK),"start":-1,"end":-1}}"#
        ).expect(200).json().arrayValue ?? []
    }

    /// The article's `numberOfComments` in the site's headless structured contents.
    static func numberOfComments(_ client: TestHTTPClient, resourcePrimKey: Int64) throws -> Int64? {
        var page = 1
        while true {
            let body = try client.get("/o/headless-delivery/v1.0/sites/20143/structured-contents?page=\(page)&pageSize=100", headers: [TestHTTPClient.testUser])
                .expect(200).json()
            let items = body["items"]?.arrayValue ?? []
            if let item = items.first(where: { $0["id"]?.int64Value == resourcePrimKey }) { return item["numberOfComments"]?.int64Value }
            guard !items.isEmpty, page < (body["lastPage"]?.int64Value ?? 1) else { return nil }
            page += 1
        }
    }

    @Test("add, update and delete change the thread get-comments serves, and the article's numberOfComments with it")
    func writesShowInTheLists() async throws {
        try await withSandbox { client, _ in
            #expect(try Self.numberOfComments(client, resourcePrimKey: 40001) == 60)
            let added = try Self.invoke(client, "/screens.screenscomment/add-comment", #"{"className":"\#(Self.article)","classPK":40001,"body":"<p>Added</p>"}"#).expect(200).json()
            let addedId = try #require(added["commentId"]?.int64Value)
            #expect(added["body"] == "<p>Added</p>")
            #expect(added["userId"] == .int(20139))
            #expect(added["userName"] == "Test Test")
            #expect(added["updatePermission"] == .bool(true))
            #expect(Set(added.objectValue?.keys.map { $0 } ?? []) == ["body", "commentId", "createDate", "deletePermission", "modifiedDate", "updatePermission", "userId", "userName"])
            var thread = try Self.comments(client)
            #expect(thread.count == 61)
            #expect(thread.last?["commentId"]?.int64Value == addedId, "a new comment ends the thread")
            #expect(try Self.numberOfComments(client, resourcePrimKey: 40001) == 61)

            let updated = try Self.invoke(client, "/screens.screenscomment/update-comment", #"{"commentId":80003,"body":"<p>Edited</p>"}"#).expect(200).json()
            #expect(updated["commentId"] == .int(80003))
            #expect(updated["body"] == "<p>Edited</p>")
            let read = try Self.invoke(client, "/screens.screenscomment/get-comment", #"{"commentId":80003}"#).expect(200).json()
            #expect(read["body"] == "<p>Edited</p>")
            #expect((read["modifiedDate"]?.int64Value ?? 0) > (read["createDate"]?.int64Value ?? 0))

            let deleted = try Self.invoke(client, "/comment.commentmanagerjsonws/delete-comment", #"{"commentId":80004}"#).expect(200).json()
            #expect(deleted == .null)
            thread = try Self.comments(client)
            #expect(thread.count == 60)
            #expect(!thread.contains { $0["commentId"] == .int(80004) })
            #expect(try Self.numberOfComments(client, resourcePrimKey: 40001) == 60)
            // Gone: get-comment fails as the portal's does (fetchComment answers null).
            let gone = try Self.invoke(client, "/screens.screenscomment/get-comment", #"{"commentId":80004}"#).expect(500).json()
            #expect(gone["error"]?["type"] == "java.lang.NullPointerException")
            // The headless comments of the article see the same thread.
            let headless = try client.get("/o/headless-delivery/v1.0/structured-contents/40001/comments?pageSize=100", headers: [TestHTTPClient.testUser]).expect(200).json()
            #expect(headless["totalCount"] == .int(60))
        }
    }

    @Test("the portal's refusals: unknown asset and comment, another user's comment, an empty body, missing and mistyped parameters")
    func refusals() async throws {
        try await withSandbox { client, _ in
            let add = "/screens.screenscomment/add-comment"
            let noAsset = try Self.invoke(client, add, #"{"className":"\#(Self.article)","classPK":99999,"body":"x"}"#).expect(404).json()
            #expect(noAsset["error"]?["type"] == "com.liferay.asset.kernel.exception.NoSuchEntryException")
            let injected = try Self.invoke(client, add, #"{"className":"\#(Self.article)&classPK=40001","classPK":40001,"body":"x"}"#).expect(404).json()
            #expect(injected["error"]?["type"] == "com.liferay.asset.kernel.exception.NoSuchEntryException")
            let empty = try Self.invoke(client, add, #"{"className":"\#(Self.article)","classPK":40001,"body":"  "}"#).expect(500).json()
            #expect(empty["error"]?["type"] == "com.liferay.message.boards.exception.MessageBodyException")
            // Joe is no member of the Intranet site, where article 40074 is.
            _ = try Self.invoke(client, add, #"{"className":"\#(Self.article)","classPK":40074,"body":"x"}"#, as: TestHTTPClient.joe).expect(403)
            // Without body no signature matches: the portal has no such action.
            let noBody = try Self.invoke(client, add, #"{"className":"\#(Self.article)","classPK":40001}"#).expect(404).json()
            #expect(noBody["exception"]?.stringValue?.hasPrefix("No JSON web service action") == true)
            _ = try Self.invoke(client, add, #"{"className":"\#(Self.article)","classPK":"forty","body":"x"}"#).expect(500)

            let update = "/screens.screenscomment/update-comment"
            let unknown = try Self.invoke(client, update, #"{"commentId":424242,"body":"x"}"#).expect(404).json()
            #expect(unknown["error"]?["type"] == "com.liferay.message.boards.exception.NoSuchMessageException")
            #expect(unknown["error"]?["message"] == "No MBMessage exists with the primary key 424242")
            // 80001 is Joe's comment: the test user may not change it.
            let notOwner = try Self.invoke(client, update, #"{"commentId":80001,"body":"x"}"#).expect(403).json()
            #expect(notOwner["error"]?["type"]?.stringValue?.hasPrefix("com.liferay.portal.kernel.security.auth.PrincipalException") == true)
            _ = try Self.invoke(client, update, #"{"commentId":80003,"body":""}"#).expect(500)

            let delete = "/comment.commentmanagerjsonws/delete-comment"
            _ = try Self.invoke(client, delete, #"{"commentId":424242}"#).expect(404)
            _ = try Self.invoke(client, delete, #"{"commentId":80001}"#).expect(403)
            _ = try Self.invoke(client, delete, #"{"commentId":80001}"#, as: TestHTTPClient.joe).expect(200)
            _ = try Self.invoke(client, delete, #"{"commentId":80001}"#, as: TestHTTPClient.joe).expect(404)
            // Nothing refused changed the thread; Joe's delete did.
            let thread = try Self.comments(client)
            #expect(thread.count == 59)
            #expect(thread.first { $0["commentId"] == .int(80003) }?["body"] == "<p>Comment 3 on the quarterly results</p>")
            #expect(thread.allSatisfy { $0["body"] != "x" })
        }
    }

    @Test("comment ids are the portal's own, each on its asset: comments on a bookmark and an article never mix")
    func perAsset() async throws {
        try await withSandbox { client, _ in
            let add = "/screens.screenscomment/add-comment"
            let onBookmark = try Self.invoke(client, add, #"{"className":"com.liferay.bookmarks.model.BookmarksEntry","classPK":30001,"body":"<p>b</p>"}"#).expect(200).json()
            let onArticle = try Self.invoke(client, add, #"{"className":"\#(Self.article)","classPK":40001,"body":"<p>a</p>"}"#).expect(200).json()
            #expect(onBookmark["commentId"] != onArticle["commentId"])
            let bookmarkCount = try client.invoke(
                #"{"/screens.screenscomment/get-comments-count":{"className":"com.liferay.bookmarks.model.BookmarksEntry","classPK":30001}}"#
            ).expect(200).json()
            #expect(bookmarkCount == .int(6))
            #expect(try Self.comments(client).count == 61)
        }
    }
}
