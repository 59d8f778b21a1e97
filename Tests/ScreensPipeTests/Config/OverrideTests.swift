import Testing
@testable import ScreensPipeCore
import ScreensPipe

@Suite struct OverrideTests {
    let base = """
        source:
          type: liferay-jsonws
          server: sandbox
          rows: { service: /a/b, params: { groupId: 1 } }
          pagination:
            page-size: 25
        cache:
        """

    @Test func overridesReplaceValuesWithTypedScalars() throws {
        let spec = try loadPipeline(
            base,
            overrides: [
                "source.pagination.page-size=100", "source.rows.params.groupId=9223372036854775807",
                "source.rows.params.name='007'", "source.allow-insecure-auth=true", "name=from-cli",
            ])
        #expect(spec.source.pagination.pageSize == 100)
        #expect(spec.source.allowInsecureAuth)
        #expect(spec.name == "from-cli")
        guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else {
            Issue.record("expected a JSON-WS source")
            return
        }
        #expect(jsonws.rows.params["groupId"] == .int(Int64.max))
        #expect(jsonws.rows.params["name"] == .string("007"))
    }

    @Test func overridesCreateMissingMappings() throws {
        let spec = try loadPipeline(
            base, overrides: ["filter.limit=5", "source.retry.attempts=2", "cache.policy=cache-only", "sink.path=out.jsonl"])
        #expect(spec.filter?.limit == 5)
        #expect(spec.source.retry.attempts == 2)
        #expect(spec.cache?.policy == .cacheOnly)
        #expect(spec.sink.destination == .file(path: "out.jsonl"))
    }

    @Test func overrideValuesAreNotInterpolated() throws {
        let spec = try loadPipeline(base, overrides: ["filter.where=name == \"${X}\""])
        #expect(spec.filter?.expression == "name == \"${X}\"")
    }

    @Test func aPathThroughAScalarIsAnErrorNamingTheOverride() {
        #expect(
            configErrors(base, overrides: ["source.type.kind=x"]) == [
                "--set source.type.kind:1:18: cannot set 'source.type.kind': 'source.type' is string 'liferay-jsonws', not a mapping"
            ])
        #expect(configErrors(base, overrides: ["nonsense"]) == ["--set nonsense:1:1: expected key.path=value, found 'nonsense'"])
        #expect(configErrors(base, overrides: ["source..x=1"]) == ["--set source..x:1:1: the key path 'source..x' has an empty part"])
    }

    @Test func errorsInOverriddenValuesPointAtTheOverride() {
        let errors = configErrors(
            base + "\nfilter: { limit: x }",
            overrides: ["source.pagination.page-size=abc", "source.pagenation.prefetch=2"])
        #expect(
            errors == [
                "test.yaml:8:18: expected an integer for 'limit', found string 'x'",
                "--set source.pagination.page-size:1:29: expected an integer for 'page-size', found string 'abc'",
                "--set source.pagenation.prefetch:1:28: unknown key 'pagenation' in source; did you mean 'pagination'?",
            ])
    }
}
