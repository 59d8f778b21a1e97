import Foundation
@testable import Sandbox
import ScreensJSON
import Testing

/// The sandbox's `/dlapp/add-file-entry` (multipart, as the Mobile SDK's upload sends it) and
/// `/dlapp/delete-file-entry`, checked as the portal checks them.
@Suite("Document uploads")
struct DocumentUploadTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 992)

    /// A multipart body with `fields` then `file` as the `file` part.
    static func multipart(_ fields: [(String, String)], file: [UInt8], fileName: String = "a.png", boundary: String = "XyZ-42") -> [UInt8] {
        var body: [UInt8] = Array("preamble\r\n".utf8)
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(fileName)\"\r\nContent-Type: image/png\r\n\r\n".utf8)
        body += file
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return body
    }

    static func fields(title: String, mimeType: String = "image/png", folderId: Int64 = 20400) -> [(String, String)] {
        [
            ("repositoryId", "20143"), ("folderId", String(folderId)), ("sourceFileName", "\(title).png"), ("mimeType", mimeType),
            ("title", title), ("description", "desc"), ("changeLog", ""),
        ]
    }

    static func upload(_ client: TestHTTPClient, _ body: [UInt8], boundary: String = "XyZ-42", user: (String, String) = TestHTTPClient.testUser) throws -> Exchange {
        try client.send(
            "POST", DLAppUploads.path, headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)"), user], body: body)
    }

    @Test("an upload is stored with its size and type, listed with the folder's images, refused a second time, and deleted")
    func uploadListDelete() async throws {
        try await withSandbox { client, _ in
            // File bytes that hold the start of the delimiter ("\r\n--XyZ") are content.
            let file = Self.png + Array("\r\n--XyZ-4\r\n--".utf8) + Self.png
            let stored = try Self.upload(client, Self.multipart(Self.fields(title: "Sunset"), file: file)).expect(200).json()
            #expect(stored["title"] == "Sunset")
            #expect(stored["size"] == .int(Int64(file.count)))
            #expect(stored["mimeType"] == "image/png")
            #expect(stored["fileName"] == "Sunset.png")
            let id = try #require(stored["fileEntryId"]?.int64Value)
            let list = try client.invoke(
                #"{"/dlapp/get-file-entries":{"repositoryId":20143,"folderId":20400,"mimeTypes":["image/png"],"start":-1,"end":-1,"obc":null}}"#
            ).expect(200).json()
            #expect(list.arrayValue?.last?["fileEntryId"] == .int(id))
            let again = try Self.upload(client, Self.multipart(Self.fields(title: "Sunset"), file: Self.png)).expect(500).json()
            #expect(again["error"]?["type"] == "com.liferay.document.library.kernel.exception.DuplicateFileEntryException")
            #expect(try client.invoke(#"{"/dlapp/delete-file-entry":{"fileEntryId":\#(id)}}"#).expect(200).json() == .null)
            let gone = try client.invoke(#"{"/dlapp/delete-file-entry":{"fileEntryId":\#(id)}}"#).expect(404).json()
            #expect(gone["error"]?["type"] == "com.liferay.document.library.kernel.exception.NoSuchFileEntryException")
            let count = try client.invoke(#"{"/dlapp/get-file-entries-count":{"repositoryId":20143,"folderId":20400}}"#).expect(200).json()
            #expect(count == .int(30))
        }
    }

    @Test("get-file-entry reads one entry as its folder lists it, an upload too; unknown, deleted or another site's is refused")
    func getFileEntry() async throws {
        try await withSandbox { client, _ in
            let listed = try client.invoke(#"{"/dlapp/get-file-entries":{"repositoryId":20143,"folderId":20400,"start":0,"end":1}}"#).expect(200).json()
            let first = try #require(listed.arrayValue?.first)
            let id = try #require(first["fileEntryId"]?.int64Value)
            #expect(try client.invoke(#"{"/dlapp/get-file-entry":{"fileEntryId":\#(id)}}"#).expect(200).json() == first)

            let stored = try Self.upload(client, Self.multipart(Self.fields(title: "Read back"), file: Self.png)).expect(200).json()
            let uploaded = try #require(stored["fileEntryId"]?.int64Value)
            #expect(try client.invoke(#"{"/dlapp/get-file-entry":{"fileEntryId":\#(uploaded)}}"#).expect(200).json() == stored)

            _ = try client.invoke(#"{"/dlapp/delete-file-entry":{"fileEntryId":\#(uploaded)}}"#).expect(200)
            for gone in [uploaded, 424_242] {
                let refused = try client.invoke(#"{"/dlapp/get-file-entry":{"fileEntryId":\#(gone)}}"#).expect(404).json()
                #expect(refused["error"]?["type"] == "com.liferay.document.library.kernel.exception.NoSuchFileEntryException")
                #expect(refused["error"]?["message"] == .string("No DLFileEntry exists with the primary key \(gone)"))
            }
            // Entry 90033 is in site 20144, which joe is no member of.
            let foreign = try client.invoke(#"{"/dlapp/get-file-entry":{"fileEntryId":90033}}"#, headers: [TestHTTPClient.joe]).expect(403).json()
            #expect(foreign["error"]?["type"]?.stringValue?.hasSuffix("PrincipalException") == true, "\(foreign)")
            #expect(try client.invoke(#"{"/dlapp/get-file-entry":{"fileEntryId":90033}}"#).expect(200).json()["groupId"] == .int(20144))
        }
    }

    @Test("the portal refuses a file over dl.file.max.size, a type not allowed or not the file's, an unknown folder, a body that is not multipart")
    func refusals() async throws {
        try await withSandbox(.init { $0.fileMaxSize = 2000 }) { client, _ in
            let big = try Self.upload(client, Self.multipart(Self.fields(title: "Big"), file: Self.png + Self.png + Self.png)).expect(413).json()
            #expect(big["error"]?["type"] == "com.liferay.document.library.kernel.exception.FileSizeException")
            let wrong = try Self.upload(client, Self.multipart(Self.fields(title: "Wrong", mimeType: "image/jpeg"), file: Self.png)).expect(500).json()
            #expect(wrong["error"]?["type"] == "com.liferay.document.library.kernel.exception.FileMimeTypeException")
            #expect(wrong["error"]?["message"]?.stringValue?.contains("image/png") == true)
            let exe = try Self.upload(client, Self.multipart(Self.fields(title: "Exe", mimeType: "application/x-msdownload"), file: [1, 2, 3])).expect(500).json()
            #expect(exe["error"]?["type"] == "com.liferay.document.library.kernel.exception.FileMimeTypeException")
            let folder = try Self.upload(client, Self.multipart(Self.fields(title: "Lost", folderId: 424242), file: Self.png)).expect(404).json()
            #expect(folder["error"]?["type"] == "com.liferay.document.library.kernel.exception.NoSuchFolderException")
            let cut = Array(Self.multipart(Self.fields(title: "Cut"), file: Self.png).dropLast(10))
            let malformed = try Self.upload(client, cut).expect(500).json()
            #expect(malformed["error"]?["message"]?.stringValue?.contains("closing boundary") == true)
            _ = try Self.upload(client, Self.multipart(Self.fields(title: "Anon"), file: Self.png), user: ("X-None", "1")).expect(401)
        }
    }

    @Test("the multipart parser finds parts split across any chunk boundary")
    func chunking() throws {
        let body = Self.multipart(Self.fields(title: "Chunks"), file: Self.png)
        for size in [1, 2, 3, 7, 13, 64, 1000] {
            var receiver = try #require(MultipartReceiver(contentType: "multipart/form-data; boundary=\"XyZ-42\""))
            var offset = 0
            while offset < body.count {
                receiver.feed(Array(body[offset..<min(body.count, offset + size)]))
                offset += size
            }
            let received = receiver.finish()
            #expect(received.malformed == nil, "chunk size \(size)")
            #expect(received.fields["title"] == "Chunks", "chunk size \(size)")
            #expect(received.fields["changeLog"] == "", "chunk size \(size)")
            #expect(received.files.first?.size == Int64(Self.png.count), "chunk size \(size)")
            #expect(received.files.first?.leadingBytes == Array(Self.png.prefix(16)), "chunk size \(size)")
        }
    }
}
