import Foundation
@testable import ScreensPipeCore
import ScreensPipe
import ScreensBus
import ScreensPipeTesting
import Testing

/// A source type added by a folder and one registry line runs through the real loader,
/// cache, convert, filter, sink and `plan`.
@Suite struct ToySourceTests {
    /// The one registry line a new type needs: a built-in type goes in
    /// `SourceRegistry.builtIn`; the test adds it for its own loads only, so no other test
    /// sees a `toy` type.
    static func load(_ yaml: String) throws -> PipelineSpec {
        try SourceRegistry.withAdditionalTypes([ToySourceSpec.self]) {
            try PipelineLoader(environment: [:]).load(yaml: yaml)
        }
    }

    static func yaml(label: String, cachePath: String, output: String, policy: String = "remote-first") -> String {
        """
        name: toy-\(label)
        source:
          type: toy
          rows: 23
          label: \(label)
          pagination: { first-page-size: 10, page-size: 4 }
        convert:
          fields:
            n: { from: n, type: int }
            text: label
        cache: { policy: \(policy), path: '\(cachePath)' }
        filter: { where: 'n >= 5 and n < 20' }
        sink: { type: file, path: '\(output)' }
        """
    }

    @Test func runsThroughCacheConvertFilterAndSink() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("toy-source-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("cache.sqlite").path
        let output = directory.appendingPathComponent("rows.jsonl").path
        let label = "toy-\(UUID().uuidString.prefix(8))"
        let spec = try Self.load(Self.yaml(label: label, cachePath: cache, output: output))
        #expect(spec.source.type.settings(as: ToySourceSpec.self) == ToySourceSpec(rows: 23, label: label))

        let online = try await RecordedRun(Pipeline(spec: spec))
        #expect(online.summary.succeeded)
        let expected: [JSONValue] = (5..<20).map { ["n": .int(Int64($0)), "text": .string("\(label) \($0)")] }
        #expect(try Self.lines(output) == expected)
        // Page 0 holds 10 rows and the count 23; then pages of 4 up to row 23.
        #expect(online.responses.map(\.startRow) == [0, 10, 14, 18, 22])
        #expect(ToySource.fetched.withLock { $0[label] } == 5)

        // The pages were stored under the key built from the toy fetcher's identity: a
        // cache-only run reads them all without asking the source.
        let offlineSpec = try Self.load(Self.yaml(label: label, cachePath: cache, output: output, policy: "cache-only"))
        let offline = try await RecordedRun(Pipeline(spec: offlineSpec))
        #expect(offline.summary.succeeded)
        #expect(offline.responses.allSatisfy { $0.origin == .cache })
        #expect(try Self.lines(output) == expected)
        #expect(ToySource.fetched.withLock { $0[label] } == 5)

        let key = try CacheKey(spec: spec).text
        #expect(try JSONValue(parsing: key)["request"] == ["type": "toy", "rows": 23, "label": .string(label)])
        #expect(key == (try CacheKey(spec: spec, identity: ToySource(spec: ToySourceSpec(rows: 23, label: label)).identity).text))
    }

    @Test func planShowsItsSettingsAndRequestsWithoutFetching() throws {
        let spec = try Self.load("source: { type: toy, rows: 9, label: planned, pagination: { first-page-size: 5, page-size: 5 } }")
        let plan = try RunPlan(spec: spec, pages: 2).text
        #expect(plan.contains("type: toy"))
        #expect(plan.contains("rows: 9"))
        #expect(plan.contains("label: planned"))
        #expect(plan.contains("MAKE toy rows 0..<5"))
        #expect(plan.contains("MAKE toy rows 5..<9"))
        #expect(ToySource.fetched.withLock { $0["planned"] } == nil)
    }

    @Test func itsKeysAreCheckedLikeABuiltInTypeAndOnlyWhereAdded() {
        #expect {
            _ = try Self.load("source: { type: toy, rows: 3, server: sandbox }")
        } throws: { error in
            "\(error)".contains("'server'")
        }
        #expect {
            _ = try Self.load("source: { type: toy }")
        } throws: { error in
            "\(error)".contains("'rows'")
        }
        #expect {
            _ = try PipelineLoader(environment: [:]).load(yaml: "source: { type: toy, rows: 3 }")
        } throws: { error in
            "\(error)".contains("expected one of liferay-jsonws, liferay-headless, rest, file for 'type'")
        }
    }

    static func lines(_ path: String) throws -> [JSONValue] {
        try JSONValue.parseLines(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }
}
