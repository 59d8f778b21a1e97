import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `run --follow --events` through the binary against the sandbox: one `changed` event line
/// per change, valid against docs/schemas/events.schema.json, numbered on across a restart.
@Suite(.serialized) struct FollowEventsTests {
    @Test func eachChangeIsAChangedEventLine() async throws {
        try await withSandbox { sandbox in
            let workspace = try FollowWorkspace("follow-events", source: FollowSources.jsonwsBookmarks)
            var running = try workspace.start(sandbox, interval: "200ms", ["--events"])
            _ = try await workspace.waitForChanges(73)
            let report = try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 5, add: 1, modify: 1))
            let first = try await workspace.waitForChanges(75)
            running.send(SIGINT)
            #expect(await running.wait().0 == 130)

            // A restarted follow reads the last event line of its file and numbers on.
            try sandbox.server.applyChanges(SandboxChangeRequest(list: .bookmarks, seed: 6, modify: 1))
            running = try workspace.start(sandbox, interval: "200ms", ["--events"])
            let all = try await workspace.waitForChanges(76)
            running.send(SIGTERM)
            #expect(await running.wait().0 == 143)

            #expect(all.count == 76, "\(all.dropFirst(73))")
            #expect(all.numberedInOrder, "\(all.map(\.sequence))")
            #expect(Array(all.prefix(75)) == first)
            let changes = Array(first.dropFirst(73))
            #expect(changes.keys("updated") == report.modified)
            #expect(changes.keys("added") == report.added)
            let lines = try String(contentsOfFile: workspace.output, encoding: .utf8).split(separator: "\n").map(String.init)
            for line in lines {
                let value = try JSONValue(parsing: line)
                #expect(value["event"]?.stringValue == "changed", "\(line)")
                #expect(value["pipeline"]?.stringValue == "follow-events", "\(line)")
            }
            let problems = try await JSONSchemaValidation.problems(schema: SchemaCommandTests.eventsSchema, texts: lines)
            let invalid = zip(lines, problems).filter { !$0.1.isEmpty }
            #expect(invalid.isEmpty, "\(invalid.prefix(3))")
        }
    }
}
