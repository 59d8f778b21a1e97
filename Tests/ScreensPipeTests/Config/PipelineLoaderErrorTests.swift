import Foundation
import Testing
@testable import ScreensPipeCore
import ScreensPipe

// Helpers shared by the config suites.

/// Loads `yaml` as the file `test.yaml` with a fixed environment.
func loadPipeline(_ yaml: String, environment: [String: String] = [:], overrides: [String] = []) throws(ScreensPipeError) -> PipelineSpec {
    try PipelineLoader(environment: environment).load(yaml: yaml, file: "test.yaml", overrides: overrides)
}

/// The error lines loading `yaml` produces; records an issue when it loads.
func configErrors(
    _ yaml: String, environment: [String: String] = [:], overrides: [String] = [],
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> [String] {
    do {
        _ = try loadPipeline(yaml, environment: environment, overrides: overrides)
        Issue.record("expected configuration errors", sourceLocation: sourceLocation)
        return []
    } catch {
        for error in error.errors {
            #expect(error.code == .configuration, sourceLocation: sourceLocation)
        }
        return error.errors.map(\.description)
    }
}

/// A minimal valid source to put other sections beside.
let minimalSource = """
    source:
      type: file
      path: rows.json
    """

/// Writes `text` to `path`, creating its directory.
func writeFile(_ path: String, _ text: String) throws {
    let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}

@Suite struct PipelineLoaderErrorTests {
    @Test func unknownKeySuggestsTheClosestAllowedKey() {
        let errors = configErrors(
            """
            source:
              type: liferay-jsonws
              server: sandbox
              rows: { service: /a/b }
              pagenation: { page-size: 10 }
            """)
        #expect(errors == ["test.yaml:5:3: unknown key 'pagenation' in source; did you mean 'pagination'?"])
    }

    @Test func unknownKeyWithoutACloseMatchHasNoHint() {
        #expect(configErrors(minimalSource + "\nzebra: 1") == ["test.yaml:4:1: unknown key 'zebra' in the top level"])
        #expect(configErrors(minimalSource + "\nsinc: {}") == ["test.yaml:4:1: unknown key 'sinc' in the top level; did you mean 'sink'?"])
    }

    @Test func wrongTypesNameTheKeyAndWhatWasFound() {
        let errors = configErrors(
            """
            source:
              type: file
              path: rows.json
              pagination:
                page-size: abc
                prefetch: "4"
                first-page-size: 2.5
                max-pages: [1]
            filter:
              limit: true
            """)
        #expect(
            errors == [
                "test.yaml:5:16: expected an integer for 'page-size', found string 'abc'",
                "test.yaml:6:15: expected an integer for 'prefetch', found string '4'",
                "test.yaml:7:22: expected an integer for 'first-page-size', found number 2.5",
                "test.yaml:8:16: expected an integer for 'max-pages', found a sequence",
                "test.yaml:10:10: expected an integer for 'limit', found boolean true",
            ])
    }

    @Test func rangesAreChecked() {
        let errors = configErrors(
            """
            source:
              type: liferay-jsonws
              server: sandbox
              rows: { service: /a/b }
              pagination: { first-page-size: 0, page-size: -1, prefetch: 65, max-pages: 0 }
              retry: { attempts: 0 }
            """)
        #expect(
            errors == [
                "test.yaml:5:34: 'first-page-size' must be between 1 and 1000000, found 0",
                "test.yaml:5:48: 'page-size' must be between 1 and 1000000, found -1",
                "test.yaml:5:62: 'prefetch' must be between 1 and 64, found 65",
                "test.yaml:5:77: 'max-pages' must be between 1 and 10000000, found 0",
                "test.yaml:6:22: 'attempts' must be between 1 and 100, found 0",
            ])
    }

    @Test func missingRequiredKeys() {
        #expect(configErrors("name: x\n") == ["test.yaml:1:1: missing required key 'source' in the top level"])
        #expect(
            configErrors("source:\n  type: liferay-jsonws\n") == [
                "test.yaml:2:3: missing required key 'server' in source of type 'liferay-jsonws'",
                "test.yaml:2:3: missing required key 'rows' in source of type 'liferay-jsonws'",
            ])
        #expect(
            configErrors("source:\n  type: rest\n  url: https://x.example/items\n") == [
                "test.yaml:2:3: missing required key 'paginate' in source of type 'rest'"
            ])
        #expect(configErrors("source:\n  type: file\n") == ["test.yaml:2:3: missing required key 'path' in source of type 'file'"])
        #expect(configErrors(minimalSource + "\nsink: { type: file }") == ["test.yaml:4:7: missing required key 'path' in sink of type 'file'"])
        #expect(configErrors("source: { type: rest, paginate: offset, url: /items }") == ["test.yaml:1:46: 'url' is relative ('/items'), so the source needs a 'server'"])
    }

    @Test func badEnumValuesListTheAllowedOnes() {
        let errors = configErrors(
            """
            source:
              type: resty
            cache:
              policy: remote-frist
            sink:
              format: xml
            """)
        #expect(
            errors == [
                "test.yaml:2:9: expected one of liferay-jsonws, liferay-headless, rest, file for 'type', found 'resty'; did you mean 'rest'?",
                "test.yaml:4:11: expected one of remote-only, cache-only, remote-first, cache-first, cache-and-remote for 'policy', found 'remote-frist'; did you mean 'remote-first'?",
                "test.yaml:6:11: expected one of items, events, table, csv, tsv for 'format', found 'xml'",
            ])
    }

    @Test func keysOfAnotherSourceTypeNameTheType() {
        let errors = configErrors(
            """
            source:
              type: rest
              url: https://api.example.com/items
              paginate: { style: offset, cursor-path: next }
              rows: { service: /a/b }
            """)
        #expect(
            errors == [
                "test.yaml:4:30: key 'cursor-path' does not apply to paginate style 'offset'; it is only for paginate style cursor",
                "test.yaml:5:3: key 'rows' does not apply to source type 'rest'; it is only for source type liferay-jsonws",
            ])
        #expect(
            configErrors(minimalSource + "\n  server: sandbox") == [
                "test.yaml:4:3: key 'server' does not apply to source type 'file'; it is only for source types liferay-jsonws, liferay-headless, rest"
            ])
    }

    @Test func booleansAreTrueOrFalseOnly() {
        let errors = configErrors(
            """
            source:
              type: liferay-headless
              server: sandbox
              path: /o/x
              allow-insecure-auth: yes
              insecure-skip-tls-verify: 1
            """)
        #expect(
            errors == [
                "test.yaml:5:24: expected true or false for 'allow-insecure-auth', found 'yes' (YAML 1.1 booleans are not accepted; write true or false)",
                "test.yaml:6:29: expected true or false for 'insecure-skip-tls-verify', found integer 1",
            ])
    }

    @Test func durationsAndSizesAreValidated() {
        let errors = configErrors(
            """
            source:
              type: liferay-headless
              server: ftp://x
              path: /o/x
              timeout: 15 seconds
              connect-timeout: 0s
              max-response-size: 64MB!
            """)
        #expect(
            errors == [
                "test.yaml:3:11: expected an http:// or https:// URL or 'sandbox' for 'server', found 'ftp://x'",
                "test.yaml:5:12: expected a duration (such as 15s, 200ms, 1h30m; units ms, s, m, h) for 'timeout', found string '15 seconds'",
                "test.yaml:6:20: 'connect-timeout' must be longer than zero",
                "test.yaml:7:22: expected a size (such as 64MiB, 512KiB, 1MB; units B, KB, MB, GB, KiB, MiB, GiB) for 'max-response-size', found string '64MB!'",
            ])
    }

    @Test func allErrorsOfAFileAreReportedSortedByPosition() {
        let errors = configErrors(
            """
            sink: { format: xml, type: stdout, path: a }
            filter: { limit: 0, whre: "a" }
            source:
              type: liferay-jsonws
              server: sandbox
              rows: { service: no-slash, params: [1] }
            """)
        #expect(
            errors == [
                "test.yaml:1:17: expected one of items, events, table, csv, tsv for 'format', found 'xml'",
                "test.yaml:1:36: key 'path' does not apply to sink type 'stdout'; it is only for sink type file",
                "test.yaml:2:18: 'limit' must be at least 1, found 0",
                "test.yaml:2:21: unknown key 'whre' in filter; did you mean 'where'?",
                "test.yaml:6:20: a JSON-WS service starts with '/' (such as /bookmarks.bookmarksentry/get-entries), found 'no-slash'",
                "test.yaml:6:38: expected a mapping for 'params', found a sequence",
            ])
    }

    @Test func authAndHeadersAreValidated() {
        let errors = configErrors(
            """
            source:
              type: liferay-headless
              server: sandbox
              path: /o/x
              auth:
                basic: { username: a }
              headers:
                "Bad Header": x
            """)
        #expect(
            errors == [
                "test.yaml:6:12: missing required key 'password' in source.auth.basic",
                "test.yaml:8:5: 'Bad Header' is not a valid HTTP header name",
            ])
        #expect(
            configErrors("source: { type: liferay-headless, server: sandbox, path: /o/x, auth: { bearer: t, basic: {} } }") == [
                "test.yaml:1:70: auth takes one of 'basic', 'bearer', 'oauth2' or 'cookie', not 'basic' and 'bearer'"
            ])
    }

    @Test func fieldEntriesAreValidated() {
        let errors = configErrors(
            minimalSource + """

            convert:
              fields:
                title: { form: name, type: text }
                tags: [a]
            """)
        #expect(
            errors == [
                "test.yaml:6:14: unknown key 'form' in convert.fields.title; did you mean 'from'?",
                "test.yaml:6:32: expected one of string, int, number, bool, date for 'type', found 'text'",
                "test.yaml:7:11: expected a source path or a mapping for field 'tags', found a sequence",
            ])
    }

    @Test func duplicateKeysAreErrors() {
        #expect(
            configErrors(minimalSource + "\n  path: other.json") == ["test.yaml:4:3: duplicate key 'path' in source"])
    }

    @Test func topLevelMustBeAMapping() {
        #expect(configErrors("- a\n- b\n") == ["test.yaml:1:1: a pipeline file is a mapping of keys (name, source, ...), found a sequence"])
    }

    @Test func errorsCarryLocationsAndTheConfigurationCode() throws {
        do {
            _ = try loadPipeline("source: { type: file }")
            Issue.record("expected an error")
        } catch {
            let first = try #require(error.errors.first)
            #expect(first.code == .configuration)
            #expect(first.location == ScreensPipeCore.SourceLocation(file: "test.yaml", line: 1, column: 9))
        }
    }
}

@Suite struct FilterLocationTests {
    @Test func plainExpressionStartsAtItsFirstCharacter() throws {
        let spec = try loadPipeline(minimalSource + "\nfilter:\n  where: name == \"x\"\n")
        #expect(spec.filter?.expressionLocation == ScreensPipeCore.SourceLocation(file: "test.yaml", line: 5, column: 10))
        #expect(spec.filter?.expression == "name == \"x\"")
    }

    @Test func doubleQuotedExpressionStartsPastTheQuote() throws {
        let spec = try loadPipeline(minimalSource + "\nfilter: { where: \"a > 1\" }\n")
        #expect(spec.filter?.expressionLocation == ScreensPipeCore.SourceLocation(file: "test.yaml", line: 4, column: 19))
    }

    @Test func blockExpressionIsLocatedAtTheScalar() throws {
        let spec = try loadPipeline(minimalSource + "\nfilter:\n  where: >\n    a > 1\n    and b\n")
        #expect(spec.filter?.expression == "a > 1 and b\n")
        #expect(spec.filter?.expressionLocation?.line == 5)
    }

    @Test func overriddenExpressionIsLocatedAtTheOverride() throws {
        let spec = try loadPipeline(minimalSource, overrides: ["filter.where=a == 1"])
        #expect(spec.filter?.expressionLocation == ScreensPipeCore.SourceLocation(file: "--set filter.where", line: 1, column: 14))
    }
}

@Suite struct UnreadableFileTests {
    @Test func aDirectoryIsNotAPipelineFile() {
        do {
            _ = try PipelineLoader(environment: [:]).load(file: "/tmp")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "cannot read /tmp: Is a directory")
        }
    }
}

/// A `query` or `params` entry named like a paging parameter would be overridden on every
/// page (or fight the paginator): refused with its position, for every source type.
@Suite struct PagingParameterOverrideTests {
    @Test(arguments: [
        ("source: { type: rest, server: 'http://127.0.0.1:1', url: /x, paginate: offset, query: { limit: 5, q: a } }",
         "test.yaml:1:89: 'limit' is a paging parameter: the paginate style sets it on every page; remove it from source.query"),
        ("source: { type: rest, server: 'http://127.0.0.1:1', url: /x, paginate: { style: page, size-param: size }, query: { size: 5 } }",
         "test.yaml:1:116: 'size' is a paging parameter: the paginate style sets it on every page; remove it from source.query"),
        ("source: { type: liferay-headless, server: sandbox, path: /o/x, query: { pageSize: 5 } }",
         "test.yaml:1:73: 'pageSize' is a paging parameter: the liferay-headless source sets it on every page; remove it from source.query"),
        ("source: { type: liferay-jsonws, server: sandbox, rows: { service: /a/b, params: { groupId: 1, start: 0 } } }",
         "test.yaml:1:95: 'start' is a paging parameter: the liferay-jsonws source sets it on every page; remove it from source.rows.params"),
    ])
    func refused(yaml: String, message: String) {
        #expect(configErrors(yaml) == [message])
    }

    @Test func otherNamesAndCursorlessStylesAreFine() throws {
        _ = try loadPipeline("source: { type: rest, server: 'http://127.0.0.1:1', url: /x, paginate: link-header, query: { limit: 5 } }")
        _ = try loadPipeline("source: { type: rest, server: 'http://127.0.0.1:1', url: /x, paginate: offset, query: { q: a } }")
    }
}
