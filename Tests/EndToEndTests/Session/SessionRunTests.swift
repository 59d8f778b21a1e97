import Foundation
import ScreensBus
import Testing

/// `screens-pipe session` driven through stdin and stdout against the sandbox portal, the
/// way a terminal UI or an editor plugin drives it.
@Suite("session: JSON-lines commands end to end")
struct SessionRunTests {
    /// 73 bookmarks in pages of 10: pages 0 to 7, the last one with 3 rows.
    static let tenPerPage = [
        "pipelines/bookmarks.yaml", "--set", "source.pagination.first-page-size=10", "--set", "source.pagination.page-size=10",
    ]

    private func start(_ harness: SandboxHarness, _ arguments: [String] = []) throws -> SessionProcess {
        try SessionProcess(Self.tenPerPage + ["--policy", "remote-only"] + arguments, environment: ["LIFERAY_SERVER": harness.server.baseURL])
    }

    /// Checks a page's answer: `loading`, `response`, then its rows, all tagged `id`.
    private func expectPage(
        _ events: [JSONValue], page: Int, rows: Int, id: JSONValue?, last: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(events.names == ["loading", "response"] + Array(repeating: "row", count: rows), sourceLocation: sourceLocation)
        #expect(events.allSatisfy { $0["id"] == id }, sourceLocation: sourceLocation)
        #expect(events.allSatisfy { $0["page"] == .int(Int64(page)) }, sourceLocation: sourceLocation)
        guard events.count > 1 else { return }
        let response = events[1]
        #expect(response["startRow"] == .int(Int64(page == 0 ? 0 : 10 * page)), sourceLocation: sourceLocation)
        #expect(response["rows"] == .int(Int64(rows)), sourceLocation: sourceLocation)
        #expect(response["following"] == .int(Int64(rows)), sourceLocation: sourceLocation)
        #expect(response["origin"] == "remote", sourceLocation: sourceLocation)
        #expect((response["last"] == true) == last, sourceLocation: sourceLocation)
        let rowIndexes = events.dropFirst(2).compactMap { $0["row"]?.int64Value }
        let first = Int64(page * 10)
        #expect(rowIndexes == Array(first..<(first + Int64(rows))), sourceLocation: sourceLocation)
    }

    @Test("load, next, page, select, bad commands, refresh and close: every event, and one request per page asked")
    func transcript() async throws {
        try await withSandbox { harness in
            let session = try start(harness)
            let started = try #require(try await session.nextEvent())
            #expect(started["event"] == "started")
            #expect(harness.server.requestCount == 0)

            let load = try await session.ask(#"{"op":"load","id":"L"}"#)
            expectPage(load, page: 0, rows: 10, id: "L")
            #expect(load[1]["rowCount"] == 73)
            #expect(harness.server.requestCount == 1)

            let next = try await session.ask(#"{"op":"next","id":2}"#)
            expectPage(next, page: 1, rows: 10, id: 2)
            #expect(harness.server.requestCount == 2)

            let jump = try await session.ask(#"{"op":"page","page":7,"id":"end"}"#)
            expectPage(jump, page: 7, rows: 3, id: "end", last: true)
            #expect(harness.server.requestCount == 3)

            // The row a user taps: exactly the row the page showed.
            let shownRow = try #require(next.first { $0["row"] == 12 })
            let select = try await session.ask(#"{"op":"select","row":12,"id":"tap"}"#)
            #expect(select.names == ["selected"])
            #expect(select[0]["item"] == shownRow["item"])
            #expect(select[0]["page"] == 1)
            #expect(select[0]["id"] == "tap")

            // Bad commands: each an error naming it, and the session goes on.
            let malformed = try await session.ask(#"{"op":"load""#)
            #expect(malformed.names == ["error"])
            #expect(malformed[0]["kind"] == "command")
            #expect(try #require(malformed[0]["message"]?.stringValue).contains("not JSON"))
            let unknown = try await session.ask(#"{"op":"scroll","id":"u"}"#)
            #expect(unknown[0]["id"] == "u")
            #expect(try #require(unknown[0]["message"]?.stringValue).contains("unknown op 'scroll'"))
            let pastEnd = try await session.ask(#"{"op":"page","page":8,"id":"far"}"#)
            #expect(pastEnd.names == ["error"])
            #expect(try #require(pastEnd[0]["message"]?.stringValue).contains("past the end of the list, which has 8 pages"))
            let unseen = try await session.ask(#"{"op":"select","row":40}"#)
            #expect(try #require(unseen[0]["message"]?.stringValue).contains("not on a page shown"))
            #expect(harness.server.requestCount == 3)

            // Pull to refresh: page 0 again, from the server, and `next` starts over at page 1.
            let refresh = try await session.ask(#"{"op":"refresh","id":"R"}"#)
            expectPage(refresh, page: 0, rows: 10, id: "R")
            #expect(harness.server.requestCount == 4)
            let afterRefresh = try await session.ask(#"{"op":"next","id":"R2"}"#)
            expectPage(afterRefresh, page: 1, rows: 10, id: "R2")
            #expect(harness.server.requestCount == 5)

            let close = try await session.ask(#"{"op":"close","id":"bye"}"#)
            #expect(close.names == ["finished"])
            #expect(close[0]["id"] == "bye")
            #expect(close[0]["pages"] == 5)
            #expect(close[0]["rows"] == 43)
            #expect(close[0]["selected"] == 1)
            #expect(close[0]["errors"] == 4)
            // Refused commands are errors, but every row asked for was delivered.
            #expect(close[0]["succeeded"] == true)
            let end = try await session.finish()
            #expect(end.status == 0, "stderr: \(end.stderr)")
            #expect(end.rest.isEmpty)
            #expect(end.stderr.isEmpty)
            #expect(harness.server.requestCount == 5)
            try await expectSchemas(session)
        }
    }

    /// Every event of the transcript matches the events schema; every command sent but the
    /// two malformed ones matches the commands schema (checked by Python's jsonschema).
    private func expectSchemas(_ session: SessionProcess, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(session.transcript.count > 20, sourceLocation: sourceLocation)
        // The last text of each list is one the schema forbids: the check can fail.
        let eventTexts = session.transcript.map(\.jsonString) + [#"{"event":"row","pipeline":"p","page":0}"#]
        let events = try await JSONSchemaValidation.problems(schema: "docs/schemas/session-events.schema.json", texts: eventTexts)
        #expect(events.count == eventTexts.count, sourceLocation: sourceLocation)
        for (text, problems) in zip(eventTexts.dropLast(), events) {
            #expect(problems.isEmpty, "\(text): \(problems)", sourceLocation: sourceLocation)
        }
        #expect(events.last?.isEmpty == false, sourceLocation: sourceLocation)
        let malformed: Set<String> = [#"{"op":"load""#, #"{"op":"scroll","id":"u"}"#]
        let commandTexts = session.sent + [#"{"op":"page","row":1}"#]
        let commands = try await JSONSchemaValidation.problems(schema: "docs/schemas/session-commands.schema.json", texts: commandTexts)
        #expect(commands.count == commandTexts.count, sourceLocation: sourceLocation)
        for (line, problems) in zip(session.sent, commands) {
            #expect(problems.isEmpty == !malformed.contains(line), "\(line): \(problems)", sourceLocation: sourceLocation)
        }
        #expect(commands.last?.isEmpty == false, sourceLocation: sourceLocation)
    }

    @Test("prefetch fetches the window ahead of each page asked for and nothing past it")
    func prefetchWindow() async throws {
        try await withSandbox { harness in
            let session = try start(harness, ["--prefetch", "2"])
            _ = try await session.nextEvent()
            expectPage(try await session.ask(#"{"op":"load","id":0}"#), page: 0, rows: 10, id: 0)
            // Page 0, then pages 1 and 2 ahead of it.
            try await waitUntil { harness.server.requestCount >= 3 }
            // A command answered after the window settled: still no page 3.
            _ = try await session.ask(#"{"op":"select","row":0}"#)
            #expect(harness.server.requestCount == 3)
            // Page 1 is shown from memory; page 3 is now in the window.
            expectPage(try await session.ask(#"{"op":"next","id":1}"#), page: 1, rows: 10, id: 1)
            try await waitUntil { harness.server.requestCount >= 4 }
            _ = try await session.ask(#"{"op":"select","row":1}"#)
            #expect(harness.server.requestCount == 4)
            session.closeInput()
            let end = try await session.finish()
            #expect(end.status == 0, "stderr: \(end.stderr)")
            #expect(end.rest.names == ["finished"])
            #expect(harness.server.requestCount == 4)
        }
    }

    @Test("stdin closed early: the pages asked for are answered, then finished, exit 0")
    func stdinClosedEarly() async throws {
        try await withSandbox { harness in
            let session = try start(harness)
            session.send(#"{"op":"load","id":"only"}"#)
            session.closeInput()
            let end = try await session.finish()
            #expect(end.status == 0, "stderr: \(end.stderr)")
            let events = session.transcript
            #expect(events.names == ["started", "loading", "response"] + Array(repeating: "row", count: 10) + ["finished"])
            #expect(events.last?["id"] == nil)
            #expect(events.last?["pages"] == 1)
            #expect(harness.server.requestCount == 1)
        }
    }

    @Test("no commands at all: started, finished, exit 0, no request")
    func emptyInput() async throws {
        try await withSandbox { harness in
            let session = try start(harness)
            session.closeInput()
            let end = try await session.finish()
            #expect(end.status == 0, "stderr: \(end.stderr)")
            #expect(session.transcript.names == ["started", "finished"])
            #expect(harness.server.requestCount == 0)
        }
    }

    @Test("hostile input: a huge line, binary bytes and deep nesting are errors, and the session goes on")
    func hostileInput() async throws {
        try await withSandbox { harness in
            let session = try start(harness)
            _ = try await session.nextEvent()
            session.sendRaw(Data(repeating: UInt8(ascii: "x"), count: 1 << 20) + Data("\n".utf8))
            let huge = try await session.answer()
            #expect(huge.names == ["error"])
            #expect(try #require(huge[0]["message"]?.stringValue).contains("longer than the limit of 65536"))
            session.sendRaw(Data([0xFF, 0xFE, 0x00, 0x01, 0x0A]))
            #expect(try await session.answer().names == ["error"])
            session.send(String(repeating: "[", count: 60_000))
            #expect(try await session.answer().names == ["error"])
            expectPage(try await session.ask(#"{"op":"load","id":"ok"}"#), page: 0, rows: 10, id: "ok")
            session.closeInput()
            let end = try await session.finish()
            #expect(end.status == 0, "stderr: \(end.stderr)")
            #expect(end.rest.last?["errors"] == 3)
        }
    }

    @Test("SIGTERM ends the session with finished (reason interrupted) and exit 143")
    func terminated() async throws {
        try await withSandbox { harness in
            let session = try start(harness)
            _ = try await session.nextEvent()
            expectPage(try await session.ask(#"{"op":"load","id":"L"}"#), page: 0, rows: 10, id: "L")
            kill(session.process.processIdentifier, SIGTERM)
            let end = try await session.finish()
            #expect(end.status == 143, "stderr: \(end.stderr)")
            #expect(end.rest.names == ["finished"])
            #expect(end.rest.last?["reason"] == "interrupted")
            #expect(end.rest.last?["pages"] == 1)
        }
    }

    @Test("usage errors exit 2: the pipeline from stdin, a prefetch out of range, a missing file")
    func usageErrors() async throws {
        let fromStdin = try await CommandRunner.run(["session", "-"])
        #expect(fromStdin.status == 2)
        #expect(fromStdin.stderr.contains("commands from stdin"))
        let prefetch = try await CommandRunner.run(["session", "pipelines/bookmarks.yaml", "--prefetch", "17"])
        #expect(prefetch.status == 2)
        #expect(prefetch.stderr.contains("--prefetch must be from 0 to 16"))
        let missing = try await CommandRunner.run(["session", "no-such-pipeline.yaml"])
        #expect(missing.status == 2)
        #expect(missing.stdout.isEmpty)
    }

    @Test("CRLF line ends, blank lines and a last command without a newline are read as commands")
    func lineEnds() async throws {
        try await withSandbox { harness in
            let session = try start(harness)
            session.sendRaw(Data("\r\n   \n{\"op\":\"load\",\"id\":\"crlf\"}\r\n".utf8))
            _ = try await session.nextEvent()
            expectPage(try await session.answer(), page: 0, rows: 10, id: "crlf")
            session.sendRaw(Data(#"{"op":"close","id":"eof"}"#.utf8))
            session.closeInput()
            let end = try await session.finish()
            #expect(end.status == 0, "stderr: \(end.stderr)")
            #expect(end.rest.names == ["finished"])
            #expect(end.rest.last?["id"] == "eof")
            #expect(end.rest.last?["errors"] == 0)
        }
    }

    @Test("a failing page is an error event naming it, and the next command still works")
    func failingServer() async throws {
        try await withSandbox { harness in
            let session = try start(harness, ["--set", "source.retry.attempts=1"])
            _ = try await session.nextEvent()
            expectPage(try await session.ask(#"{"op":"load"}"#), page: 0, rows: 10, id: nil)
            try await harness.stopRefusing()
            let failed = try await session.ask(#"{"op":"next","id":"offline"}"#)
            #expect(failed.names == ["loading", "error"])
            #expect(failed[1]["page"] == 1)
            #expect(failed[1]["id"] == "offline")
            session.closeInput()
            let end = try await session.finish()
            #expect(end.status == 0, "stderr: \(end.stderr)")
            #expect(!end.stderr.contains("test@liferay.com:test"))
        }
    }
}

/// Cache policies in a session: per page, exactly as `run` applies them.
@Suite("session: cache policies end to end")
struct SessionCacheTests {
    private func start(_ harness: SandboxHarness, cache: URL, policy: String) throws -> SessionProcess {
        try SessionProcess(
            SessionRunTests.tenPerPage + ["--policy", policy],
            environment: ["LIFERAY_SERVER": harness.server.baseURL, "SCREENS_PIPE_CACHE_DIR": cache.path])
    }

    @Test("cache-and-remote shows the cached page first (provisional), then the fresh one; cache-only asks nothing")
    func cachedPages() async throws {
        let cache = try CommandRunner.temporaryDirectory()
        try await withSandbox { harness in
            let filling = try start(harness, cache: cache, policy: "remote-first")
            _ = try await filling.nextEvent()
            let remote = try await filling.ask(#"{"op":"load","id":"fill"}"#)
            _ = try await filling.ask(#"{"op":"next","id":"fill"}"#)
            filling.closeInput()
            #expect(try await filling.finish().status == 0)
            #expect(harness.server.requestCount == 2)

            let both = try start(harness, cache: cache, policy: "cache-and-remote")
            _ = try await both.nextEvent()
            let load = try await both.ask(#"{"op":"load","id":"cr"}"#)
            #expect(load.names == ["loading", "response", "response"] + Array(repeating: "row", count: 10))
            #expect(load[1]["origin"] == "cache")
            #expect(load[1]["provisional"] == true)
            #expect(load[2]["origin"] == "remote")
            #expect(load[2]["provisional"] == nil)
            #expect(load.filter { $0["event"] == "row" } == remote.filter { $0["event"] == "row" }.map { row in
                var tagged = row.objectValue ?? [:]
                tagged["id"] = "cr"
                return .object(tagged)
            })
            // Page 1 too, so the cache holds pages 0 and 1 of one load (a list never mixes loads).
            let next = try await both.ask(#"{"op":"next","id":"cr"}"#)
            #expect(next.names.prefix(3) == ["loading", "response", "response"])
            both.closeInput()
            #expect(try await both.finish().status == 0)
            #expect(harness.server.requestCount == 4)

            let offline = try start(harness, cache: cache, policy: "cache-only")
            _ = try await offline.nextEvent()
            let first = try await offline.ask(#"{"op":"load"}"#)
            #expect(first[1]["origin"] == "cache")
            let second = try await offline.ask(#"{"op":"next"}"#)
            #expect(second[1]["origin"] == "cache")
            // Page 2 was never stored: a cache error for that page, and the session goes on.
            let missing = try await offline.ask(#"{"op":"next","id":"miss"}"#)
            #expect(missing.names == ["loading", "error"])
            #expect(missing[1]["kind"] == "cache")
            #expect(missing[1]["page"] == 2)
            // Pull to refresh under cache-only reads the cache again.
            let refreshed = try await offline.ask(#"{"op":"refresh"}"#)
            #expect(refreshed[1]["origin"] == "cache")
            offline.closeInput()
            let end = try await offline.finish()
            #expect(end.status == 0, "stderr: \(end.stderr)")
            #expect(end.rest.last?["succeeded"] == false)
            #expect(harness.server.requestCount == 4)
        }
    }
}
