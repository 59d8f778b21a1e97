import Foundation
import Sandbox
import ScreensBus
import Testing

/// Rows the portal would refuse are refused before any request, each with its line number,
/// in the rejects file; hostile lines are rejects too, in bounded memory.
@Suite("write: validation first, rejects file, hostile input, dry run")
struct WriteRejectTests {
    @Test("bad rows are rejected with line numbers, the good ones written, exit 1 naming how many")
    func rejectsFile() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let deep = String(repeating: "[", count: 100_000)
        let huge = #"{"url":"https://example.com/huge","name":""# + String(repeating: "x", count: 2 << 20) + #""}"#
        var input = [UInt8]()
        let lines: [[UInt8]] = [
            Array(#"{"name":"good 1","url":"https://example.com/good/1"}"#.utf8),
            Array(#"{"name":"no url"}"#.utf8),
            Array(#"{"name":"bad url","url":"example.com/no-scheme"}"#.utf8),
            Array(#"{"name":"\#(String(repeating: "n", count: 256))","url":"https://example.com/long-name"}"#.utf8),
            Array("not json".utf8),
            Array(#"["an","array"]"#.utf8),
            Array(deep.utf8),
            Array(huge.utf8),
            [0x7B, 0x22, 0x75, 0x72, 0x6C, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D],  // {"url":"\xFF\xFE"}
            Array(#"{"name":"good 2","url":"https://example.com/good/2"}"#.utf8),
            Array(#"{"name":"again","url":"https://example.com/good/1"}"#.utf8),
        ]
        for line in lines { input += line + [UInt8(ascii: "\n")] }
        let inputPath = workspace.path("hostile.jsonl")
        try Data(input).write(to: URL(fileURLWithPath: inputPath))
        let rejectsPath = workspace.path("rejects.jsonl")

        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL)
            let result = try await workspace.write(pipeline, ["--input", inputPath, "--rejects", rejectsPath])
            #expect(result.status == 1)
            #expect(result.stderr.contains("9 rows rejected; see \(rejectsPath)"), "stderr: \(result.stderr)")
            let rejects = try String(contentsOfFile: rejectsPath, encoding: .utf8).split(separator: "\n").map { try JSONValue(parsing: Array($0.utf8)) }
            #expect(rejects.map { $0["line"]?.int64Value } == [2, 3, 4, 5, 6, 7, 8, 9, 11])
            let reasons = rejects.map { $0["reason"]?.stringValue ?? "" }
            #expect(reasons[0].contains("missing 'url'"))
            #expect(reasons[1].contains("EntryURLException"))
            #expect(reasons[2].contains("longer than the portal's 255"))
            #expect(reasons[3].contains("not JSON"))
            #expect(reasons[4].contains("found array"))
            #expect(reasons[5].contains("not JSON"))
            #expect(reasons[6].contains("longer than"))
            #expect(reasons[7].contains("not JSON"))
            #expect(reasons[8].contains("as line 1"))
            #expect(rejects[0]["input"]?.stringValue == #"{"name":"no url"}"#)
            #expect(rejects[6]["truncated"] == .bool(true))

            let entries = try await workspace.readBack(server: harness.server.baseURL)
            #expect(entries.map { $0["name"]?.stringValue } == ["good 1", "good 2"])
        }
    }

    @Test("without folder-id each row names its folder; one the portal lacks is the portal's NoSuchFolderException")
    func portalRefusal() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL, batchSize: 10, folderId: nil)
            let input = try workspace.save(
                "folders.jsonl",
                [
                    #"{"name":"root","url":"https://example.com/f/0","folderId":0}"#,
                    #"{"name":"missing folder","url":"https://example.com/f/404","folderId":987654}"#,
                    #"{"name":"text folder","url":"https://example.com/f/t","folderId":"abc"}"#,
                    #"{"name":"empty folder","url":"https://example.com/f/20201","folderId":"20201"}"#,
                ].joined(separator: "\n"))
            let result = try await workspace.write(pipeline, ["--input", input])
            #expect(result.status == 1)
            let outcomes = Dictionary(uniqueKeysWithValues: try result.jsonLines().map { ($0["line"]?.int64Value ?? 0, $0) })
            #expect(outcomes[1]?["outcome"] == "created")
            #expect(outcomes[2]?["outcome"] == "rejected")
            #expect(outcomes[2]?["reason"]?.stringValue?.contains("com.liferay.bookmarks.exception.NoSuchFolderException") == true)
            #expect(outcomes[3]?["reason"]?.stringValue?.contains("'folderId' must be a folder id") == true)
            #expect(outcomes[4]?["outcome"] == "created")
            #expect(try await workspace.readBack(server: harness.server.baseURL, folderId: 0).urlCounts["https://example.com/f/0"] == 1)
            #expect(try await workspace.readBack(server: harness.server.baseURL).map { $0["name"]?.stringValue } == ["empty folder"])
        }
    }

    @Test("--dry-run shows the batch request with the password redacted and sends nothing")
    func dryRun() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        try await withSandbox { harness in
            let pipeline = try workspace.writePipeline(server: harness.server.baseURL, batchSize: 2)
            let result = try await workspace.write(pipeline, ["--input", try workspace.rows(3), "--dry-run"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(harness.server.requestCount == 0)
            let requests = try result.jsonLines().filter { $0["event"] == "custom" && $0["name"] == "request" }
            #expect(requests.count == 2)
            #expect(requests[0]["payload"]?["body"]?[0]?["/bookmarks.bookmarksentry/add-entry"]?["url"] == "https://example.com/row/1")
            #expect(requests[0]["payload"]?["headers"]?["Authorization"] == "<redacted>")
            let basic = Data("test@liferay.com:test".utf8).base64EncodedString()
            #expect(!result.stdoutText.contains(basic))
        }
    }

    @Test("the sandbox answers add-entry with Liferay's EntryURLException body for a URL java.net.URL refuses")
    func sandboxEntryURLException() async throws {
        try await withSandbox { harness in
            let result = try await CommandRunner.shell(
                #"curl -s -u test@liferay.com:test "$URL/api/jsonws/invoke" -d '{"/bookmarks.bookmarksentry/add-entry":{"groupId":20143,"folderId":0,"name":"x","url":"www.example.com","description":""}}'"#,
                environment: ["URL": harness.server.baseURL])
            let body = try JSONValue(parsing: Array(result.stdout))
            #expect(body["error"]?["type"] == "com.liferay.bookmarks.exception.EntryURLException")
            #expect(body["throwable"]?.stringValue?.hasPrefix("com.liferay.bookmarks.exception.EntryURLException") == true)
        }
    }
}
