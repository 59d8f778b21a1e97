import Foundation
import PostgresNIO
import ScreensBus
import ScreensPipe
import TestSupport
import Testing

/// A replay reads a page's rows by the index stored with them, and checks the rows in full
/// whenever the index is missing or is not the stored text's (an older cache, a hand edit).
@Suite struct CacheRowIndexTests {
    /// Runs `sql` with `arguments` on the SQLite file at `path`, as another program would.
    static func edit(_ path: String, _ sql: String, _ arguments: [String] = []) throws -> String {
        let script = """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            rows = c.execute(sys.argv[2], sys.argv[3:]).fetchall()
            c.commit()
            print(repr(rows))
            """
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path, sql] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sets the stored rows text of every page of `store` to `text`, as a hand edit would.
    static func setRows(of store: any CacheBackend, to text: String) async throws {
        switch store {
        case let sqlite as CacheStore:
            _ = try edit(sqlite.path, "UPDATE page SET rows = ?", [text])
        case let postgres as PostgresCacheStore:
            _ = try await PostgresTesting.withConnection(postgres.target) { connection in
                try await connection.query("UPDATE screens_pipe_cache_page SET rows = \(text)", logger: PostgresTesting.logger)
            }
        default:
            Issue.record("no way to edit \(store)")
        }
    }

    /// Removes every page's row index, as a page stored before indexes has none.
    static func clearRowIndex(of store: any CacheBackend) async throws {
        switch store {
        case let sqlite as CacheStore:
            _ = try edit(sqlite.path, "UPDATE page SET row_index = NULL")
        case let postgres as PostgresCacheStore:
            _ = try await PostgresTesting.withConnection(postgres.target) { connection in
                try await connection.query("UPDATE screens_pipe_cache_page SET row_index = NULL", logger: PostgresTesting.logger)
            }
        default:
            Issue.record("no way to edit \(store)")
        }
    }

    /// A page of `count` rows as a remote run keeps it: rows as their received texts.
    private func page(_ count: Int, index: Int = 0) throws -> FetchedPage {
        let rows = (0..<count).map { row in #"{"entryId":\#(9_007_199_254_740_993 + row),"name":"bookmark, \"\#(row)\"","n":1.50}"# }
        let body = Array(("[" + rows.joined(separator: ",") + "]").utf8)
        let texts = try #require(try JSONValue.parseArrayKeepingTexts(body, skippingElements: true)).texts
        return FetchedPage(request: CacheFixtures.request(index), rowTexts: texts, origin: .remote)
    }

    private func replay(_ store: any CacheBackend, index: Int = 0) async throws -> FetchedPage {
        guard case .page(let cached) = try await store.lookup(key: "k", request: CacheFixtures.request(index), rowsAsTexts: true) else {
            throw CancellationError()
        }
        return cached.fetchedPage(for: CacheFixtures.request(index))
    }

    private func lines(_ page: FetchedPage) throws -> [String] {
        let texts = try #require(page.rowTexts)
        return (0..<texts.count).map { String(decoding: texts[$0] ?? [], as: UTF8.self) }
    }

    @Test func aPageIsStoredWithTheIndexOfItsRows() async throws {
        let directory = try TemporaryDirectory()
        let store = try CacheStore(path: directory.file("cache.sqlite"))
        let stored = try page(3)
        try await store.write(key: "k", pipeline: "p", page: stored, snapshot: nil)
        // A digest, then one offset per row.
        #expect(try Self.edit(store.path, "SELECT length(row_index) FROM page") == "[(20,)]")
        let replayed = try await replay(store)
        #expect(try lines(replayed) == lines(stored))
        #expect(replayed.rowsAreTexts)
        #expect(replayed.rows == stored.rows)

        // A page without its rows' texts (built in code) is stored without an index, and read
        // back by checking it.
        let built = FetchedPage(request: CacheFixtures.request(1), rows: [["a": 1], "b"], origin: .remote)
        try await store.write(key: "k", pipeline: "p", page: built, snapshot: nil)
        #expect(try Self.edit(store.path, "SELECT row_index IS NULL FROM page WHERE page_index = 1") == "[(1,)]")
        #expect(try await replay(store, index: 1).rows == built.rows)
    }

    @Test(arguments: CacheBackendKind.available)
    func aReplayByTheIndexDoesNotCheckTheRowsAgain(backend: CacheBackendKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory)
        // Texts are only kept for rows that parsed; these did not, to show what a replay
        // reads: the stored texts by their index, not a parse of them (which would refuse them).
        var texts = JSONElementTexts()
        for row in [#"{"id":1,"name":"#, "[1,2"] { Array(row.utf8).withUnsafeBytes { texts.append(textOfParsedValue: $0) } }
        var page = FetchedPage(request: CacheFixtures.request(0), rows: [.null, .null], origin: .remote)
        page.rowTexts = texts
        try await store.write(key: "k", pipeline: "p", page: page, snapshot: nil)
        #expect(try lines(try await replay(store)) == [#"{"id":1,"name":"#, "[1,2"])
        // Without the index, the same page is checked, and refused.
        try await Self.clearRowIndex(of: store)
        await #expect(throws: ScreensPipeError.self) { try await replay(store) }
    }

    @Test(arguments: CacheBackendKind.available)
    func aHandEditedPageIsCheckedInFull(backend: CacheBackendKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory)
        try await store.write(key: "k", pipeline: "p", page: try page(2), snapshot: nil)
        #expect(try lines(try await replay(store)).count == 2)

        // Still valid JSON, one row fewer: the index no longer fits, so the rows are checked
        // and the edit is what comes back, whole rows only.
        let edited = #"[{"entryId":1,"name":"edited, by hand"}]"#
        try await Self.setRows(of: store, to: edited)
        #expect(try lines(try await replay(store)) == [#"{"entryId":1,"name":"edited, by hand"}"#])

        // Cut short: an error that names the page, not a row.
        try await Self.setRows(of: store, to: #"[{"entryId":1,"name":"#)
        do {
            _ = try await replay(store)
            Issue.record("a damaged page was read")
        } catch let error as ScreensPipeError {
            #expect(error.code == .cache)
            #expect(error.message.contains("page 0 of key k holds unreadable JSON"))
        }
    }

    @Test func aDamagedOrMissingIndexIsNotUsed() async throws {
        let directory = try TemporaryDirectory()
        let store = try CacheStore(path: directory.file("cache.sqlite"))
        let stored = try page(4)
        try await store.write(key: "k", pipeline: "p", page: stored, snapshot: nil)
        for damage in [
            "UPDATE page SET row_index = NULL",  // a page stored before indexes
            "UPDATE page SET row_index = zeroblob(24)",
            "UPDATE page SET row_index = substr(row_index, 1, 20)",
            "UPDATE page SET row_index = x'00'",
            "UPDATE page SET row_index = 'text'",
        ] {
            _ = try Self.edit(store.path, damage)
            #expect(try lines(try await replay(store)) == lines(stored), "\(damage)")
        }
    }
}
