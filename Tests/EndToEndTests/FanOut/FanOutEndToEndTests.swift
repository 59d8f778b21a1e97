import Foundation
import Sandbox
import ScreensBus
import Testing

/// Fan-out through the real binary against the sandbox portal: the sample pipelines, a
/// failing child three levels down, `plan` and `validate`.
@Suite("run: fan-out end to end")
struct FanOutEndToEndTests {
    static let contents = "pipelines/all-structured-contents.yaml"
    static let folderTree = "pipelines/bookmark-folder-tree.yaml"

    private func parentName(_ row: JSONValue, _ parent: String) -> String? {
        guard case .object(let object) = row, case .object(let parents)? = object["_parent"], case .object(let fields)? = parents[parent],
            case .string(let name)? = fields["name"]
        else { return nil }
        return name
    }

    @Test("all structured contents of all sites: every site's rows once, in site order, each naming its site")
    func allStructuredContents() async throws {
        try await withSandbox { harness in
            let result = try await harness.run(Self.contents)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let rows = try result.jsonLines()
            #expect(rows.count == 73 + 24)
            #expect(rows.map { parentName($0, "site") } == Array(repeating: "Guest", count: 73) + Array(repeating: "Intranet", count: 24))
            let ids = rows.map { row -> String in if case .object(let object) = row { object["id"]?.jsonString ?? "" } else { "" } }
            #expect(Set(ids).count == ids.count)
        }
    }

    @Test("three levels, site -> folder tree -> bookmark: 55 bookmarks, each naming its site and folder")
    func bookmarkFolderTree() async throws {
        try await withSandbox { harness in
            let result = try await harness.run(Self.folderTree)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let rows = try result.jsonLines()
            #expect(rows.count == 55)
            #expect(rows.prefix(40).allSatisfy { parentName($0, "site") == "Guest" && parentName($0, "folder") == "Liferay links" })
            #expect(rows.suffix(15).allSatisfy { parentName($0, "site") == "Intranet" && parentName($0, "folder") == "Internal tools" })
        }
    }

    @Test("a failing child three levels down stops the run with exit 1 naming its parents; earlier children's rows stay, no later row appears")
    func failingChild() async throws {
        var faults = FaultPlan(failStatus: 500)
        faults.failMatching = #""folderId":20210"#
        try await withSandbox(faults: faults) { harness in
            let result = try await harness.run(Self.folderTree, ["--set", "source.retry.attempts=1", "--events"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("child list of site #1 (id=20144) > folder #2 (groupId=20144, folderId=20210)"), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("HTTP 500"))
            let events = try result.jsonLines()
            let selected = events.filter { $0.jsonString.hasPrefix(#"{"event":"selected""#) }
            #expect(selected.count == 40)
            let error = try #require(events.first { $0.jsonString.hasPrefix(#"{"event":"error""#) })
            #expect(error.jsonString.contains(#""parent":{"site":{"row":1,"id":20144},"folder":{"row":2,"groupId":20144,"folderId":20210}}"#), "\(error.jsonString)")
            let finished = try #require(events.last)
            #expect(finished.jsonString.contains(#""succeeded":false"#))
            // Every response of a child names its parents.
            let responses = events.filter { $0.jsonString.hasPrefix(#"{"event":"response""#) }
            #expect(!responses.isEmpty && responses.allSatisfy { $0.jsonString.contains(#""parent":{"site":"#) })
        }
    }

    @Test("plan prints the fan-out tree; validate refuses a placeholder no for-each declares, at its position")
    func planAndValidate() async throws {
        let plan = try await CommandRunner.run(["plan", Self.folderTree])
        #expect(plan.status == 0, "stderr: \(plan.stderr)")
        #expect(plan.stdoutText.contains("for each folder (at most 10000 rows, 4 lists and requests in flight) of:"))
        #expect(plan.stdoutText.contains("tree: each row's folderId as parentFolderId"))
        #expect(plan.stdoutText.contains("site: liferay-headless /o/headless-admin-user/v1.0/my-user-account/sites"))

        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("bad.yaml")
        try Data(
            """
            source:
              type: liferay-headless
              server: sandbox
              path: /o/sites/${site.id}
              for-each: { as: folder, list: { type: liferay-headless, path: /o/folders } }
            """.utf8
        ).write(to: file)
        let validate = try await CommandRunner.run(["validate", file.path])
        #expect(validate.status == 2)
        let report = validate.stdoutText + validate.stderr
        #expect(report.contains("bad.yaml:4:") && report.contains("'${site.id}' names no parent row"), "\(report)")
    }

    @Test("a session refuses a fan-out source with a clear error")
    func sessionRefuses() async throws {
        let result = try await CommandRunner.shell(
            "printf '{\"op\":\"load\"}\\n' | \"$BINARY\" session \(Self.contents)", environment: ["BINARY": CommandRunner.binary])
        #expect(result.status != 0)
        #expect(result.stderr.contains("a session pages one list"), "stderr: \(result.stderr)")
    }
}

@Suite("run: fan-out interrupted")
struct FanOutInterruptTests {
    @Test("SIGINT while child lists are in flight ends the run with 130, nothing left hanging")
    func interrupted() async throws {
        // Every 4th request is held for 10 minutes (past the 15 s timeout, and so are its
        // retries), so the run cannot finish before the signal however slowly a loaded
        // machine lets this test send it; a run that ignored the signal would exit 1, not 130.
        try await withSandbox(faults: FaultPlan(latency: .milliseconds(300), stallEvery: 4, stallDuration: .seconds(600))) { harness in
            let command = try RunningCommand(
                ["run", FanOutEndToEndTests.folderTree, "--events"], environment: ["LIFERAY_SERVER": harness.server.baseURL])
            // The sites, the first folder lists and a bookmark list have been asked for, and
            // one request is held.
            try await waitUntil(timeout: .seconds(120)) { harness.server.requestCount >= 4 }
            #expect(harness.server.requestCount >= 4)
            command.send(SIGINT)
            let (status, stderr) = await command.wait()
            #expect(status == 130, "stderr: \(stderr)")
        }
    }
}
