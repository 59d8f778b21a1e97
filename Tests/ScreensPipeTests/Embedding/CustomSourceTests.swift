import Foundation
import ScreensBus
import ScreensPipe
import ScreensPipeTesting
import Testing

/// A source written in Swift plugs into the real cache, convert, filter and sink stages, and
/// the testing product records what a run published.
@Suite struct CustomSourceTests {
    static let rows: [JSONValue] = (0..<73).map { ["n": .int(Int64($0)), "name": .string("row \($0)")] }

    static func spec(
        _ source: ScriptedSource, filter: String? = nil, cache: CacheSpec? = nil
    ) -> PipelineSpec {
        PipelineSpec(
            name: "custom",
            source: SourceSpec(type: .custom(source), pagination: PaginationSpec(firstPageSize: 10, pageSize: 7)),
            cache: cache, filter: filter.map { FilterSpec(expression: $0) }, sink: SinkSpec(destination: .discard))
    }

    @Test func everyRowOnceInOrderThroughTheRealStages() async throws {
        let source = ScriptedSource(rows: Self.rows)
        let run = try await RecordedRun(Pipeline(spec: Self.spec(source, filter: "n >= 60")))
        #expect(run.summary.succeeded)
        #expect(run.items == Array(Self.rows[60...]))
        // Page 0 holds 10 rows and the count; then pages of 7 up to row 73, nothing past it.
        #expect(run.responses.map(\.startRow) == [0, 10, 17, 24, 31, 38, 45, 52, 59, 66])
        // Page 0 alone first (it brings the count); the prefetched pages are asked for
        // concurrently, so the order the source sees them in is not promised, only that each
        // of pages 0...9 is asked for exactly once (the rows above are in order).
        #expect(source.requests.first?.index == 0)
        #expect(source.requests.map(\.index).sorted() == Array(0...9))
        #expect(run.finished?.end == .rowCount)
    }

    @Test func aFailingPageIsAnErrorNamingThePage() async throws {
        let source = ScriptedSource(rows: Self.rows)
        source.fail(page: 2, with: .notFound)
        let run = try await RecordedRun(Pipeline(spec: Self.spec(source)))
        #expect(!run.summary.succeeded)
        #expect(!run.summary.endedWithoutFailure)
        #expect(run.errors.contains { $0.page == 2 && $0.status == 404 })
        // The rows before the failing page stay delivered, in order.
        #expect(run.items.prefix(17) == Self.rows.prefix(17))
    }

    @Test func theCacheWrapsACustomSource() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("custom-source-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = CacheSpec(policy: .remoteFirst, path: directory.appendingPathComponent("cache.sqlite").path)
        let source = ScriptedSource(rows: Self.rows, identity: "inventory-api v2")
        let first = try await RecordedRun(Pipeline(spec: Self.spec(source, cache: cache)))
        #expect(first.responses.allSatisfy { $0.origin == .remote })

        source.mode = .down
        let offline = try await RecordedRun(Pipeline(spec: Self.spec(source, cache: cache)))
        #expect(offline.summary.succeeded)
        #expect(offline.items == Self.rows)
        #expect(offline.responses.allSatisfy { $0.origin == .cache })

        // Another identity is another list: nothing cached for it, and the server is down.
        let other = ScriptedSource(rows: Self.rows, identity: "inventory-api v3")
        other.mode = .down
        let miss = try await RecordedRun(Pipeline(spec: Self.spec(other, cache: cache)))
        #expect(!miss.summary.succeeded)
    }

    @Test func theCacheKeyNamesTheIdentityOnlyByDigest() throws {
        let source = ScriptedSource(rows: [], identity: "api key=hunter2")
        let key = try CacheKey(spec: Self.spec(source, cache: CacheSpec()))
        #expect(key.text.contains("\"type\":\"custom\""))
        #expect(!key.text.contains("hunter2"))
    }

    /// The README's example, as written (only the cache path is made unique).
    @Test func readmeExampleOfflineFallsBackToTheCache() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let source = ScriptedSource(rows: [["entryId": 1, "name": "Liferay"]])
        let spec = PipelineSpec(name: "bookmarks", source: SourceSpec(type: .custom(source)),
                                cache: CacheSpec(policy: .remoteFirst, path: path),
                                sink: SinkSpec(destination: .discard))
        _ = try await RecordedRun(Pipeline(spec: spec))
        source.mode = .down
        let offline = try await RecordedRun(Pipeline(spec: spec))
        #expect(offline.items == [["entryId": 1, "name": "Liferay"]])
        #expect(offline.responses.allSatisfy { $0.origin == .cache })
    }
}
