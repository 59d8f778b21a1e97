import Foundation
import Sandbox
import ScreensBus

/// Pipelines, inputs and read-backs for the write tests, each in a directory of its own
/// (its own cache, so one test's journal never answers for another's).
struct WriteWorkspace {
    let directory: URL

    init() throws {
        directory = try CommandRunner.temporaryDirectory()
    }

    var environment: [String: String] { ["SCREENS_PIPE_CACHE_DIR": directory.appendingPathComponent("cache").path] }

    /// `screens-pipe write PIPELINE ARGUMENTS`, its rejects file in this workspace (by
    /// default it would land in the working directory, the package root).
    func write(_ pipeline: String, _ arguments: [String]) async throws -> CommandResult {
        let rejects = arguments.contains("--rejects") ? [] : ["--rejects", path("rejects.jsonl")]
        return try await CommandRunner.run(["write", pipeline] + arguments + rejects, environment: environment)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A pipeline writing bookmarks to `server`'s folder 20201 ("Empty folder" of site 20143).
    func writePipeline(server: String, batchSize: Int = 25, folderId: Int64? = 20201, source: String = "", extra: String = "") throws -> String {
        let folder = folderId.map { "  folder-id: \($0)\n" } ?? ""
        let text = """
            name: write-test
            \(source)
            sink:
              type: liferay
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              service: bookmark
              group-id: 20143
            \(folder)  batch-size: \(batchSize)
              retry: { attempts: 4, backoff: 20ms, max-backoff: 200ms }
            \(extra)
            """
        return try save("write.yaml", text)
    }

    /// A list pipeline over a folder of `server`, read with no cache.
    func readPipeline(server: String, groupId: Int64 = 20143, folderId: Int64 = 20201) throws -> String {
        try save(
            "read-\(folderId).yaml",
            """
            name: read-back
            source:
              type: liferay-jsonws
              server: \(server)
              auth: { basic: { username: test@liferay.com, password: test } }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: \(groupId), folderId: \(folderId) } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: \(groupId), folderId: \(folderId) } }
              pagination: { first-page-size: 20, page-size: 15 }
            cache: { policy: remote-only }
            """)
    }

    /// `count` bookmark rows as JSON lines.
    func rows(_ count: Int, prefix: String = "row") throws -> String {
        let lines = (1...count).map { number in
            #"{"name":"\#(prefix) \#(number)","url":"https://example.com/\#(prefix)/\#(number)","description":"line \#(number) of \#(count)"}"#
        }
        return try save("rows.jsonl", lines.joined(separator: "\n") + "\n")
    }

    func save(_ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Every entry of a folder, read back through the binary (a list pipeline).
    func readBack(server: String, groupId: Int64 = 20143, folderId: Int64 = 20201) async throws -> [JSONValue] {
        let result = try await CommandRunner.run(["run", try readPipeline(server: server, groupId: groupId, folderId: folderId)], environment: environment)
        guard result.status == 0 else { throw ReadBackFailed(stderr: result.stderr) }
        return try result.jsonLines()
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    struct ReadBackFailed: Error { var stderr: String }
}

extension Array where Element == JSONValue {
    /// How often each URL occurs.
    var urlCounts: [String: Int] {
        reduce(into: [:]) { counts, row in counts[row["url"]?.stringValue ?? "", default: 0] += 1 }
    }
}
