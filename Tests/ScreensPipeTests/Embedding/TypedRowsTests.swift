import Foundation
import Sandbox
import ScreensBus
import ScreensPipe
import ScreensPipeTesting
import Testing

/// `pipeline.rows(as:)` and `attach(rowsAs:)`: the run's rows as the embedder's own types.
@Suite("Typed rows")
struct TypedRowsTests {
    /// A bookmark as the `bookmark` model writes it; `createDate` is an ISO 8601 string.
    struct Bookmark: Decodable, Sendable, Equatable {
        let entryId: Int64
        let name: String
        let url: String
        let description: String?
        let createDate: Date?
    }

    private static func offline() throws -> Pipeline {
        try Pipeline(file: Embedding.path("pipelines/offline-bookmarks.yaml"), sink: .discard, environment: Embedding.environment())
    }

    @Test("every selected row comes as the embedder's type, in order, the same values the events carry")
    func rowsInOrder() async throws {
        let recorded = try await RecordedRun(try Self.offline())
        var bookmarks: [Bookmark] = []
        for try await bookmark in try Self.offline().rows(as: Bookmark.self) { bookmarks.append(bookmark) }

        #expect(bookmarks.count == recorded.items.count)
        #expect(!bookmarks.isEmpty)
        for (bookmark, item) in zip(bookmarks, recorded.items) {
            // 9007199254740993 and up: exact, where a Double would round them.
            #expect(item["entryId"] == .int(bookmark.entryId))
            #expect(item["name"]?.stringValue == bookmark.name)
            #expect(item["url"]?.stringValue == bookmark.url)
            if let date = item["createDate"]?.stringValue, let parsed = ISODate.parse(date) {
                #expect(bookmark.createDate.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == parsed)
            }
        }
        #expect(bookmarks.first?.entryId == 9_007_199_254_740_993)
        #expect(bookmarks.contains { $0.createDate != nil })
    }

    @Test("a row that does not decode stops the sequence with an error naming the row, the page and the field")
    func decodingFailureNamesRowPageAndField() async throws {
        struct Narrow: Decodable, Sendable { let entryId: Int32 }
        var count = 0
        let thrown = await #expect(throws: ScreensPipeError.self) {
            for try await _ in try Self.offline().rows(as: Narrow.self) { count += 1 }
        }
        let error = try #require(thrown)
        #expect(count == 0)
        #expect(error.code == .conversion)
        #expect(error.row == 0 && error.page == 0)
        #expect(error.message.contains("entryId: expected an integer that fits Int32"), "\(error.message)")
        #expect("\(error)".contains("row 0"), "\(error)")
    }

    @Test("a date that is not an ISO string names its field")
    func wrongDate() async throws {
        struct Stamped: Decodable, Sendable { let name: Date }
        let thrown = await #expect(throws: ScreensPipeError.self) {
            for try await _ in try Self.offline().rows(as: Stamped.self) {}
        }
        #expect(thrown?.message.contains("name: expected an ISO 8601 date string") == true, "\(String(describing: thrown))")
    }

    @Test("ISO dates to the millisecond: a finer fraction is refused, zeros past it are not finer")
    func isoDateFractions() throws {
        struct Stamped: Decodable { let at: Date }
        let decoder = JSONValueDecoder.rows()
        func at(_ text: String) throws -> Int64 {
            let date = try decoder.decode(Stamped.self, from: JSONValue.object(["at": .string(text)])).at
            return Int64((date.timeIntervalSince1970 * 1000).rounded())
        }
        #expect(try at("2026-11-21T09:15:00.123Z") == 1_795_252_500_123)
        #expect(try at("2026-11-21T09:15:00.123000Z") == 1_795_252_500_123)
        #expect(try at("2026-11-21T09:15:00,1Z") == 1_795_252_500_100)
        #expect(try at("2026-11-21T09:15:00.120+00:00") == 1_795_252_500_120)
        #expect(throws: DecodingError.self) { try at("2026-11-21T09:15:00.1234Z") }
    }

    @Test("epoch milliseconds: what a converted list's date field takes, an integer or a whole number written with .0")
    func epochMillisecondDates() throws {
        struct Stamped: Decodable { let at: Date }
        let decoder = JSONValueDecoder.rows(dates: .epochMilliseconds)
        func at(_ text: String) throws -> Int64 {
            let date = try decoder.decode(Stamped.self, from: JSONValue(parsing: #"{"at":\#(text)}"#)).at
            return Int64((date.timeIntervalSince1970 * 1000).rounded())
        }
        #expect(try at("1795252500123") == 1_795_252_500_123)
        #expect(try at("1795252500123.0") == 1_795_252_500_123)
        #expect(try at("-1000") == -1000)
        for refused in ["1795252500123.5", #""1795252500123""#, "true"] {
            #expect(throws: DecodingError.self, "\(refused)") { try at(refused) }
        }
    }

    @Test("a 401 ends the sequence with the run's authentication error")
    func unauthorized() async throws {
        let yaml = Embedding.generatedListYAML.replacingOccurrences(of: "password: test", with: "password: wrong")
        let pipeline = try Pipeline(yaml: yaml, sink: .discard, environment: Embedding.environment())
        struct Row: Decodable, Sendable { let entryId: Int64 }
        let thrown = await #expect(throws: ScreensPipeError.self) {
            for try await _ in pipeline.rows(as: Row.self) {}
        }
        #expect(thrown?.code == .authentication && thrown?.status == 401, "\(String(describing: thrown))")
        #expect(thrown?.summary?.selected == 0)
    }

    @Test("cancelling the iterating task mid-run stops the run and throws cancelled, after the rows delivered")
    func cancellationMidRun() async throws {
        var sandbox = SandboxConfiguration()
        sandbox.generatedRows = 2_000
        sandbox.faults = FaultPlan(latency: .milliseconds(50))
        let pipeline = try Pipeline(yaml: Embedding.generatedListYAML, sink: .discard, environment: Embedding.environment(sandbox: sandbox))
        struct Row: Decodable, Sendable { let entryId: Int64 }
        let firstRow = AsyncStream<Void>.makeStream()
        let consumer = Task { () throws(ScreensPipeError) -> Int in
            var count = 0
            for try await _ in pipeline.rows(as: Row.self) {
                count += 1
                if count == 1 { firstRow.continuation.yield() }
            }
            return count
        }
        for await _ in firstRow.stream { break }
        consumer.cancel()
        let started = ContinuousClock.now
        let result = await consumer.result
        // A hang, not a slow machine: a full parallel run once stalled every test for 15 s.
        #expect(ContinuousClock.now - started < .seconds(60), "the cancelled run took long to end")
        guard case .failure(let error as ScreensPipeError) = result else {
            Issue.record("the sequence ended without an error: \(result)")
            return
        }
        #expect(error.isCancellation, "\(error)")
        let summary = try #require(error.summary)
        #expect(summary.selected >= 1 && summary.selected < 2_000)
    }

    @Test("breaking out of the loop stops the run")
    func breakStopsTheRun() async throws {
        var sandbox = SandboxConfiguration()
        sandbox.generatedRows = 2_000
        sandbox.faults = FaultPlan(latency: .milliseconds(50))
        let pipeline = try Pipeline(yaml: Embedding.generatedListYAML, sink: .discard, environment: Embedding.environment(sandbox: sandbox))
        let events = pipeline.subscribe()
        let watching = Task { await events.reduce(into: [PipelineEvent]()) { $0.append($1) } }
        struct Row: Decodable, Sendable { let entryId: Int64 }
        for try await _ in pipeline.rows(as: Row.self) { break }
        let started = ContinuousClock.now
        let seen = await watching.value
        #expect(ContinuousClock.now - started < .seconds(60))
        guard case .finished(let finished)? = seen.last else {
            Issue.record("no finished event")
            return
        }
        #expect(finished.reason == .interrupted)
        #expect(finished.selected < 2_000)
    }

    @Test("a typed callback gets every row decoded, in order, and a row that does not decode as its error")
    func typedCallback() async throws {
        struct Named: Decodable, Sendable { let name: String }
        let pipeline = try Self.offline()
        let received = Mutex<[Result<Named, ScreensPipeError>]>([])
        let delivered = pipeline.attach(rowsAs: Named.self) { row in received.withLock { $0.append(row) } }
        let summary = try await pipeline.run()
        await delivered.value
        let names = try received.withLock { try $0.map { try $0.get().name } }
        #expect(names.count == summary.selected)
        #expect(names.first == "Liferay")

        // groupId 20143 does not fit a UInt8: each row is an error of its own, and the run goes on.
        struct Grouped: Decodable, Sendable { let groupId: UInt8 }
        let second = try Self.offline()
        let failures = Mutex<[ScreensPipeError]>([])
        let reported = second.attach(rowsAs: Grouped.self) { row in
            if case .failure(let error) = row { failures.withLock { $0.append(error) } }
        }
        let secondSummary = try await second.run()
        await reported.value
        let errors = failures.withLock { $0 }
        #expect(errors.count == secondSummary.selected)
        // In list order: the row numbers rise.
        let rows = errors.compactMap(\.row)
        #expect(rows.count == errors.count && rows == rows.sorted() && Set(rows).count == rows.count)
        #expect(errors.allSatisfy { $0.code == .conversion && $0.page != nil && $0.message.contains("groupId: expected an integer that fits UInt8") })
    }
}

import Synchronization
