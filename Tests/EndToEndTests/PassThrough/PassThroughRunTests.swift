import Foundation
import ScreensBus
import Testing

/// Rows nothing changes pass through as the server sent them (whitespace between tokens
/// left out): number texts, escapes and member order exactly as received, through the real
/// binary, from the server and again from the cache.
@Suite("run: rows pass through as received")
struct PassThroughRunTests {
    /// Two rows with everything a re-encoding would change: `1.50`, `1E+2`, `-0.0`, an id
    /// beyond 2^53, `\/` and `\u00e9` escapes, a repeated key, keys out of order.
    static let rows = [
        #"{"z":1.50,"id":9007199254740993,"url":"http:\/\/x\/\u00e9","e":1E+2,"n":-0.0,"k":1,"k":2}"#,
        #"{"id":18446744073709551617,"s":"a \"quoted\" \\ line\n","t":[1.0,{"b":true,"a":null}]}"#,
    ]

    /// The same rows, pretty-printed the way a portal's headless API prints them.
    static func pretty(_ row: String) -> String {
        row.replacingOccurrences(of: #"":"#, with: #"" : "#).replacingOccurrences(of: ",\"", with: ",\n    \"")
            .replacingOccurrences(of: "{", with: "{\n    ")
    }

    static func run(_ source: String, cache: URL? = nil, _ arguments: [String] = []) async throws -> CommandResult {
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("rows.yaml")
        try """
            name: pass-through
            source:
            \(source)
            \(cache.map { "cache: { policy: remote-first, path: \($0.path) }" } ?? "")
            """.write(to: file, atomically: true, encoding: .utf8)
        return try await CommandRunner.run(["run", file.path] + arguments)
    }

    static let expected = rows.map { $0 + "\n" }.joined()

    @Test("headless: a pretty-printed page's rows come out compact, every other byte as sent; the cache replays the same bytes")
    func headless() async throws {
        let server = try RecordingServer(host: "127.0.0.1") { _ in
            .init(body: "{\n  \"items\" : [ \(Self.rows.map(Self.pretty).joined(separator: ", ")) ],\n  \"lastPage\" : 1,\n  \"page\" : 1,\n  \"pageSize\" : 10,\n  \"totalCount\" : 2\n}")
        }
        let cache = try CommandRunner.temporaryDirectory().appendingPathComponent("cache.sqlite")
        let source = """
              type: liferay-headless
              server: \(server.origin)
              path: /o/headless-delivery/v1.0/sites/20143/structured-contents
              pagination: { page-size: 10 }
            """
        let remote = try await Self.run(source, cache: cache)
        #expect(remote.status == 0, "stderr: \(remote.stderr)")
        #expect(remote.stdoutText == Self.expected)
        server.stop()
        let replay = try await Self.run(source, cache: cache, ["--policy", "cache-only"])
        #expect(replay.status == 0, "stderr: \(replay.stderr)")
        #expect(replay.stdoutText == Self.expected)
    }

    /// The `source:` lines (indented) of a pipeline reading bookmarks from the JSON-WS `server`.
    static func jsonwsSource(_ server: RecordingServer, pageSize: Int) -> String {
        """
              type: liferay-jsonws
              server: \(server.origin)
              rows: { service: /bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
              count: { service: /bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
              pagination: { page-size: \(pageSize) }
            """
    }

    @Test("JSON-WS: the batch's first result, row by row as sent")
    func jsonws() async throws {
        let server = try RecordingServer(host: "127.0.0.1") { _ in
            .init(body: "[[\(Self.rows.joined(separator: ","))],2]")
        }
        defer { server.stop() }
        let source = Self.jsonwsSource(server, pageSize: 10)
        let result = try await Self.run(source)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutText == Self.expected)
        // Rows kept as texts are parsed for a reader of events, to the values a parse gives.
        let events = try await Self.run(source, cache: nil, ["--events"])
        #expect(events.status == 0, "stderr: \(events.stderr)")
        let items = try events.jsonLines().filter { $0["event"] == "selected" }.map { $0["item"] }
        #expect(items == Self.rows.map { try? JSONValue(parsing: $0) })
        // A limit ends inside the page.
        let limited = try await Self.run(source, cache: nil, ["--limit", "1"])
        #expect(limited.stdoutText == Self.rows[0] + "\n", "stderr: \(limited.stderr)")
    }

    @Test("JSON-WS: rows one comma apart and rows spaced apart, in one page, each its own line")
    func rowsApartAndTogether() async throws {
        let many = (0..<40).map { #"{"id":\#($0),"s":"row \#($0)","pad":"\#(String(repeating: "x", count: $0 % 5))"}"# }
        let separators = [",", ",", ", ", ",\n  ", ",", " ,"]
        var body = "[[" + many[0]
        for (index, row) in many.enumerated().dropFirst() { body += separators[index % separators.count] + row }
        body += "],\(many.count)]"
        let page = body
        let server = try RecordingServer(host: "127.0.0.1") { _ in .init(body: page) }
        defer { server.stop() }
        let source = Self.jsonwsSource(server, pageSize: 100)
        let result = try await Self.run(source)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutText == many.map { $0 + "\n" }.joined())
        for limit in [1, 2, 7] {
            let limited = try await Self.run(source, cache: nil, ["--limit", "\(limit)"])
            #expect(limited.stdoutText == many.prefix(limit).map { $0 + "\n" }.joined(), "stderr: \(limited.stderr)")
        }
    }

    /// A REST API answering with ``rows`` under `data.results`, in one page.
    static func restServer() throws -> RecordingServer {
        try RecordingServer(host: "127.0.0.1") { _ in
            .init(body: #"{"data":{"results":[\#(Self.rows.joined(separator: ",\n"))]}}"#)
        }
    }

    /// The `source:` lines (indented) of a pipeline reading ``restServer()``.
    static func restSource(_ server: RecordingServer) -> String {
        """
              type: rest
              url: \(server.origin)/api/rows
              records: data.results
              paginate: offset
              pagination: { page-size: 10 }
            """
    }

    @Test("REST with a records path; a filter keeps rows as sent, a model or fields re-encode them")
    func restAndChangedRows() async throws {
        let server = try Self.restServer()
        defer { server.stop() }
        let source = Self.restSource(server)
        let plain = try await Self.run(source)
        #expect(plain.status == 0, "stderr: \(plain.stderr)")
        #expect(plain.stdoutText == Self.expected)
        let filtered = try await Self.run(source + "\nfilter: { where: 'id > 0' }")
        #expect(filtered.stdoutText == Self.expected, "stderr: \(filtered.stderr)")
        // A projection changes the row: it is encoded, and reads back as the same values.
        let projected = try await Self.run(source, cache: nil, ["--fields", "id"])
        #expect(projected.stdoutText == "{\"id\":9007199254740993}\n{\"id\":18446744073709551617}\n", "stderr: \(projected.stderr)")
    }

    @Test("a fields mapping and a filter read the rows' texts: each field as the writer writes its value")
    func mappedRowsFromTexts() async throws {
        let server = try Self.restServer()
        defer { server.stop() }
        let source = Self.restSource(server) + """

            convert:
              fields:
                id: id
                z: z
                s: { from: s, type: string }
                k: k
                e: { from: e, type: number }
                t: t
            """
        let mapped = try await Self.run(source)
        #expect(mapped.status == 0, "stderr: \(mapped.stderr)")
        let first = #"{"id":9007199254740993,"z":1.50,"s":null,"k":2,"e":1E+2,"t":null}"#
        let second = #"{"id":18446744073709551617,"z":null,"s":"a \"quoted\" \\ line\n","k":null,"e":null,"t":[1.0,{"b":true,"a":null}]}"#
        #expect(mapped.stdoutText == first + "\n" + second + "\n")
        // The filter reads the converted value of the repeated key (the last one); the events
        // carry the same row as values.
        let filtered = try await Self.run(source + "\nfilter: { where: 'k == 2' }", cache: nil, ["--events"])
        let selected = try filtered.jsonLines().filter { $0["event"] == "selected" }
        #expect(selected.map { $0["row"] } == [0])
        #expect(selected.first?["item"] == (try JSONValue(parsing: first)))
    }

    @Test("a file source: a pretty-printed JSON array and JSON lines, rows as they are in the file")
    func file() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let array = directory.appendingPathComponent("rows.json")
        try "[\n  \(Self.rows.map(Self.pretty).joined(separator: ",\n  "))\n]\n".write(to: array, atomically: true, encoding: .utf8)
        let lines = directory.appendingPathComponent("rows.jsonl")
        try (Self.rows.map { $0.replacingOccurrences(of: ",", with: " , ") }.joined(separator: "\n") + "\n").write(to: lines, atomically: true, encoding: .utf8)
        for path in [array, lines] {
            let result = try await Self.run("  type: file\n  path: \(path.path)\n  pagination: { page-size: 1 }")
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutText == Self.expected, "\(path.lastPathComponent)")
        }
    }
}
