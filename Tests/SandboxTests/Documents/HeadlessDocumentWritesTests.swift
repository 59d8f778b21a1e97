import Foundation
@testable import Sandbox
import ScreensJSON
import Testing

/// The sandbox's headless-delivery document upload (multipart `document` and `file` parts)
/// and delete, checked as `DocumentResourceImpl` and its exception mappers answer them.
@Suite("Headless document writes")
struct HeadlessDocumentWritesTests {
    static let png = DocumentUploadTests.png
    static let base = "/o/headless-delivery/v1.0"

    /// A multipart body with a `document` part (when given) and `file` typed `type`.
    static func multipart(document: String?, file: [UInt8], type: String = "image/png", fileName: String = "a.png") -> [UInt8] {
        var body: [UInt8] = []
        if let document {
            body += Array("--B0undary\r\nContent-Disposition: form-data; name=\"document\"\r\nContent-Type: application/json\r\n\r\n\(document)\r\n".utf8)
        }
        body += Array("--B0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(fileName)\"\r\nContent-Type: \(type)\r\n\r\n".utf8)
        return body + file + Array("\r\n--B0undary--\r\n".utf8)
    }

    static func post(_ client: TestHTTPClient, _ path: String, _ body: [UInt8], user: (String, String) = TestHTTPClient.testUser) throws -> Exchange {
        try client.send("POST", base + path, headers: [("Content-Type", "multipart/form-data; boundary=B0undary"), user], body: body)
    }

    @Test("an upload is stored and listed as a Document; DELETE answers 204 and the document is gone")
    func uploadListDelete() async throws {
        try await withSandbox { client, _ in
            let stored = try Self.post(client, "/document-folders/20400/documents", Self.multipart(document: #"{"title":"Sunset","description":"Evening"}"#, file: Self.png))
                .expect(200).json()
            #expect(stored["title"] == "Sunset")
            #expect(stored["description"] == "Evening")
            #expect(stored["sizeInBytes"] == .int(Int64(Self.png.count)))
            #expect(stored["encodingFormat"] == "image/png")
            #expect(stored["fileName"] == "a.png")
            #expect(stored["documentFolderId"] == .int(20400))
            let id = try #require(stored["id"]?.int64Value)
            let list = try client.get(Self.base + "/document-folders/20400/documents?pageSize=100", headers: [TestHTTPClient.testUser]).expect(200).json()
            #expect(list["items"]?.arrayValue?.last?["id"] == .int(id))
            #expect(try client.get(Self.base + "/documents/\(id)", headers: [TestHTTPClient.testUser]).expect(200).json()["title"] == "Sunset")

            // Without a document part the title is the file's name; the site's root takes it.
            let root = try Self.post(client, "/sites/20143/documents", Self.multipart(document: nil, file: Self.png, fileName: "root.png")).expect(200).json()
            #expect(root["title"] == "root.png")
            #expect(root["documentFolderId"] == .int(0))
            let rootList = try client.get(Self.base + "/sites/20143/documents", headers: [TestHTTPClient.testUser]).expect(200).json()
            #expect(rootList["items"]?.arrayValue?.contains { $0["id"] == root["id"] } == true)

            let deleted = try client.send("DELETE", Self.base + "/documents/\(id)", headers: [TestHTTPClient.testUser], body: []).expect(204)
            #expect(deleted.body.isEmpty)
            let gone = try client.send("DELETE", Self.base + "/documents/\(id)", headers: [TestHTTPClient.testUser], body: []).expect(404).json()
            #expect(gone["title"] == .string("No DLFileEntry exists with the primary key \(id)"))
        }
    }

    @Test("refusals as the portal answers them: 413 over the limit, 404 unknown folder, 409 same title, 400 unknown property or wrong type, 415 not multipart")
    func refusals() async throws {
        try await withSandbox(.init { $0.fileMaxSize = 2048 }) { client, _ in
            func title(_ exchange: Exchange, _ status: Int) throws -> String { try exchange.expect(status).json()["title"]?.stringValue ?? "" }
            let folder = "/document-folders/20400/documents"
            let tooLarge = try title(Self.post(client, folder, Self.multipart(document: nil, file: Self.png + Array(repeating: 0, count: 2048))), 413)
            #expect(tooLarge.contains("exceeds the maximum permitted size of 2048"))
            let noFolder = try title(Self.post(client, "/document-folders/424242/documents", Self.multipart(document: nil, file: Self.png)), 404)
            #expect(noFolder == "No DLFolder exists with the primary key 424242")
            let noSite = try title(Self.post(client, "/sites/99999/documents", Self.multipart(document: nil, file: Self.png)), 404)
            #expect(noSite.contains("No Group exists"))
            let duplicate = try title(Self.post(client, folder, Self.multipart(document: #"{"title":"Playa de Málaga 01.jpg"}"#, file: Self.png)), 409)
            #expect(duplicate.hasPrefix("A document with the title Playa de Málaga 01.jpg"))
            let unknown = try title(Self.post(client, folder, Self.multipart(document: #"{"title":"x","mimeType":"image/png"}"#, file: Self.png)), 400)
            #expect(unknown == #"The property "mimeType" is not defined in Document."#)
            let wrongType = try title(Self.post(client, folder, Self.multipart(document: #"{"title":"y"}"#, file: Self.png, type: "image/jpeg")), 400)
            #expect(wrongType.contains("FileMimeTypeException"))
            let notJSON = try title(Self.post(client, folder, Self.multipart(document: "not json", file: Self.png)), 400)
            #expect(notJSON.contains("not a Document"))
            let notMultipart = try client.send("POST", Self.base + folder, headers: [("Content-Type", "application/json"), TestHTTPClient.testUser], body: Array("{}".utf8))
                .expect(415).json()
            #expect(notMultipart["status"] == "UNSUPPORTED_MEDIA_TYPE")
            let gone = try client.send("DELETE", Self.base + "/documents/424242", headers: [TestHTTPClient.testUser], body: []).expect(404).json()
            #expect(gone["status"] == "NOT_FOUND")
            // Joe is no member of site 20144, whose folder 20410 this is.
            let forbidden = try Self.post(client, "/document-folders/20410/documents", Self.multipart(document: nil, file: Self.png), user: TestHTTPClient.joe).expect(403).json()
            #expect(forbidden["status"] == "FORBIDDEN")
        }
    }
}
