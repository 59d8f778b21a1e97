import Foundation
import Sandbox
import ScreensBus
import ScreensPipe

/// Pipeline files of each source type, written into a temporary directory with their own
/// cache database (where the cursor lives), run through the real binary.
struct IncrementalWorkspace {
    let directory: URL

    init() throws {
        directory = try CommandRunner.temporaryDirectory()
    }

    var cachePath: String { directory.appendingPathComponent("cache.sqlite").path }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Writes a pipeline named `name` with `source` (YAML lines indented under `source:`),
    /// the cursor `cursor`, and the workspace's cache; returns its path.
    func pipeline(_ name: String, source: String, cursor: String = "modifiedDate", extra: String = "") throws -> String {
        let text = """
            name: \(name)
            source:
            \(source.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            cache: { policy: remote-only, path: \(cachePath) }
            incremental: { cursor: \(cursor), type: date }
            \(extra)
            """
        let file = path("\(name).yaml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    static let jsonwsBookmarks = """
        type: liferay-jsonws
        server: ${LIFERAY_SERVER}
        auth: { basic: { username: test@liferay.com, password: test } }
        rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
        count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
        pagination: { first-page-size: 10, page-size: 7 }
        """

    static let headlessArticles = """
        type: liferay-headless
        server: ${LIFERAY_SERVER}
        auth: { basic: { username: test@liferay.com, password: test } }
        path: /o/headless-delivery/v1.0/sites/20143/structured-contents
        query: { flatten: "true" }
        pagination: { first-page-size: 6, page-size: 6 }
        """

    static let restBookmarks = """
        type: rest
        server: ${LIFERAY_SERVER}
        url: /rest/bookmarks/offset
        records: data.records
        total: meta.total
        query: { modified-since: "{cursor}" }
        paginate: offset
        pagination: { first-page-size: 10, page-size: 10 }
        """
}

extension CommandResult {
    /// The values of `member` in the rows written (items format).
    func values(_ member: String) throws -> [Int64] {
        try jsonLines().map { row in
            guard let value = row[member]?.int64Value else { throw IncrementalTestError("a row has no integer \(member): \(row.jsonString)") }
            return value
        }
    }

    /// The `started` and `finished` events of an `--events` run.
    func runEvents() throws -> (started: JSONValue?, finished: JSONValue?, selected: [JSONValue]) {
        let lines = try jsonLines()
        return (
            lines.first { $0["event"]?.stringValue == "started" }, lines.last { $0["event"]?.stringValue == "finished" },
            lines.filter { $0["event"]?.stringValue == "selected" }.compactMap { $0["item"] }
        )
    }
}

struct IncrementalTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
