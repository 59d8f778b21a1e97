import Foundation
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// Pipeline files are untrusted input (generated, shared, downloaded): each of these once
/// crashed the loader with a stack overflow, took tens of seconds, or needed gigabytes. Each
/// is now a configuration error or a fast load.
@Suite struct HostileConfigTests {
    @Test func fortyThousandNestedDefaultsAreAnErrorNotAStackOverflow() {
        let scalar = String(repeating: "${A:-", count: 40_000) + "x" + String(repeating: "}", count: 40_000)
        let errors = configErrors("source: { type: file, path: \"\(scalar)\" }")
        #expect(errors == ["test.yaml:1:29: references nested more than 32 levels deep in defaults"])
    }

    @Test func nestingUpToTheLimitExpands() throws {
        let depth = Interpolator.maximumNesting
        let scalar = String(repeating: "${A:-", count: depth) + "x" + String(repeating: "}", count: depth)
        #expect(try Interpolator(environment: [:]).expand(scalar) == "x")
        let deeper = String(repeating: "${A:-", count: depth + 1) + "x" + String(repeating: "}", count: depth + 1)
        #expect(throws: Interpolator.Failure.self) { try Interpolator(environment: [:]).expand(deeper) }
    }

    @Test func aSetPathOfTwentyThousandPartsIsAnError() {
        let path = Array(repeating: "a", count: 20_000).joined(separator: ".")
        let errors = configErrors(minimalSource, overrides: ["\(path)=1"])
        #expect(errors.count == 1)
        #expect(errors.first?.hasSuffix("the key path has more than 32 parts") == true, "\(errors)")
    }

    @Test func aSetPathAtTheLimitIsApplied() throws {
        let path = (["source", "rows", "params"] + Array(repeating: "a", count: Override.maximumPathParts - 3)).joined(separator: ".")
        let spec = try loadPipeline(
            "source: { type: liferay-jsonws, server: sandbox, rows: { service: /a/b } }", overrides: ["\(path)=1"])
        guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else { Issue.record("not JSON-WS"); return }
        #expect(jsonws.rows.params["a"] != nil)
    }

    @Test func deepYAMLNestingIsAnError() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let errors = configErrors("source: \(deep)")
        #expect(errors.first?.contains("nesting deeper than 256 levels") == true, "\(errors.prefix(1))")
    }

    /// 100,000 keys load in linear time (30 s for 50,000 before: every append copied the
    /// mapping). The bound here is loose so a loaded machine cannot flake it; the closing
    /// figure is measured with `time screens-pipe validate`.
    @Test func aHundredThousandKeysLoadInLinearTime() throws {
        var yaml = "source:\n  type: liferay-jsonws\n  server: sandbox\n  rows:\n    service: /a/b\n    params:\n"
        for index in 0..<100_000 { yaml += "      k\(index): \(index)\n" }
        let clock = ContinuousClock()
        let start = clock.now
        let spec = try loadPipeline(yaml)
        #expect(clock.now - start < .seconds(20))
        guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else { Issue.record("not JSON-WS"); return }
        #expect(jsonws.rows.params.count == 100_000)
        #expect(jsonws.rows.params["k99999"] == .int(99_999))
        #expect(JSONWSWireFormat.flatten(jsonws.rows.params).count == 100_000)
    }

    @Test func duplicateKeysAmongManyAreStillFound() {
        var yaml = "source:\n  type: liferay-jsonws\n  server: sandbox\n  rows:\n    service: /a/b\n    params:\n"
        for index in 0..<1000 { yaml += "      k\(index): \(index)\n" }
        yaml += "      k500: again\n"
        #expect(configErrors(yaml) == ["test.yaml:1007:7: duplicate key 'k500' in source.rows.params"])
    }

    /// One 1 MiB scalar aliased 3,000 times once needed 1.5 GB: aliases are capped by the
    /// text they copy, not only by their node count.
    @Test func aliasesAreCappedByExpandedBytes() {
        let big = String(repeating: "x", count: 1 << 20)
        var yaml = "big: &big \(big)\nsource: { type: file, path: rows.json }\nmany:\n"
        for _ in 0..<3000 { yaml += "  - *big\n" }
        let errors = configErrors(yaml)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("aliases expand to more than 4 MiB of text") == true, "\(errors)")
    }

    @Test func smallAliasesStillWork() throws {
        let spec = try loadPipeline(
            """
            source:
              type: liferay-jsonws
              server: sandbox
              rows: { service: /a/get-entries, params: &params { groupId: 20143, folderId: 0 } }
              count: { service: /a/get-entries-count, params: *params }
            """)
        guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else { Issue.record("not JSON-WS"); return }
        #expect(jsonws.count?.params == jsonws.rows.params)
    }
}
