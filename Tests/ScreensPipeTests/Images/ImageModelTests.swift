import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The `image` model: Screens' `ImageEntry`, with the URLs it builds.
@Suite struct ImageModelTests {
    static let raw: JSONValue = [
        "fileEntryId": 90001, "groupId": 20143, "folderId": 20400, "title": "Playa de Málaga 01.jpg",
        "uuid": "1d6c-aa", "version": "1.0", "mimeType": "image/jpeg", "size": 10240, "description": "",
        "createDate": 1_704_542_400_000, "modifiedDate": 1_704_542_400_000,
    ]

    @Test func theURLsAreImageEntrysWithTheServerFirst() throws {
        var converter = try RowConverter(spec: ConvertSpec(model: .image))
        converter.serverURL = "https://portal.example.com"
        let row = try converter.convert(Self.raw, row: 0, page: 0)
        #expect(row["imageUrl"] == "https://portal.example.com/documents/20143/20400/Playa%20de%20M%C3%A1laga%2001.jpg/1d6c-aa")
        #expect(row["thumbnailUrl"] == "https://portal.example.com/documents/20143/20400/Playa%20de%20M%C3%A1laga%2001.jpg/1d6c-aa?version=1.0&imageThumbnail=1")
        #expect(row["fileEntryId"] == 90001)
        #expect(row["createDate"] == "2024-01-06T12:00:00Z")
        // Without a server (a file source) the URLs are relative to the portal.
        let relative = try RowConverter(spec: ConvertSpec(model: .image)).convert(Self.raw, row: 0, page: 0)
        #expect(relative["imageUrl"] == "/documents/20143/20400/Playa%20de%20M%C3%A1laga%2001.jpg/1d6c-aa")
    }

    @Test func titlesAreEncodedAsURLHostAllowedEncodesThem() {
        // Unreserved characters, sub-delims, ':' '[' ']' stay; '/', '?', '#', '%', space and non-ASCII do not.
        #expect(ImageModel.encodedTitle("a-b_c.d~e!$&'()*+,;=:[]") == "a-b_c.d~e!$&'()*+,;=:[]")
        #expect(ImageModel.encodedTitle("a/b?c#d%e f") == "a%2Fb%3Fc%23d%25e%20f")
        #expect(ImageModel.encodedTitle("\u{0}\n\"<>") == "%00%0A%22%3C%3E")
    }

    @Test func missingPartsLeaveTheURLsNullAndAMissingIdFails() throws {
        let converter = try RowConverter(spec: ConvertSpec(model: .image))
        let noUUID = try converter.convert(["fileEntryId": 1, "groupId": 2, "folderId": 3], row: 0, page: 0)
        #expect(noUUID["imageUrl"] == .null)
        #expect(noUUID["thumbnailUrl"] == .null)
        let noVersion = try converter.convert(["fileEntryId": 1, "groupId": 2, "folderId": 3, "uuid": "u"], row: 0, page: 0)
        #expect(noVersion["imageUrl"] == "/documents/2/3//u")
        #expect(noVersion["thumbnailUrl"] == .null)
        #expect(throws: ScreensPipeError.self) { try converter.convert(["title": "x"], row: 0, page: 0) }
    }
}
