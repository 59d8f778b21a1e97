import Foundation
@testable import Sandbox
import ScreensJSON
import Testing

/// The sandbox's comments, against `ScreensCommentServiceImpl` and headless-delivery's
/// `getStructuredContentCommentsPage`: the asset first, then the view permission, then the
/// thread's comments.
@Suite("Comments")
struct CommentServiceTests {
    static let comments = "/screens.screenscomment/get-comments"
    static let article = "com.liferay.journal.model.JournalArticle"

    static func ids(_ value: JSONValue) -> [Int64] {
        (value.arrayValue ?? []).compactMap { $0["commentId"]?.int64Value }
    }

    @Test("get-comments pages by start/end and get-comments-count counts the thread")
    func pagesAndCount() async throws {
        try await withSandbox { client, _ in
            func page(_ start: Int, _ end: Int) throws -> [Int64] {
                Self.ids(
                    try client.invoke(
                        #"{"\#(Self.comments)":{"className":"\#(Self.article)","classPK":40001,"start":\#(start),"end":\#(end)}}"#
                    ).expect(200).json())
            }
            let all = try page(-1, -1)
            #expect(all.count == 60)
            #expect(all.first == 80001)
            let first = try page(0, 50)
            let second = try page(50, 75)
            #expect(first + second == all)
            #expect(second.count == 10)
            #expect(try page(10, 5).isEmpty)
            #expect(try page(60, 85).isEmpty)
            // start -1 is 0 (QueryUtil.ALL_POS); end -1 is everything from start.
            #expect(try page(-1, 3) == Array(all[0..<3]))
            #expect(try page(57, -1) == Array(all[57...]))
            let count = try client.invoke(
                #"{"\#(Self.comments)-count":{"className":"\#(Self.article)","classPK":40001}}"#
            ).expect(200).json()
            #expect(count == .int(60))
        }
    }

    @Test("a comment carries the fields ScreensCommentServiceImpl writes; only its author may change it")
    func fieldsAndPermissions() async throws {
        try await withSandbox { client, _ in
            let body = #"{"\#(Self.comments)":{"className":"\#(Self.article)","classPK":40001,"start":0,"end":3}}"#
            let asTest = try #require(try client.invoke(body).expect(200).json().arrayValue)
            let keys = Set(asTest[0].objectValue.map { Array($0.keys) } ?? [])
            #expect(keys == ["body", "commentId", "createDate", "deletePermission", "modifiedDate", "updatePermission", "userId", "userName"])
            #expect(asTest[0]["userId"] == .int(20160))
            #expect(asTest[0]["updatePermission"] == .bool(false))
            #expect(asTest[2]["userId"] == .int(20139))
            #expect(asTest[2]["updatePermission"] == .bool(true))
            #expect(asTest[2]["deletePermission"] == .bool(true))
            let asJoe = try #require(try client.invoke(body, headers: [TestHTTPClient.joe]).expect(200).json().arrayValue)
            #expect(asJoe[0]["updatePermission"] == .bool(true))
            #expect(asJoe[2]["updatePermission"] == .bool(false))
        }
    }

    @Test("the portal refuses an unknown asset (404), a site the user may not see (403) and a command missing classPK")
    func refusals() async throws {
        try await withSandbox { client, _ in
            let missing = try client.invoke(
                #"{"\#(Self.comments)":{"className":"\#(Self.article)","classPK":99999,"start":0,"end":5}}"#
            ).expect(404).json()
            #expect(missing["error"]?["type"] == "com.liferay.asset.kernel.exception.NoSuchEntryException")
            #expect(missing["exception"]?.stringValue?.contains("classNameId=20109, classPK=99999") == true)
            // Article 40074 is in the Intranet site, which Joe is no member of.
            let intranet = #"{"\#(Self.comments)-count":{"className":"\#(Self.article)","classPK":40074}}"#
            #expect(try client.invoke(intranet).expect(200).json() == .int(2))
            _ = try client.invoke(intranet, headers: [TestHTTPClient.joe]).expect(403)
            // Without classPK no signature matches: the portal has no such action.
            let noAction = try client.invoke(
                #"{"\#(Self.comments)":{"className":"\#(Self.article)","start":0,"end":5}}"#
            ).expect(404).json()
            #expect(noAction["exception"]?.stringValue?.hasPrefix("No JSON web service action") == true)
            // A bookmark's comments are found through the bookmark itself.
            let bookmark = try client.invoke(
                #"{"\#(Self.comments)-count":{"className":"com.liferay.bookmarks.model.BookmarksEntry","classPK":30001}}"#
            ).expect(200).json()
            #expect(bookmark == .int(5))
        }
    }

    @Test("headless comments of a structured content: a Comment page, 1-based, refusing what the sandbox does not do")
    func headless() async throws {
        try await withSandbox { client, _ in
            let path = "/o/headless-delivery/v1.0/structured-contents/40001/comments"
            let auth = [TestHTTPClient.testUser]
            let first = try client.get(path + "?page=1&pageSize=25", headers: auth).expect(200).json()
            #expect(first["totalCount"] == .int(60))
            #expect(first["lastPage"] == .int(3))
            let items = try #require(first["items"]?.arrayValue)
            #expect(items.count == 25)
            #expect(items[0]["id"] == .int(80001))
            #expect(items[0]["text"] == "<p>First!</p>")
            #expect(items[0]["creator"]?["name"] == "Joe Bloggs")
            #expect(items[0]["dateCreated"] == "2024-01-05T12:00:00Z")
            #expect(items[0]["parentCommentId"] == nil)
            let last = try client.get(path + "?page=3&pageSize=25", headers: auth).expect(200).json()
            #expect(last["items"]?.arrayValue?.count == 10)
            _ = try client.get("/o/headless-delivery/v1.0/structured-contents/99999/comments", headers: auth).expect(404)
            _ = try client.get("/o/headless-delivery/v1.0/structured-contents/abc/comments", headers: auth).expect(404)
            _ = try client.get("/o/headless-delivery/v1.0/structured-contents/40074/comments", headers: [TestHTTPClient.joe]).expect(403)
            _ = try client.get(path + "?pageSize=0", headers: auth).expect(400)
            _ = try client.get(path + "?sort=dateCreated:desc", headers: auth).expect(400)
            _ = try client.get(path).expect(401)
        }
    }

    @Test("hostile ids and class names are clear refusals, never a crash")
    func hostileInput() async throws {
        try await withSandbox { client, _ in
            let auth = [TestHTTPClient.testUser]
            for id in ["99999999999999999999999", "-1", "%2F", "40001%00", "0x9C41", String(repeating: "9", count: 5000)] {
                let status = try client.get("/o/headless-delivery/v1.0/structured-contents/\(id)/comments", headers: auth).expect(404).status
                #expect(status == 404, "\(id)")
            }
            // Two ids or an empty one are no comments path at all.
            _ = try client.get("/o/headless-delivery/v1.0/structured-contents/40001/40002/comments", headers: auth).expect(404)
            _ = try client.get("/o/headless-delivery/v1.0/structured-contents//comments", headers: auth).expect(404)
            for className in [#"a\"b"#, #"\u0000"#, String(repeating: "x", count: 100_000), ""] {
                let body = #"{"\#(Self.comments)-count":{"className":"\#(className)","classPK":40001}}"#
                let refused = try client.invoke(body).expect(404).json()
                #expect(refused["error"]?["type"] == "com.liferay.asset.kernel.exception.NoSuchEntryException")
            }
            // A classPK that is no long is the portal's type conversion error.
            _ = try client.invoke(#"{"\#(Self.comments)-count":{"className":"\#(Self.article)","classPK":"forty"}}"#).expect(500)
            // start/end at the ends of int never overflow.
            let extreme = try client.invoke(
                #"{"\#(Self.comments)":{"className":"\#(Self.article)","classPK":40001,"start":-9223372036854775808,"end":9223372036854775807}}"#
            ).expect(200).json()
            #expect(extreme.arrayValue?.count == 60)
        }
    }

    @Test("7.0 and 7.1 have no headless comments; JSON-WS comments are on every 7.x")
    func perVersion() async throws {
        try await withSandbox(.init { $0.liferayVersion = .v7_1 }) { client, _ in
            _ = try client.get("/o/headless-delivery/v1.0/structured-contents/40001/comments", headers: [TestHTTPClient.testUser])
                .expect(404)
            let count = try client.invoke(
                #"{"\#(Self.comments)-count":{"className":"\#(Self.article)","classPK":40001}}"#
            ).expect(200).json()
            #expect(count == .int(60))
        }
    }
}

@Suite("Fidelity: headless comments against the OpenAPI Comment schema")
struct CommentFidelityTests {
    @Test("every page of structured content comments is a PageComment of Comment items")
    func everyAnswerValidates() async throws {
        let validator = try SchemaValidator.load("headless-delivery.json")
        try await withSandbox { client, _ in
            for query in ["page=1&pageSize=25", "page=3&pageSize=25", "page=9&pageSize=50", ""] {
                let body = try client.get(
                    "/o/headless-delivery/v1.0/structured-contents/40001/comments?\(query)", headers: [TestHTTPClient.testUser]
                ).expect(200).json()
                let problems = validator.violations(of: body, against: "PageComment")
                #expect(problems.isEmpty, "\(query): \(problems.prefix(5))")
            }
            // The check itself fails on a string id.
            #expect(!validator.violations(of: ["id": "80001"], against: "Comment").isEmpty)
        }
    }
}
