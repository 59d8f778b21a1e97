// Typed rows: the selected rows as the program's own Decodable type.

// snippet.hide
import Foundation
import Sandbox
import ScreensPipe

let environment = PipelineEnvironment.current(sandbox: BundledSandbox(), cacheDirectory: .userCache)
// snippet.show
// snippet.typed-rows
struct Bookmark: Decodable, Sendable {
    let entryId: Int64        // 64-bit ids exactly: a number that does not fit is an error
    let name: String
    let url: String
    let description: String?  // null or missing: nil
    let createDate: Date?     // an ISO 8601 string, as the bookmark model writes dates
}

let bookmarks = try Pipeline(file: "pipelines/bookmarks.yaml", sink: .discard, environment: environment)
do throws(ScreensPipeError) {
    for try await bookmark in bookmarks.rows(as: Bookmark.self) {
        print(bookmark.entryId, bookmark.name)
    }
} catch {
    // A row that does not decode: "row 3 of page 0: ... entryId: expected an integer, found a string"
    // A failed run: what run() throws (a 401 as an `auth` error naming the page and the request).
    print("error:", error)
}
// snippet.end
