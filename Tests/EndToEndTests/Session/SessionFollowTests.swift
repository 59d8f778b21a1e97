import Foundation
import Sandbox
import ScreensBus
import Testing

/// `{"op":"follow"}` in a session, through the binary against the sandbox portal: the
/// list's changes come as `changed` lines (the shape `run --follow --events` writes), each
/// once with its kind, the loaded pages follow them, and `unfollow` stops the lines.
@Suite("session: follow the list")
struct SessionFollowTests {
    /// Reads events until `count` `changed` events arrived (failing on any other event).
    private func changes(_ session: SessionProcess, count: Int) async throws -> [JSONValue] {
        var changed: [JSONValue] = []
        while changed.count < count {
            let event = try #require(try await session.nextEvent())
            #expect(event["event"] == "changed", "\(event)")
            changed.append(event)
        }
        return changed
    }

    @Test("changes made on the portal between polls come once each with their kind; unfollow stops them")
    func followAndUnfollow() async throws {
        try await withSandbox { harness in
            let session = try SessionProcess(
                ["pipelines/bookmarks.yaml", "--policy", "remote-only"], environment: ["LIFERAY_SERVER": harness.server.baseURL])
            #expect(try await session.nextEvent()?["event"] == "started")
            _ = try await session.ask(#"{"op":"load"}"#)
            _ = try await session.ask(#"{"op":"next"}"#)

            let following = try await session.ask(#"{"op":"follow","every":"200ms","id":"f"}"#)
            #expect(following.names == ["following"] && following.first?["every"] == "200ms" && following.first?["id"] == "f")
            // The first poll of a list never followed is its first load: every row `added`.
            let baseline = try await changes(session, count: 73)
            #expect(baseline.allSatisfy { $0["change"] == "added" && $0["id"] == "f" && $0["pipeline"] == "bookmarks" })
            #expect(baseline.compactMap { $0["seq"]?.int64Value } == Array(1...73))

            let report = try harness.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 3, add: 1, modify: 1, delete: 1))
            let found = try await changes(session, count: 3)
            #expect(found.compactMap { $0["change"]?.stringValue } == ["updated", "added", "deleted"], "\(found)")
            #expect(found.compactMap { $0["key"]?["entryId"]?.int64Value } == report.modified + report.added + report.deleted)
            #expect(found.compactMap { $0["seq"]?.int64Value } == [74, 75, 76])
            #expect(found[0]["item"]?["name"]?.stringValue?.hasSuffix("(edited)") == true)

            // The loaded pages follow the list: the deleted row is gone, the count is the portal's.
            let page0 = try await session.ask(#"{"op":"load","id":"l"}"#)
            let ids = page0.compactMap { $0["item"]?["entryId"]?.int64Value }
            #expect(!ids.contains(report.deleted[0]))
            #expect(page0.first { $0["event"] == "response" }?["rowCount"] == 73)

            let stopped = try await session.ask(#"{"op":"unfollow","id":"u"}"#)
            #expect(stopped.names == ["following"] && stopped.first?["every"] == .null && stopped.first?["id"] == "u")
            _ = try harness.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 4, add: 2))
            try await Task.sleep(for: .seconds(1))
            // Nothing came meanwhile: the next line is the answer to this command.
            let select = try await session.ask(#"{"op":"select","row":0,"id":"s"}"#)
            #expect(select.names == ["selected"], "\(select)")
            let again = try await session.ask(#"{"op":"unfollow"}"#)
            #expect(again.names == ["error"] && again.first?["message"]?.stringValue?.contains("not followed") == true)
            let bad = try await session.ask(#"{"op":"follow","every":"1ms"}"#)
            #expect(bad.names == ["error"] && bad.first?["message"]?.stringValue?.contains("from 100ms to 24h") == true)
            session.closeInput()
            let end = try await session.finish()
            #expect(end.status == 0, "\(end.stderr)")
            #expect(end.rest.names == ["finished"])
            try await session.expectSchemaValid()
        }
    }
}
