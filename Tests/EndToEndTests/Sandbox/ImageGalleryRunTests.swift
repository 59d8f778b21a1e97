import Foundation
import ScreensBus
import Testing

/// pipelines/images.yaml through the real binary and the bundled sandbox: the gallery's
/// images only, each with the URLs Screens' `ImageEntry` builds from the server it talked to.
@Suite("Image gallery run")
struct ImageGalleryRunTests {
    @Test("25 images, every imageUrl starting with the run's own server, thumbnails versioned")
    func imagesCarryTheServersURLs() async throws {
        let result = try await CommandRunner.run(["run", "pipelines/images.yaml"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try result.jsonLines()
        #expect(rows.count == 25)
        #expect(Set(rows.compactMap { $0["mimeType"]?.stringValue }) == ["image/png", "image/jpeg", "image/gif"])
        for row in rows {
            let image = try #require(row["imageUrl"]?.stringValue)
            let uuid = try #require(row["uuid"]?.stringValue)
            #expect(image.hasPrefix("http://127.0.0.1:"), "\(image)")
            #expect(image.contains("/documents/20143/20400/"))
            #expect(image.hasSuffix("/\(uuid)"))
            #expect(row["thumbnailUrl"]?.stringValue == image + "?version=1.0&imageThumbnail=1")
        }
        #expect(rows.first?["imageUrl"]?.stringValue?.contains("/Playa%20de%20M%C3%A1laga%2001.jpg/") == true)
    }
}
