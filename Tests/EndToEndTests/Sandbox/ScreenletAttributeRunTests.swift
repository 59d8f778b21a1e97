import Foundation
import Sandbox
import ScreensBus
import Testing

/// The seed's Screenlet attributes through the real binary against the sandbox portal: the
/// server context's site for `groupId: 0`, validateData before any request, asset classes by
/// name (looked up once per server), and an Asset Publisher's saved selection.
@Suite("run: Liferay Screens attributes")
struct ScreenletAttributeRunTests {
    static let auth = "  auth: { basic: { username: test@liferay.com, password: test } }"

    /// Writes `text` as a pipeline file and returns its path.
    static func pipeline(_ name: String, _ text: String) throws -> String {
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("\(name).yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    @Test("group 0 is the server context's site, as LiferayServerContext.groupId")
    func groupZeroIsTheServerContextsSite() async throws {
        let file = try Self.pipeline(
            "group-zero",
            """
            source:
              type: liferay-jsonws
              server:
                url: ${LIFERAY_SERVER}
                group-id: 20143
            \(Self.auth)
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 0, folderId: 0 } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count }
            convert: { model: bookmark }
            """)
        try await withSandbox { sandbox in
            let result = try await sandbox.run(file)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let rows = try result.jsonLines()
            #expect(rows.count == 73)
            #expect(rows.allSatisfy { $0["groupId"] == 20143 })
        }
    }

    @Test("without a server context, group 0 is a validate error at its position and run sends nothing")
    func groupZeroWithoutContext() async throws {
        let file = try Self.pipeline(
            "group-zero-no-context",
            """
            source:
              type: liferay-jsonws
              server: ${LIFERAY_SERVER}
            \(Self.auth)
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 0, folderId: 0 } }
            """)
        try await withSandbox { sandbox in
            let validate = try await CommandRunner.run(["validate", file], environment: ["LIFERAY_SERVER": sandbox.server.baseURL])
            #expect(validate.status == 2)
            #expect(validate.stderr.contains("\(file):5:69: Bookmark List Screenlet: /bookmarks.bookmarksentry/get-entries needs a site, and 'groupId' is 0"))
            let run = try await sandbox.run(file)
            #expect(run.status == 2)
            #expect(run.stdout.isEmpty)
            #expect(sandbox.server.requestCount == 0)
        }
    }

    @Test("each screenlet's validateData refuses its missing parameter before any request", arguments: [
        ("/bookmarks.bookmarksentry/get-entries", "{ groupId: 20143 }", "needs 'folderId'"),
        ("/journal.journalarticle/get-articles", "{ groupId: 20143 }", "needs 'folderId'"),
        ("/screens.screensddlrecord/get-ddl-records", "{ obc: null }", "needs 'ddlRecordSetId'"),
        ("/screens.screensassetentry/get-asset-entries", "{ +assetEntryQuery: X, assetEntryQuery.groupIds: 20143, locale: en_US }", "(undefined-classname)"),
    ])
    func validateData(service: String, params: String, message: String) async throws {
        let file = try Self.pipeline(
            "validate-data",
            """
            source:
              type: liferay-jsonws
              server: ${LIFERAY_SERVER}
            \(Self.auth)
              rows: { service: \(service), params: \(params) }
            """)
        try await withSandbox { sandbox in
            let run = try await sandbox.run(file)
            #expect(run.status == 2)
            #expect(run.stderr.contains("\(file):5:"))
            #expect(run.stderr.contains(message), "stderr: \(run.stderr)")
            #expect(sandbox.server.requestCount == 0)
        }
    }

    @Test("asset classes by name: looked up once per server through the class-name service, then read from the cache")
    func assetClassesAreLookedUpOnce() async throws {
        let cache = try CommandRunner.temporaryDirectory().appendingPathComponent("cache")
        try await withSandbox { sandbox in
            let environment = ["SCREENS_PIPE_CACHE_DIR": cache.path]
            let first = try await sandbox.run("pipelines/assets.yaml", ["--events"], environment: environment)
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let events = try first.jsonLines()
            let items = events.filter { $0["event"] == "selected" }.compactMap { $0["item"] }
            // The Guest site's 48 entries of the four classes, pages of 20: 3 page requests and
            // one class-name lookup.
            #expect(items.count == 48)
            #expect(Set(items.compactMap { $0["classNameId"]?.int64Value }) == [20109, 20110, 20111, 20112])
            #expect(events.first { $0["event"] == "response" }?["rowCount"] == 48)
            #expect(sandbox.server.requestCount == 4)

            let second = try await sandbox.run("pipelines/assets.yaml", ["--refresh"], environment: environment)
            #expect(second.status == 0, "stderr: \(second.stderr)")
            #expect(try second.jsonLines().count == 48)
            // The pages again (--refresh), and no lookup.
            #expect(sandbox.server.requestCount == 7)

            // cache-only asks nothing: the stored ids and pages suffice, and an empty cache says what is missing.
            let offline = try await sandbox.run("pipelines/assets.yaml", ["--policy", "cache-only"], environment: environment)
            #expect(offline.status == 0, "stderr: \(offline.stderr)")
            #expect(try offline.jsonLines().count == 48)
            #expect(sandbox.server.requestCount == 7)
            let empty = try CommandRunner.temporaryDirectory().appendingPathComponent("empty")
            let missing = try await sandbox.run(
                "pipelines/assets.yaml", ["--policy", "cache-only"], environment: ["SCREENS_PIPE_CACHE_DIR": empty.path])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("com.liferay.blogs.model.BlogsEntry are not in the cache (policy cache-only)"))
            #expect(sandbox.server.requestCount == 7)
        }
    }

    @Test("a class the portal does not know is a configuration error naming it")
    func unknownClassName() async throws {
        let file = try Self.pipeline(
            "unknown-class",
            """
            source:
              type: liferay-jsonws
              server: ${LIFERAY_SERVER}
            \(Self.auth)
              classes: [WikiPage]
              rows: { service: /screens.screensassetentry/get-asset-entries, params: { +assetEntryQuery: X, assetEntryQuery.groupIds: 20143, locale: en_US } }
            """)
        try await withSandbox { sandbox in
            let run = try await sandbox.run(file)
            // A configuration mistake found by asking the portal: exit 2, as for the file's own.
            #expect(run.status == 2)
            #expect(run.stderr.contains("the portal knows no class com.liferay.wiki.model.WikiPage"), "stderr: \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    @Test("a saved Asset Publisher selection: one call, the whole selection in its order, then the end")
    func portletItemName() async throws {
        try await withSandbox { sandbox in
            let run = try await sandbox.run("pipelines/asset-publisher.yaml", ["--events"])
            #expect(run.status == 0, "stderr: \(run.stderr)")
            let events = try run.jsonLines()
            let items = events.filter { $0["event"] == "selected" }.compactMap { $0["item"] }
            #expect(items.compactMap { $0["entryId"]?.int64Value } == [50002, 50001, 50004])
            #expect(events.filter { $0["event"] == "response" }.count == 1)
            #expect(events.last { $0["event"] == "finished" }?["end"] == "row-count")
            #expect(sandbox.server.requestCount == 1)

            // A dynamic selection is cut at max (first-page-size).
            let dynamic = try await sandbox.run(
                "pipelines/asset-publisher.yaml",
                ["--set", "source.portlet-item-name=Latest web content", "--set", "source.pagination.first-page-size=5"])
            #expect(dynamic.status == 0, "stderr: \(dynamic.stderr)")
            let rows = try dynamic.jsonLines()
            #expect(rows.count == 5)
            #expect(rows.allSatisfy { $0["classNameId"] == 20109 })

            let missing = try await sandbox.run("pipelines/asset-publisher.yaml", ["--set", "source.portlet-item-name=Nothing saved"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("No portlet items associated with portlet item name Nothing saved"), "stderr: \(missing.stderr)")
        }
    }
}
