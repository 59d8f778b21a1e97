import Foundation
@testable import Sandbox
import ScreensJSON
import Testing

/// The sandbox's headless comment writes, against headless-delivery's `CommentResourceImpl`:
/// what each endpoint stores and answers, and what it refuses with the portal's status and
/// title.
@Suite("Headless comment writes")
struct HeadlessCommentWritesTests {
    static let base = "/o/headless-delivery/v1.0"

    static func send(_ client: TestHTTPClient, _ method: String, _ path: String, _ body: String? = nil, as user: (String, String) = TestHTTPClient.testUser) throws -> Exchange {
        var headers = [user]
        if let body {
            headers.append(("Content-Type", "application/json"))
            // The test client sends a length of its own only with a POST.
            if method != "POST" { headers.append(("Content-Length", String(body.utf8.count))) }
        }
        return try client.send(method, base + path, headers: headers, body: Array((body ?? "").utf8))
    }

    @Test("POST stores <p>text</p> and answers the Comment; PUT changes it; DELETE answers 204 and the comment is gone")
    func roundTrip() async throws {
        try await withSandbox { client, _ in
            let posted = try Self.send(client, "POST", "/structured-contents/40001/comments", #"{"text":"Hello"}"#).expect(200).json()
            let id = try #require(posted["id"]?.int64Value)
            #expect(posted["text"] == "<p>Hello</p>")
            #expect(posted["creator"]?["id"] == .int(20139))
            let list = try client.get(Self.base + "/structured-contents/40001/comments?pageSize=100", headers: [TestHTTPClient.testUser]).expect(200).json()
            #expect(list["totalCount"] == .int(61))
            #expect(list["items"]?.arrayValue?.last?["id"] == .int(id))

            let put = try Self.send(client, "PUT", "/comments/\(id)", #"{"text":"Changed"}"#).expect(200).json()
            #expect(put["text"] == "<p>Changed</p>")
            #expect(try Self.send(client, "GET", "/comments/\(id)").expect(200).json()["text"] == "<p>Changed</p>")

            let deleted = try Self.send(client, "DELETE", "/comments/\(id)").expect(204)
            #expect(deleted.body.isEmpty)
            #expect(try Self.send(client, "GET", "/comments/\(id)").expect(404).json()["title"] == .string("No comment exists with comment ID \(id)"))
            #expect(try Self.send(client, "DELETE", "/comments/\(id)").expect(404).json()["status"] == "NOT_FOUND")

            // Documents and blog posts take comments too, and list them.
            let onDocument = try Self.send(client, "POST", "/documents/90001/comments", #"{"text":"Nice photo"}"#).expect(200).json()
            let documentComments = try client.get(Self.base + "/documents/90001/comments", headers: [TestHTTPClient.testUser]).expect(200).json()
            #expect(documentComments["items"]?.arrayValue?.map { $0["id"] } == [onDocument["id"]])
            _ = try Self.send(client, "POST", "/blog-postings/60004/comments", #"{"text":"Good read"}"#).expect(200)
            let blogComments = try client.get(Self.base + "/blog-postings/60004/comments", headers: [TestHTTPClient.testUser]).expect(200).json()
            #expect(blogComments["items"]?.arrayValue?.map { $0["text"] } == ["<p>Good read</p>"])
        }
    }

    @Test("refusals as the portal answers them: unknown parent or comment 404, empty text 422, unknown property 400, same text 409, another's comment 403")
    func refusals() async throws {
        try await withSandbox { client, _ in
            func title(_ exchange: Exchange, _ status: Int) throws -> String? { try exchange.expect(status).json()["title"]?.stringValue }
            #expect(try title(Self.send(client, "POST", "/structured-contents/99999/comments", #"{"text":"x"}"#), 404) == "No JournalArticle exists with the key {resourcePrimKey=99999}")
            #expect(try title(Self.send(client, "POST", "/blog-postings/99999/comments", #"{"text":"x"}"#), 404) == "No BlogsEntry exists with the primary key 99999")
            #expect(try title(Self.send(client, "POST", "/documents/99999/comments", #"{"text":"x"}"#), 404) == "No DLFileEntry exists with the primary key 99999")
            #expect(try title(Self.send(client, "PUT", "/comments/424242", #"{"text":"x"}"#), 404) == "No MBMessage exists with the primary key 424242")
            #expect(try title(Self.send(client, "POST", "/structured-contents/40001/comments", #"{"text":"  "}"#), 422) == "Comment text is null")
            #expect(try title(Self.send(client, "POST", "/structured-contents/40001/comments", #"{}"#), 422) == "Comment text is null")
            #expect(try title(Self.send(client, "PUT", "/comments/80003", #"{"text":""}"#), 422) == "Comment text is null")
            #expect(try title(Self.send(client, "POST", "/structured-contents/40001/comments", #"{"text":"x","body":"<p>x</p>"}"#), 400) == #"The property "body" is not defined in Comment."#)
            #expect(try title(Self.send(client, "POST", "/structured-contents/40001/comments", "not json"), 400) != nil)
            _ = try Self.send(client, "POST", "/structured-contents/40001/comments", #"{"text":"Twice"}"#).expect(200)
            #expect(try title(Self.send(client, "POST", "/structured-contents/40001/comments", #"{"text":"Twice"}"#), 409) == "A comment with the same text already exists")
            _ = try Self.send(client, "POST", "/structured-contents/40001/comments", #"{"text":"Twice"}"#, as: TestHTTPClient.joe).expect(200)
            #expect(try Self.send(client, "PUT", "/comments/80001", #"{"text":"not mine"}"#).expect(403).json()["status"] == "FORBIDDEN")
            #expect(try Self.send(client, "DELETE", "/comments/80001").expect(403).json()["status"] == "FORBIDDEN")
            #expect(try Self.send(client, "PATCH", "/comments/80003", #"{"text":"x"}"#).expect(405).json()["status"] == "METHOD_NOT_ALLOWED")
            // A read-only property is taken and ignored, as the schema's readOnly says.
            let posted = try Self.send(client, "POST", "/structured-contents/40001/comments", #"{"text":"with id","id":1,"dateCreated":"2020-01-01T00:00:00Z"}"#).expect(200).json()
            #expect(posted["id"] != .int(1))
            #expect(try Self.send(client, "POST", "/structured-contents/40001/comments", #"{"text":"x"}"#, as: ("Authorization", "Basic bm9ib2R5Om5vcGU=")).expect(401).json()["status"] == "UNAUTHORIZED")
        }
    }
}
