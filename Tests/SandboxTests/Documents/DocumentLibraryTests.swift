import Foundation
@testable import Sandbox
import ScreensJSON
import Testing

/// The sandbox's document library against `DLAppService.getFileEntries`/`getFileEntriesCount`
/// with `mimeTypes` (the Image Gallery's calls) and headless `document-folders/{id}/documents`.
@Suite("Document library")
struct DocumentLibraryTests {
    static let entries = "/dlapp/get-file-entries"
    static let images = #"["image/png","image/jpeg","image/gif"]"#

    static func ids(_ value: JSONValue) -> [Int64] {
        (value.arrayValue ?? []).compactMap { $0["fileEntryId"]?.int64Value }
    }

    @Test("mimeTypes select the images; start/end page them; the count agrees")
    func mimeTypesAndPaging() async throws {
        try await withSandbox { client, _ in
            func page(_ mimeTypes: String, _ start: Int, _ end: Int) throws -> [Int64] {
                Self.ids(
                    try client.invoke(
                        #"{"\#(Self.entries)":{"repositoryId":20143,"folderId":20400,"mimeTypes":\#(mimeTypes),"start":\#(start),"end":\#(end),"obc":null}}"#
                    ).expect(200).json())
            }
            let all = try page(Self.images, -1, -1)
            #expect(all.count == 25)
            #expect(try page(Self.images, 0, 20) + page(Self.images, 20, 30) == all)
            #expect(try page(#"["image/png","image/jpeg"]"#, -1, -1).count == 20)
            #expect(try page(#""image/png,image/jpeg""#, -1, -1).count == 20)
            #expect(try page("null", -1, -1).count == 30)
            #expect(try page("[]", -1, -1).count == 30)
            #expect(try page(#"["text/plain"]"#, -1, -1).isEmpty)
            let count = try client.invoke(
                #"{"\#(Self.entries)-count":{"repositoryId":20143,"folderId":20400,"mimeTypes":\#(Self.images)}}"#
            ).expect(200).json()
            #expect(count == .int(25))
            let row = try #require(try client.invoke(
                #"{"\#(Self.entries)":{"repositoryId":20143,"folderId":20400,"mimeTypes":\#(Self.images),"start":0,"end":1,"obc":null}}"#
            ).expect(200).json().arrayValue?.first)
            for key in ["fileEntryId", "groupId", "folderId", "title", "uuid", "version", "mimeType"] {
                #expect(row[key] != nil, "\(key)")
            }
        }
    }

    @Test("the portal refuses an unknown repository or folder (404), a site the user may not see (403), a command without mimeTypes' overload parameters")
    func refusals() async throws {
        try await withSandbox { client, _ in
            let repository = try client.invoke(
                #"{"\#(Self.entries)-count":{"repositoryId":99,"folderId":0,"mimeTypes":\#(Self.images)}}"#).expect(404).json()
            #expect(repository["error"]?["type"] == "com.liferay.portal.kernel.exception.NoSuchRepositoryException")
            let folder = try client.invoke(
                #"{"\#(Self.entries)-count":{"repositoryId":20143,"folderId":20410,"mimeTypes":\#(Self.images)}}"#).expect(404).json()
            #expect(folder["error"]?["type"] == "com.liferay.document.library.kernel.exception.NoSuchFolderException")
            let intranet = #"{"\#(Self.entries)-count":{"repositoryId":20144,"folderId":20410,"mimeTypes":\#(Self.images)}}"#
            #expect(try client.invoke(intranet).expect(200).json() == .int(1))
            _ = try client.invoke(intranet, headers: [TestHTTPClient.joe]).expect(403)
            // mimeTypes with start and end but no comparator picks getFileEntries(repositoryId,
            // folderId, start, end), which ignores mimeTypes: every file, PDFs included.
            let unfiltered = try client.invoke(
                #"{"\#(Self.entries)":{"repositoryId":20143,"folderId":20400,"mimeTypes":\#(Self.images),"start":0,"end":30}}"#
            ).expect(200).json()
            #expect(Self.ids(unfiltered).count == 30)
            // mimeTypes that are no strings are the portal's conversion error.
            _ = try client.invoke(#"{"\#(Self.entries)-count":{"repositoryId":20143,"folderId":20400,"mimeTypes":[1,2]}}"#).expect(500)
        }
    }

    @Test("7.3 names the comparator orderByComparator: with obc the mimeTypes overload is not picked")
    func perVersion() async throws {
        try await withSandbox(.init { $0.liferayVersion = .v7_3 }) { client, _ in
            let params = #""repositoryId":20143,"folderId":20400,"mimeTypes":\#(Self.images),"start":0,"end":30"#
            let withObc = try client.invoke(#"{"\#(Self.entries)":{\#(params),"obc":null}}"#).expect(200).json()
            #expect(Self.ids(withObc).count == 30)
            let named = try client.invoke(#"{"\#(Self.entries)":{\#(params),"orderByComparator":null}}"#).expect(200).json()
            #expect(Self.ids(named).count == 25)
        }
    }

    @Test("headless documents of a folder: a Document page; hostile ids are 404s")
    func headless() async throws {
        try await withSandbox { client, _ in
            let auth = [TestHTTPClient.testUser]
            let body = try client.get("/o/headless-delivery/v1.0/document-folders/20400/documents?pageSize=20", headers: auth)
                .expect(200).json()
            #expect(body["totalCount"] == .int(30))
            #expect(body["lastPage"] == .int(2))
            let first = try #require(body["items"]?[0])
            #expect(first["id"] == .int(90001))
            #expect(first["encodingFormat"] == "image/jpeg")
            #expect(first["contentUrl"]?.stringValue?.hasPrefix("/documents/20143/20400/Playa%20de%20M%C3%A1laga%2001.jpg/") == true)
            for id in ["99999", "abc", "-1", "99999999999999999999", "%2F"] {
                _ = try client.get("/o/headless-delivery/v1.0/document-folders/\(id)/documents", headers: auth).expect(404)
            }
            _ = try client.get("/o/headless-delivery/v1.0/document-folders/20410/documents", headers: [TestHTTPClient.joe]).expect(403)
            _ = try client.get("/o/headless-delivery/v1.0/document-folders/20400/documents?filter=x", headers: auth).expect(400)
            _ = try client.get("/o/headless-delivery/v1.0/document-folders/20400/documents").expect(401)
        }
    }
}
