import Foundation
import PostgresNIO
import ScreensBus
import ScreensPipe
import Testing

/// The `postgres` sink in process: a file source, a fresh database, the table read back.
@Suite(.enabled(if: PostgresTesting.isAvailable, PostgresTesting.needed))
struct PostgresSinkTests {
    /// Writes `rows` as the file source's JSON array; returns the path.
    private func rowsFile(_ rows: [JSONValue], in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("rows.json")
        try JSONValue.array(rows).jsonString.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func run(_ rows: [JSONValue], into target: PostgresTarget, sink: String) async throws -> RunSummary {
        let directory = try TemporaryDirectory()
        let yaml = """
            name: to-postgres
            source: { type: file, path: "\(try rowsFile(rows, in: directory))"}
            sink: { type: postgres, url: "\(target.description)", tls: disable, \(sink) }
            """
        let pipeline = try Pipeline(yaml: yaml, environment: PipelineEnvironment(variables: [:]))
        return try await pipeline.runReturningFailures()
    }

    /// Every row of `table` as JSON objects ordered by `order`.
    private func tableRows(_ target: PostgresTarget, _ table: String, order: String) async throws -> [[String: String?]] {
        try await PostgresTesting.withConnection(target) { connection in
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT row_to_json(t)::TEXT FROM \(table) AS t ORDER BY \(order)"), logger: PostgresTesting.logger)
            var result: [[String: String?]] = []
            for try await text in rows.decode(String.self) {
                guard case .object(let object) = try JSONValue(parsing: text) else { continue }
                var row: [String: String?] = [:]
                for (key, value) in object { row[key] = value == .null ? .some(nil) : value.jsonString }
                result.append(row)
            }
            return result
        }
    }

    private static let bookmarks: [JSONValue] = (0..<8).map { (index: Int) -> JSONValue in
        let note: JSONValue = index == 3 ? .null : .string("Grüße 👩‍👩‍👧")
        let tags: JSONValue = .array([.string("a"), .int(Int64(index))])
        let members: JSONObject = [
            "entryId": .int(9_007_199_254_740_993 + Int64(index)), "name": .string("bookmark \(index) \"quoted\"; DROP TABLE x; --"),
            "visits": .int(Int64(index * 3)), "score": .double(Double(index) + 0.5), "public": .bool(index.isMultiple(of: 2)),
            "tags": tags, "note": note,
        ]
        return .object(members)
    }

    @Test func createsTheTableAndUpsertsEveryRowByItsKey() async throws {
        let target = try await PostgresTesting.freshDatabase()
        let summary = try await run(Self.bookmarks, into: target, sink: "table: bookmarks, key: [entryId], batch-size: 3")
        #expect(summary.failures.isEmpty, "\(summary.failures)")
        var stored = try await tableRows(target, "bookmarks", order: "\"entryId\"")
        #expect(stored.count == 8)
        #expect(stored[0]["entryId"] == "9007199254740993")
        #expect(stored[0]["name"] == #""bookmark 0 \"quoted\"; DROP TABLE x; --""#)
        #expect(stored[1]["score"] == "1.5")
        #expect(stored[2]["public"] == "true")
        #expect(stored[3]["note"] == .some(nil))
        #expect(stored[7]["tags"] == #"["a",7]"#)

        // A second run with changed rows and one more: updated in place, nothing duplicated.
        var changed = Self.bookmarks
        changed[0] = ["entryId": .int(9_007_199_254_740_993), "name": "renamed", "visits": 100, "extra": "a new field"]
        changed.append(["entryId": .int(1), "name": "new"])
        let again = try await run(changed, into: target, sink: "table: bookmarks, key: entryId")
        #expect(again.failures.isEmpty, "\(again.failures)")
        stored = try await tableRows(target, "bookmarks", order: "\"entryId\"")
        #expect(stored.count == 9)
        #expect(stored[1]["name"] == #""renamed""#)
        // A field the row no longer has is NULL: the table holds the row as the list has it now.
        #expect(stored[1]["score"] == .some(nil))
        #expect(stored[1]["extra"] == #""a new field""#)
    }

    @Test func tombstonesDeleteTheirKeysAndMirrorDeletesWhatTheListLacks() async throws {
        let target = try await PostgresTesting.freshDatabase()
        func ids() async throws -> [String?] { try await tableRows(target, "bookmarks", order: "\"entryId\"").map { $0["entryId"] ?? nil } }
        func bookmark(_ index: Int, status: Int = 0) -> JSONValue {
            ["entryId": .int(Int64(100 + index)), "name": .string("b\(index)"), "status": .int(Int64(status))]
        }
        let sink = "table: bookmarks, key: entryId, batch-size: 2"
        #expect(try await run((0..<8).map { bookmark($0) }, into: target, sink: sink).failures.isEmpty)
        #expect(try await ids().count == 8)

        // A tombstone deletes its key; one for a key the table never had writes nothing.
        let tombstones = [bookmark(0, status: 8), bookmark(1), bookmark(50, status: 8)]
        let deleted = try await run(tombstones, into: target, sink: sink + ", deleted: { field: status, equals: 8 }")
        #expect(deleted.failures.isEmpty, "\(deleted.failures)")
        #expect(try await ids() == (1..<8).map { String(100 + $0) })

        // Mirror: the table becomes the list, across batches (3 rows, batches of 2).
        let mirrored = try await run([bookmark(3), bookmark(1), bookmark(2)], into: target, sink: sink + ", mode: mirror")
        #expect(mirrored.failures.isEmpty, "\(mirrored.failures)")
        #expect(try await ids() == ["101", "102", "103"])

        // Both: a tombstone in a mirror run is a key not delivered.
        let both = try await run([bookmark(1, status: 8), bookmark(2)], into: target, sink: sink + ", mode: mirror, deleted: { field: status, equals: 8 }")
        #expect(both.failures.isEmpty, "\(both.failures)")
        #expect(try await ids() == ["102"])

        // A complete run of an empty list empties the table.
        #expect(try await run([], into: target, sink: sink + ", mode: mirror").failures.isEmpty)
        #expect(try await ids().isEmpty)
    }

    @Test func aMirrorRunThatFailsDeletesNothing() async throws {
        let target = try await PostgresTesting.freshDatabase()
        let rows: [JSONValue] = (0..<6).map { ["id": .int(Int64($0))] }
        #expect(try await run(rows, into: target, sink: "table: t, key: id").failures.isEmpty)
        // The fourth row has no key: its batch fails, and the run with it, before the end.
        let failing: [JSONValue] = [["id": 0], ["id": 1], ["id": 2], ["name": "no key"]]
        let summary = try await run(failing, into: target, sink: "table: t, key: id, batch-size: 2, mode: mirror")
        #expect(!summary.failures.isEmpty)
        #expect(try await tableRows(target, "t", order: "id").count == 6)
    }

    @Test func jsonbModeKeepsTheKeyColumnsAndTheWholeRow() async throws {
        let target = try await PostgresTesting.freshDatabase()
        let rows: [JSONValue] = [
            ["site": "a", "id": 1, "payload": ["deep": [1, 2]]], ["site": "b", "id": 1, "payload": nil], ["site": "a", "id": 1, "payload": "last wins"],
        ]
        let summary = try await run(rows, into: target, sink: "table: \"my schema-less\", key: [site, id], columns: jsonb")
        #expect(summary.failures.isEmpty, "\(summary.failures)")
        let stored = try await tableRows(target, "\"my schema-less\"", order: "site")
        #expect(stored.count == 2)
        // The same key twice in one batch: the later row wins, as a later batch would.
        // jsonb keeps members by key (its own order), values exactly.
        #expect(try JSONValue(parsing: try #require(stored[0]["row"] ?? nil))["payload"] == "last wins")
        #expect(try JSONValue(parsing: try #require(stored[0]["row"] ?? nil))["id"] == 1)
        #expect(Set(stored[0].keys) == ["site", "id", "row"])
    }

    @Test func aTableOfAnotherShapeIsRefusedBeforeAnythingIsWritten() async throws {
        let target = try await PostgresTesting.freshDatabase()
        try await PostgresTesting.withConnection(target) { connection in
            try await connection.query("CREATE TABLE bookmarks (id bigint, name text)", logger: PostgresTesting.logger)
        }
        let missingKey = try await run(Self.bookmarks, into: target, sink: "table: bookmarks, key: [entryId]")
        #expect(missingKey.failures.first?.message.contains("incompatible shape: it has no column 'entryId'") == true)
        let noUniqueIndex = try await run([["id": 1, "name": "x"]], into: target, sink: "table: bookmarks, key: [id]")
        #expect(noUniqueIndex.failures.first?.message.contains("no primary key or unique index on exactly (id)") == true)
        #expect(try await tableRows(target, "bookmarks", order: "id").isEmpty)
    }

    @Test func valuesPostgreSQLRejectsNameTheirRow() async throws {
        let target = try await PostgresTesting.freshDatabase()
        let withNUL: [JSONValue] = [["id": 1, "name": "fine"], ["id": 2, "name": "a\u{0}b"]]
        let nul = try await run(withNUL, into: target, sink: "table: t, key: id")
        let failure = try #require(nul.failures.first)
        #expect(failure.code == .sink)
        #expect(failure.message.contains("row 1 (page 0) field 'name' contains a NUL character"))

        // A value of another type than the existing column: PostgreSQL refuses, the error names the row.
        let mismatch = try await run([["id": 10, "name": "ok"], ["id": 11, "name": ["not": "text"]], ["id": "twelve", "name": "x"]], into: target, sink: "table: t, key: id")
        let refused = try #require(mismatch.failures.first)
        #expect(refused.message.contains("row 2 (page 0) field 'id' is the string \"twelve\""), "\(refused.message)")
        #expect(refused.message.contains("bigint"))

        let keyless = try await run([["name": "no id"]], into: target, sink: "table: t, key: id")
        #expect(keyless.failures.first?.message.contains("has no value for the key field 'id'") == true)
    }

    @Test func valuesAColumnWouldChangeAreRefusedWithTheirRow() async throws {
        let target = try await PostgresTesting.freshDatabase()
        try await PostgresTesting.withConnection(target) { connection in
            try await connection.query(
                """
                CREATE TABLE v (id bigint PRIMARY KEY, n bigint, b boolean, d double precision, r real, x numeric(10,2), m numeric, s text)
                """, logger: PostgresTesting.logger)
        }
        let decimal31 = "1234567890.123456789012345678901"
        // What each column holds exactly: written, and read back as it was.
        let exact = try await run(
            [["id": 1, "n": 42, "b": true, "d": 0.5, "r": 0.5, "x": .double(1.25), "m": .number(decimal31), "s": "0042"]],
            into: target, sink: "table: v, key: id")
        #expect(exact.failures.isEmpty, "\(exact.failures)")
        let stored = try await tableRows(target, "v", order: "id")
        #expect(stored.first?["n"] == "42")
        #expect(stored.first?["m"] == .some(decimal31))
        #expect(stored.first?["s"] == #""0042""#)

        let changed: [(JSONObject, String, String)] = [
            (["id": 2, "n": "0042"], "n", "text is converted"),
            (["id": 3, "b": 0], "b", "only true and false"),
            (["id": 4, "b": "yes"], "b", "text is converted"),
            (["id": 5, "d": .number(decimal31)], "d", "more digits or range"),
            (["id": 6, "x": .double(1.005)], "x", "more than 2 fraction digits"),
            (["id": 7, "n": .double(1.5)], "n", "not a whole number"),
            (["id": 8, "d": 9_007_199_254_740_993], "d", "beyond what double precision holds"),
            (["id": 9, "r": .double(0.1)], "r", "more digits than real holds"),
            (["id": 10, "m": "12"], "m", "text is converted"),
        ]
        for (row, field, why) in changed {
            let result = try await run([.object(row)], into: target, sink: "table: v, key: id")
            let failure = try #require(result.failures.first, "\(row)")
            #expect(failure.code == .sink)
            #expect(failure.message.contains("row 0 (page 0) field '\(field)' is the"), "\(failure.message)")
            #expect(failure.message.contains(why), "\(failure.message)")
        }
        #expect(try await tableRows(target, "v", order: "id").count == 1, "nothing of a refused row was written")
    }

    @Test func aWrongPasswordStopsTheRunBeforeAnyFetchWithoutShowingIt() async throws {
        var target = try await PostgresTesting.freshDatabase()
        target.user = "nobody_\(UInt32.random(in: 0...UInt32.max))"
        let directory = try TemporaryDirectory()
        let yaml = """
            source: { type: file, path: "\(try rowsFile(Self.bookmarks, in: directory))" }
            sink: { type: postgres, url: "postgres://\(target.user):Very-Secret-9@127.0.0.1:\(target.port)/\(target.database)", tls: disable, table: t, key: id }
            """
        let pipeline = try Pipeline(yaml: yaml, environment: PipelineEnvironment(variables: [:]))
        await #expect {
            _ = try await pipeline.run()
        } throws: { error in
            let failure = error as? ScreensPipeError
            return failure?.code == .authentication && !"\(error)".contains("Very-Secret-9") && "\(error)".contains("open the postgres sink")
        }
    }
}
