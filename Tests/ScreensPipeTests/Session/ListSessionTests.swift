import ScreensBus
import ScreensPipe
import ScreensPipeTesting
import Synchronization
import Testing

/// The library session with the real cache, convert and filter stages over a scripted source.
@Suite("session: the library API")
struct ListSessionTests {
    static let rows: [JSONValue] = (0..<23).map { ["entryId": .int(Int64(100 + $0)), "name": .string("row \($0)")] }

    private func pipeline(_ source: ScriptedSource, cache: CacheSpec? = nil) -> Pipeline {
        let spec = PipelineSpec(
            name: "scripted",
            source: SourceSpec(
                type: .custom(source), pagination: PaginationSpec(firstPageSize: 10, pageSize: 10, prefetch: 4)),
            cache: cache)
        return Pipeline(spec: spec)
    }

    private func drive(_ pipeline: Pipeline, prefetch: Int = 0, _ commands: [SessionRequest]) async throws -> [SessionEvent] {
        try await SessionClient.drive(pipeline, prefetch: prefetch, commands)
    }

    @Test("load, next, select and the end of the commands: every event, each tagged with its command's id")
    func transcript() async throws {
        let source = ScriptedSource(rows: Self.rows)
        let events = try await drive(pipeline(source), [
            SessionRequest(.load, id: "l"), SessionRequest(.next, id: "n"), SessionRequest(.select(row: 12), id: "s"),
        ])
        let names = events.map(\.name)
        #expect(names.first == "started")
        #expect(names.last == "finished")
        #expect(names.filter { $0 == "row" }.count == 20)
        let selected = try #require(events.first { $0.name == "selected" })
        #expect(selected.id == "s")
        #expect(selected.envelope["item"]?["entryId"] == 112)
        #expect(events.filter { $0.name == "loading" }.map(\.id) == ["l", "n"])
        #expect(events.last?.id == nil)
        // The session fetched what was asked for, nothing more.
        #expect(source.requests.map(\.index) == [0, 1])
    }

    @Test("a pipeline opens one session: the second throws alreadyRan")
    func once() async throws {
        let pipeline = pipeline(ScriptedSource(rows: Self.rows))
        _ = try await drive(pipeline, [SessionRequest(.close)])
        await #expect(throws: ScreensPipeError.alreadyRan(pipeline: "scripted")) {
            _ = try await drive(pipeline, [])
        }
    }

    @Test("a failing page is an error event and the session goes on")
    func failingPage() async throws {
        let source = ScriptedSource(rows: Self.rows)
        source.fail(page: 1, with: .notFound)
        let events = try await drive(pipeline(source), [
            SessionRequest(.load), SessionRequest(.next, id: "bad"), SessionRequest(.page(2), id: "good"),
        ])
        let failure = try #require(events.first { $0.name == "error" })
        #expect(failure.id == "bad")
        #expect(failure.envelope["page"] == 1)
        let last = try #require(events.first { $0.name == "response" && $0.id == "good" })
        #expect(last.envelope["last"] == true)
        #expect(events.last?.envelope["errors"] == 1)
    }

    @Test("the example of the Sessions article, as written, against the sandbox")
    func articleExample() async throws {
        let picked = Mutex<[String]>([])
        // As in the article, with the cache in a temporary directory.
        let pipeline = try Pipeline(file: Embedding.path("pipelines/bookmarks.yaml"), environment: Embedding.environment())
        let (commands, client) = AsyncStream.makeStream(of: SessionRequest.self)
        client.yield(SessionRequest(.load, id: "first"))
        let finished = try await pipeline.session(prefetch: 1).run(commands) { event in
            switch event.kind {
            case .row(let row) where row.row == 49:  // the last row of page 0 (first-page-size 50)
                client.yield(SessionRequest(.select(row: 2), id: "tap"))
            case .pipeline(.selected(let row)):
                picked.withLock { $0.append(row.item["name"]?.stringValue ?? "") }
                client.finish()  // the end of the commands: finished
            default:
                break
            }
        }
        #expect(finished.pages == 1)
        #expect(finished.selected == 1)
        #expect(finished.succeeded)
        #expect(picked.withLock { $0 } == ["Portal home 03"])
    }

    @Test("the bus carries the session: responses, the user's selection and finished, then ends")
    func bus() async throws {
        let pipeline = pipeline(ScriptedSource(rows: Self.rows))
        let subscription = pipeline.subscribe()
        let watching = Task {
            var names: [String] = []
            for await event in subscription { names.append(event.envelope["event"]?.stringValue ?? "") }
            return names
        }
        _ = try await drive(pipeline, [SessionRequest(.load), SessionRequest(.select(row: 1)), SessionRequest(.page(9))])
        #expect(await watching.value == ["started", "response", "selected", "error", "finished"])
    }
}
