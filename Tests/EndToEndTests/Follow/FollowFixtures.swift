import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A followed pipeline in a temporary directory with its own cache database (where the
/// follow state lives), and the change lines its follow appended to `changes.jsonl`.
struct FollowWorkspace {
    let directory: URL
    let pipeline: String

    /// A pipeline named `name` over `source` (YAML lines under `source:`), with `extra` lines at the end.
    init(_ name: String, source: String, extra: String = "") throws {
        directory = try CommandRunner.temporaryDirectory()
        let text = """
            name: \(name)
            source:
            \(source.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            cache: { policy: remote-only, path: \(directory.appendingPathComponent("cache.sqlite").path) }
            \(extra)
            """
        pipeline = directory.appendingPathComponent("\(name).yaml").path
        try text.write(toFile: pipeline, atomically: true, encoding: .utf8)
    }

    var output: String { directory.appendingPathComponent("changes.jsonl").path }

    /// Starts `screens-pipe run PIPELINE --follow INTERVAL -o changes.jsonl` against `sandbox`.
    func start(_ sandbox: SandboxHarness, interval: String = "200ms", _ arguments: [String] = []) throws -> RunningCommand {
        try RunningCommand(
            ["run", pipeline, "--follow", interval, "-o", output] + arguments, environment: ["LIFERAY_SERVER": sandbox.server.baseURL])
    }

    /// The change lines written so far (complete lines only).
    func changes() throws -> [FollowedChange] {
        guard let text = try? String(contentsOfFile: output, encoding: .utf8) else { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()  // after the last newline: empty, or a line being written
        return try lines.map { line in try FollowedChange(line) }
    }

    /// Waits until at least `count` changes are written, then two more intervals (so a
    /// change written twice would show), and returns them.
    func waitForChanges(_ count: Int, settle: Duration = .milliseconds(900)) async throws -> [FollowedChange] {
        try await waitUntil(timeout: .seconds(60)) { ((try? changes().count) ?? 0) >= count }
        try await Task.sleep(for: settle)
        return try changes()
    }
}

/// One line of a follow's output.
struct FollowedChange: Sendable, Hashable, CustomStringConvertible {
    var kind: String
    var sequence: Int64
    var key: Int64
    var item: JSONValue?

    init(_ line: String) throws {
        let value = try JSONValue(parsing: line)
        kind = try #require(value["change"]?.stringValue, "\(line)")
        sequence = try #require(value["seq"]?.int64Value, "\(line)")
        let key = try #require(value["key"]?.objectValue, "\(line)")
        #expect(key.count == 1, "\(line)")
        self.key = try #require(key.first?.value.int64Value, "\(line)")
        item = value["item"]
    }

    var description: String { "\(sequence) \(kind) \(key)" }
}

extension [FollowedChange] {
    /// The keys of the changes of `kind`, in order.
    func keys(_ kind: String) -> [Int64] { filter { $0.kind == kind }.map(\.key) }

    /// Sequence numbers 1, 2, 3... with none repeated or skipped.
    var numberedInOrder: Bool { map(\.sequence) == (0..<count).map { Int64($0 + 1) } }
}

enum FollowSources {
    static let jsonwsBookmarks = """
        type: liferay-jsonws
        server: ${LIFERAY_SERVER}
        auth: { basic: { username: test@liferay.com, password: test } }
        rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
        count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
        pagination: { first-page-size: 20, page-size: 20 }
        """

    static let headlessArticles = """
        type: liferay-headless
        server: ${LIFERAY_SERVER}
        auth: { basic: { username: test@liferay.com, password: test } }
        path: /o/headless-delivery/v1.0/sites/20143/structured-contents
        query: { flatten: "true" }
        pagination: { first-page-size: 20, page-size: 20 }
        """

    static let restBookmarks = """
        type: rest
        server: ${LIFERAY_SERVER}
        url: /rest/bookmarks/offset
        records: data.records
        total: meta.total
        paginate: offset
        pagination: { first-page-size: 20, page-size: 20 }
        """
}

/// The list a follow's changes make when applied in order to an empty one, and every change
/// that was not one (an `added` key already there, an `updated` or `deleted` key not there,
/// an `updated` to the same content).
struct FollowReplay {
    var rows: [Int64: JSONValue] = [:]
    var problems: [String] = []

    init(_ changes: [FollowedChange]) {
        for change in changes {
            switch change.kind {
            case "added":
                if rows[change.key] != nil { problems.append("\(change): already there") }
                rows[change.key] = change.item
            case "updated":
                if rows[change.key] == nil { problems.append("\(change): not there") }
                if rows[change.key] == change.item { problems.append("\(change): the same content") }
                rows[change.key] = change.item
            case "deleted":
                if rows.removeValue(forKey: change.key) == nil { problems.append("\(change): not there") }
            default:
                problems.append("\(change): unknown kind")
            }
        }
    }
}
