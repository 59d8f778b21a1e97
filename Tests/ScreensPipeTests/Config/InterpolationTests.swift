import Testing
@testable import ScreensPipeCore
import ScreensPipe

@Suite struct InterpolationTests {
    let environment = ["HOST": "portal.example.com", "EMPTY": "", "GROUP": "20143", "USER": "ana"]

    private func expand(_ text: String) throws(Interpolator.Failure) -> String {
        try Interpolator(environment: environment).expand(text)
    }

    @Test func setVariablesDefaultsAndDollarEscapes() throws {
        #expect(try expand("https://${HOST}:8080") == "https://portal.example.com:8080")
        #expect(try expand("${MISSING:-sandbox}") == "sandbox")
        #expect(try expand("${EMPTY:-fallback}") == "fallback")
        #expect(try expand("${EMPTY-fallback}") == "")
        #expect(try expand("${MISSING-fallback}") == "fallback")
        #expect(try expand("${HOST:-unused}") == "portal.example.com")
        #expect(try expand("${MISSING:-${USER}}") == "ana")
        #expect(try expand("cost: $$5") == "cost: $5")
        #expect(try expand("$$$${HOST}") == "$${HOST}")
        #expect(try expand("a $ b $x $1 $") == "a $ b $x $1 $")
        #expect(try expand("${GROUP}${GROUP}") == "2014320143")
    }

    @Test func substitutedValuesAreNotExpandedAgain() throws {
        let interpolator = Interpolator(environment: ["A": "${B}", "B": "no"])
        #expect(try interpolator.expand("${A}") == "${B}")
    }

    @Test func failuresExplainThemselves() {
        #expect(throws: Interpolator.Failure.self) { try expand("${MISSING}") }
        #expect(failure("${MISSING}") == "environment variable 'MISSING' is not set")
        #expect(failure("${EMPTY:?set EMPTY to your token}") == "EMPTY: set EMPTY to your token")
        #expect(failure("${MISSING?}") == "MISSING: unset")
        #expect(failure("${EMPTY:?}") == "EMPTY: unset or empty")
        #expect(failure("${HOST") == "unterminated '${' in '${HOST'")
        #expect(failure("${1ABC}") == "invalid reference '${1ABC}': expected ${NAME}, ${NAME:-default} or ${NAME:?message}")
        #expect(failure("${HOST:+x}") == "invalid reference '${HOST:+x}': expected ${NAME}, ${NAME:-default} or ${NAME:?message}")
    }

    private func failure(_ text: String) -> String? {
        do {
            _ = try expand(text)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func valuesAreInterpolatedAfterParsingAndKeepTheirYAMLType() throws {
        let spec = try loadPipeline(
            """
            # ${NOT_SET} in a comment is never looked at
            name: ${NAME:-fallback-name}   # nor here: ${ALSO_NOT_SET}
            source:
              type: liferay-jsonws
              server: https://${HOST}
              rows:
                service: /a/b
                params: { groupId: "${GROUP}" }
              count:
                service: /a/c
                params:
                  folderId: ${GROUP}
              pagination:
                page-size: ${GROUP}
            """, environment: environment)
        #expect(spec.name == "fallback-name")
        #expect(spec.source.server == .url("https://portal.example.com"))
        #expect(spec.source.pagination.pageSize == 20143)
        guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else {
            Issue.record("expected a JSON-WS source")
            return
        }
        // A quoted reference stays a string; a plain one is typed after expansion.
        #expect(jsonws.rows.params["groupId"] == .string("20143"))
        #expect(jsonws.count?.params["folderId"] == .int(20143))
    }

    @Test func unsetVariableIsAnErrorAtTheScalar() {
        let errors = configErrors(
            """
            source:
              type: liferay-headless
              server: sandbox
              path: /o/x
              auth:
                bearer: ${TOKEN:?set TOKEN to an OAuth2 token}
              pagination:
                page-size: ${PAGE_SIZE}
            """)
        #expect(
            errors == [
                "test.yaml:6:13: TOKEN: set TOKEN to an OAuth2 token",
                // Reported once, not again as "expected an integer".
                "test.yaml:8:16: environment variable 'PAGE_SIZE' is not set",
            ])
    }

    /// An unset variable leaves its value unchecked and nothing else: the model, fields and
    /// filter are checked all the same, for `validate` (which warns) and `run` (which refuses).
    @Test func unsetVariablesDoNotHideTheOtherErrors() {
        let yaml = """
            source:
              type: liferay-headless
              server: sandbox
              path: /o/x
              auth:
                bearer: ${TOKEN}
              pagination:
                page-size: ${PAGE_SIZE:?the page size}
            convert: { model: bookmark }
            filter: { where: 'urll contains "x"' }
            """
        let loader = PipelineLoader(environment: [:])
        let check = loader.check(yaml: yaml, file: "test.yaml")
        #expect(check.unsetVariables.map(\.name) == ["TOKEN", "PAGE_SIZE"])
        #expect(check.errors.count == 1)
        #expect(check.errors.first?.description.hasPrefix("test.yaml:10:19: 'urll' is not a field of the bookmark model; did you mean 'url'?") == true, "\(check.errors)")
        do {
            _ = try loader.loadChecked(yaml: yaml, file: "test.yaml")
            Issue.record("loaded with unset variables")
        } catch {
            #expect(error.errors.map(\.description).map { $0.prefix(while: { $0 != ";" }) } == [
                "test.yaml:6:13: environment variable 'TOKEN' is not set",
                "test.yaml:8:16: PAGE_SIZE: the page size",
                "test.yaml:10:19: 'urll' is not a field of the bookmark model",
            ])
        }
        // Set, the file has only the filter's error.
        let set = PipelineLoader(environment: ["TOKEN": "t", "PAGE_SIZE": "10"]).check(yaml: yaml, file: "test.yaml")
        #expect(set.unsetVariables.isEmpty)
        #expect(set.errors == check.errors)
    }
}
