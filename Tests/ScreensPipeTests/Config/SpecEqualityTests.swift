import ScreensBus
import ScreensPipe
import Testing

/// Specs are values: two loads of one file are equal, and any changed setting (the
/// source type's own included) makes them differ.
@Suite struct SpecEqualityTests {
    static let yaml = """
        name: equal
        source:
          type: rest
          server: http://api.example.com
          url: /items
          paginate: offset
          headers: { X-Trace: abc, X-Api-Key: k }
        convert: { locale: es_ES }
        """

    static func load(_ yaml: String = yaml, overrides: [String] = []) throws -> PipelineSpec {
        try PipelineLoader(environment: [:]).load(yaml: yaml, overrides: overrides)
    }

    @Test func twoLoadsOfOneFileAreEqual() throws {
        #expect(try Self.load() == Self.load())
        #expect(Set([try Self.load(), try Self.load()]).count == 1)
    }

    @Test func everyChangedSettingMakesThemDiffer() throws {
        let base = try Self.load()
        for override in [
            "source.url=/other", "source.paginate=page", "source.headers.X-Trace=abd", "convert.locale=en_US",
            "source.pagination.page-size=7", "name=other",
        ] {
            #expect(try Self.load(overrides: [override]) != base, "\(override)")
        }
        let headless = try Self.load("source: { type: liferay-headless, server: sandbox, path: /o/x }")
        #expect(headless.source.type != base.source.type)
        #expect(headless.source.type.typeName == "liferay-headless")
        #expect(base.source.type.settings(as: RESTSourceSpec.self)?.url == "/items")
        #expect(base.source.type.settings(as: HeadlessSourceSpec.self) == nil)
    }

    @Test func headersKeepTheirOrderAndSecrecy() throws {
        let headers = try Self.load().source.headers
        #expect(headers == [HeaderSpec(name: "X-Trace", value: .text("abc")), HeaderSpec(name: "X-Api-Key", value: .secret("k"))])
    }
}
