import Foundation
import ScreensBus
import Testing

/// Hostile parent values through the real binary: whatever a parent row holds, it reaches
/// the child's request as data in its one destination (a path segment, a query value, a
/// header line) or stops the run naming the row; it never adds a header, moves the path or
/// is read as another placeholder.
@Suite("run: fan-out parent values as data")
struct FanOutInterpolationTests {
    private static func pipeline(server: RecordingServer, parents: URL) -> String {
        """
        name: hostile-parents
        source:
          type: rest
          server: \(server.origin)
          url: /sites/${site.id}/items
          records: items
          paginate: { style: next-link, next-path: next }
          query: { q: "${site.q}" }
          headers: { X-Site: "${site.name}" }
          retry: { attempts: 1 }
          for-each:
            as: site
            concurrency: 1
            list: { type: file, path: \(parents.path) }
        cache:
          policy: remote-first
        """
    }

    private static func run(parents: [JSONValue]) async throws -> (CommandResult, [RecordingServer.Recorded]) {
        let directory = try CommandRunner.temporaryDirectory()
        let parentsFile = directory.appendingPathComponent("parents.json")
        try Data(JSONValue.array(parents).jsonBytes).write(to: parentsFile)
        let server = try RecordingServer(host: "127.0.0.1") { _ in .init(body: #"{"items":[{"id":1}],"next":null}"#) }
        defer { server.stop() }
        let file = directory.appendingPathComponent("hostile.yaml")
        try pipeline(server: server, parents: parentsFile).write(to: file, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", file.path], environment: ["SCREENS_PIPE_CACHE_DIR": directory.appendingPathComponent("cache").path])
        return (result, server.requests)
    }

    @Test("CRLF, lone CR, LF, NUL, ESC and DEL in a header placeholder stop the run naming the parent row; nothing is sent for it")
    func headerInjection() async throws {
        for hostile in ["a\r\nX-Injected: 1", "a\r\nHost: evil.example\r\n\r\nGET /smuggled HTTP/1.1", "a\rb", "a\nb", "a\u{1B}[2Jb", "a\u{7F}b", "a\u{85}b"] {
            let (result, requests) = try await Self.run(parents: [
                ["id": "s1", "name": "plain", "q": "x"],
                ["id": "s2", "name": .string(hostile), "q": "y"],
            ])
            #expect(result.status == 1, "\(hostile.debugDescription): stderr \(result.stderr)")
            #expect(result.stderr.contains("child list of site #1"), "\(hostile.debugDescription): \(result.stderr)")
            #expect(result.stderr.contains("the value for ${site.name} holds the control character U+"), "\(hostile.debugDescription): \(result.stderr)")
            #expect(requests.count == 1, "\(hostile.debugDescription): \(requests.map(\.head))")
            #expect(!requests.contains { $0.head.contains("Injected") || $0.head.contains("evil.example") || $0.head.contains("smuggled") })
            // The rows of the parent before it were delivered, once.
            #expect(result.stdoutLines.count == 1)
        }
    }

    @Test("path and query values stay data: '/', '..', '?', '#', '&', '=' and spaces are percent-encoded, one request per parent")
    func pathAndQueryAsData() async throws {
        let (result, requests) = try await Self.run(parents: [
            ["id": "../../admin?x=1#frag", "name": "n1", "q": "1&admin=true#x y"],
            ["id": "a\\b/c%2F", "name": "n2", "q": "+;/?"],
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = requests.map { $0.head.split(separator: "\r\n").first.map(String.init) ?? "" }
        #expect(lines == [
            "GET /sites/..%2F..%2Fadmin%3Fx%3D1%23frag/items?q=1%26admin%3Dtrue%23x%20y HTTP/1.1",
            "GET /sites/a%5Cb%2Fc%252F/items?q=%2B%3B%2F%3F HTTP/1.1",
        ])
        #expect(result.stdoutLines.count == 2)
    }

    @Test("a parent value holding '${', '$$' or another placeholder's text is sent as that text, never expanded again")
    func placeholderTextInValues() async throws {
        let (result, requests) = try await Self.run(parents: [
            ["id": "s${site.q}", "name": "${site.id} $${HOME} ${HOME}", "q": "${"],
            ["id": "s2", "name": "ok", "q": "${site.name}"],
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(requests.count == 2)
        let first = try #require(requests.first).head
        #expect(first.hasPrefix("GET /sites/s%24%7Bsite.q%7D/items?q=%24%7B HTTP/1.1"), "\(first)")
        #expect(first.hasSuffix("\r\nX-Site: ${site.id} $${HOME} ${HOME}"), "\(first)")
        let second = try #require(requests.last).head
        #expect(second.hasPrefix("GET /sites/s2/items?q=%24%7Bsite.name%7D HTTP/1.1"), "\(second)")
        #expect(result.stdoutLines.count == 2)
    }
}
