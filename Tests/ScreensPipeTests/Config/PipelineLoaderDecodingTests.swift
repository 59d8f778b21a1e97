import Foundation
import ScreensBus
import Testing
@testable import ScreensPipeCore
import ScreensPipe

@Suite struct PipelineLoaderDecodingTests {
    @Test func fullJSONWSPipelineDecodes() throws {
        let spec = try loadPipeline(
            """
            name: bookmarks
            source:
              type: liferay-jsonws
              server: ${LIFERAY_SERVER:-sandbox}
              auth:
                basic:
                  username: ${LIFERAY_USER:-test@liferay.com}
                  password: ${LIFERAY_PASSWORD:-test}
              rows:  { service: /bookmarks.bookmarksentry/get-entries,       params: { groupId: 20143, folderId: 0 } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
              sort: com.liferay.bookmarks.util.comparator.EntryNameComparator
              pagination: { first-page-size: 50, page-size: 25, prefetch: 4, max-pages: 10000 }
              timeout: 15s
              connect-timeout: 2s
              retry: { attempts: 4, backoff: 200ms, max-backoff: 10s }
              max-response-size: 64MiB
              allow-insecure-auth: true
              ca-file: /etc/ssl/ca.pem
              insecure-skip-tls-verify: false
              headers:
                X-Trace: abc
                X-Api-Key: secret
            convert:
              model: bookmark
              locale: es_ES
              on-invalid: skip
              fields:
                id: entryId
                title: { from: name, localized: true }
                created: { from: createDate, type: date }
                folder: { type: int, default: 0, required: true }
            cache:
              policy: remote-first
              key: "{groupId}-{folderId}"
              ttl: 1h
              path: ./cache.sqlite
            filter:
              where: 'url contains "liferay" and not (name starts-with "tmp")'
              limit: 100
            sink:
              type: file
              path: out.jsonl
              format: events
            """, environment: ["LIFERAY_PASSWORD": "s3cret"])

        #expect(spec.name == "bookmarks")
        #expect(spec.file == "test.yaml")
        let source = spec.source
        guard let jsonws = source.type.settings(as: JSONWSSourceSpec.self) else {
            Issue.record("expected a JSON-WS source, got \(source.type.typeName)")
            return
        }
        #expect(jsonws.rows == ServiceCall(service: "/bookmarks.bookmarksentry/get-entries", params: ["groupId": 20143, "folderId": 0]))
        #expect(jsonws.count == ServiceCall(service: "/bookmarks.bookmarksentry/get-entries-count", params: ["groupId": 20143, "folderId": 0]))
        #expect(jsonws.rows.params.keys == ["groupId", "folderId"])
        #expect(jsonws.sort == "com.liferay.bookmarks.util.comparator.EntryNameComparator")
        #expect(source.server == .sandbox)
        #expect(source.auth == .basic(username: "test@liferay.com", password: "s3cret"))
        #expect(source.pagination == PaginationSpec(firstPageSize: 50, pageSize: 25, prefetch: 4, maxPages: 10_000))
        #expect(source.timeout == .seconds(15))
        #expect(source.connectTimeout == .seconds(2))
        #expect(source.retry == RetrySpec(attempts: 4, backoff: .milliseconds(200), maxBackoff: .seconds(10)))
        #expect(source.maxResponseSize == 64 * 1024 * 1024)
        #expect(source.allowInsecureAuth)
        #expect(source.caFile == "/etc/ssl/ca.pem")
        #expect(!source.insecureSkipTLSVerify)
        #expect(source.headers.map(\.name) == ["X-Trace", "X-Api-Key"])
        // A secret-named header is typed as a secret from the loader on.
        #expect(source.headers.map(\.value) == [.text("abc"), .secret("secret")])

        let convert = try #require(spec.convert)
        #expect(convert.model == .bookmark)
        #expect(convert.locale == "es_ES")
        #expect(convert.onInvalid == .skip)
        let fields = try #require(convert.fields)
        #expect(fields.map(\.name) == ["id", "title", "created", "folder"])
        #expect(fields[0].from == "entryId")
        #expect(fields[0].location == ScreensPipeCore.SourceLocation(file: "test.yaml", line: 28, column: 5))
        #expect(fields[1].from == "name" && fields[1].localized && fields[1].type == nil)
        #expect(fields[2].from == "createDate" && fields[2].type == .date)
        #expect(fields[3].from == "folder" && fields[3].type == .int && fields[3].defaultValue == .int(0) && fields[3].required)

        #expect(spec.cache == CacheSpec(policy: .remoteFirst, key: "{groupId}-{folderId}", ttl: .seconds(3600), path: "./cache.sqlite"))
        let filter = try #require(spec.filter)
        #expect(filter.expression == #"url contains "liferay" and not (name starts-with "tmp")"#)
        // The quote opens at column 10; the expression's first character is at 11.
        #expect(filter.expressionLocation == ScreensPipeCore.SourceLocation(file: "test.yaml", line: 38, column: 11))
        #expect(filter.limit == 100)
        #expect(spec.sink == SinkSpec(destination: .file(path: "out.jsonl"), format: .events))
    }

    /// The full example of a pipeline file, comments and all.
    @Test func designExampleLoads() throws {
        let spec = try PipelineLoader(environment: ["LIFERAY_SERVER": "http://localhost:8080"]).load(
            yaml: """
                name: bookmarks                       # default: the file name without .yaml
                source:
                  type: liferay-jsonws                # liferay-jsonws | liferay-headless | rest
                  server: ${LIFERAY_SERVER:-sandbox}  # base URL, or sandbox
                  auth:                               # optional
                    basic:                            # block style: ${...} is not allowed unquoted in { } flow style
                      username: ${LIFERAY_USER:-test@liferay.com}
                      password: ${LIFERAY_PASSWORD:-test}
                    # or: bearer: ${TOKEN}
                  rows:  { service: /bookmarks.bookmarksentry/get-entries,       params: { groupId: 20143, folderId: 0 } }
                  count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
                  # liferay-headless instead: path: /o/headless-delivery/v1.0/sites/20143/structured-contents
                  pagination: { first-page-size: 50, page-size: 25, prefetch: 4, max-pages: 10000 }
                  timeout: 15s
                  retry: { attempts: 4, backoff: 200ms, max-backoff: 10s }   # 429/5xx/connectivity; honours Retry-After
                  max-response-size: 64MiB
                convert:                              # optional
                  model: bookmark                     # bookmark | web-content | asset | ddl-record
                  locale: es_ES
                  fields:                             # or a mapping for any entity
                    id: entryId
                    title: { from: name, localized: true }
                    created: { from: createDate, type: date }
                cache:                                # optional; no cache section = remote-only without storing
                  policy: remote-first
                  key: "{groupId}-{folderId}"         # optional; default derives from the request
                  ttl: 1h                             # optional
                  path: ./cache.sqlite                # optional
                filter:                               # optional
                  where: 'url contains "liferay" and not (name starts-with "tmp")'
                  limit: 100
                sink:                                 # default: stdout, items
                  type: stdout                        # stdout | file
                  format: items                       # items | events
                """)
        #expect(spec.name == "bookmarks")
        #expect(spec.source.server == .url("http://localhost:8080"))
        #expect(spec.source.auth == .basic(username: "test@liferay.com", password: "test"))
        #expect(spec.convert?.fields?.count == 3)
        #expect(spec.filter?.expressionLocation == ScreensPipeCore.SourceLocation(file: "<string>", line: 30, column: 11))
        #expect(spec.sink == SinkSpec())
    }

    @Test func defaultsApplyWhenSectionsAreOmitted() throws {
        let spec = try loadPipeline(
            """
            source:
              type: liferay-jsonws
              server: http://localhost:8080/
              rows:
                service: /bookmarks.bookmarksfolder/get-folders
            """)
        #expect(spec.name == "test")
        #expect(spec.source.server == .url("http://localhost:8080"))
        #expect(spec.source.auth == nil)
        #expect(spec.source.pagination == PaginationSpec())
        #expect(spec.source.timeout == .seconds(15))
        #expect(spec.source.retry == RetrySpec())
        #expect(spec.source.maxResponseSize == 64 << 20)
        #expect(spec.source.headers.isEmpty)
        #expect(spec.convert == nil && spec.cache == nil && spec.filter == nil)
        #expect(spec.sink == SinkSpec(destination: .stdout, format: .items))
        guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else {
            Issue.record("expected a JSON-WS source")
            return
        }
        #expect(jsonws.rows.params.isEmpty && jsonws.count == nil && jsonws.sort == nil)
    }

    @Test func headlessPipelineDecodes() throws {
        let spec = try loadPipeline(
            """
            name: news
            source:
              type: liferay-headless
              server: https://portal.example.com
              auth:
                bearer: ${TOKEN}
              path: /o/headless-delivery/v1.0/sites/20143/structured-contents
              query:
                sort: dateCreated:desc
                fields: id,title
                flatten: true
            convert:
              locale: en-US
            """, environment: ["TOKEN": "t0ken"])
        #expect(spec.name == "news")
        #expect(spec.source.auth == .bearer(token: "t0ken"))
        #expect(spec.source.server == .url("https://portal.example.com"))
        guard let headless = spec.source.type.settings(as: HeadlessSourceSpec.self) else {
            Issue.record("expected a headless source")
            return
        }
        #expect(headless.path == "/o/headless-delivery/v1.0/sites/20143/structured-contents")
        #expect(
            headless.query == [
                QueryParameter(name: "sort", value: "dateCreated:desc"), QueryParameter(name: "fields", value: "id,title"),
                QueryParameter(name: "flatten", value: "true"),
            ])
        #expect(spec.convert?.locale == "en-US")
    }

    @Test(arguments: [
        ("paginate: offset", RESTPaginationStyle.offset()),
        ("paginate: { style: offset, offset-param: skip, limit-param: take }", .offset(offsetParam: "skip", limitParam: "take")),
        ("paginate: { style: page, page-param: p, size-param: n, first-page: 0 }", .page(pageParam: "p", sizeParam: "n", firstPage: 0)),
        ("paginate: { style: page }", .page()),
        ("paginate: { style: cursor, cursor-param: after, cursor-path: meta.next, size-param: null }",
         .cursor(cursorParam: "after", cursorPath: "meta.next", sizeParam: nil)),
        ("paginate: { style: cursor }", .cursor()),
        ("paginate: { style: next-link, next-path: links.next }", .nextLink(nextPath: "links.next")),
        ("paginate: link-header", .linkHeader),
    ])
    func restPaginationStylesDecode(line: String, expected: RESTPaginationStyle) throws {
        let spec = try loadPipeline(
            """
            source:
              type: rest
              url: https://api.example.com/v1/items
              records: data.items
              total: meta.total
              query: { status: active }
              \(line)
            """)
        guard let rest = spec.source.type.settings(as: RESTSourceSpec.self) else {
            Issue.record("expected a rest source")
            return
        }
        #expect(rest.url == "https://api.example.com/v1/items")
        #expect(rest.records == "data.items")
        #expect(rest.total == "meta.total")
        #expect(rest.query == [QueryParameter(name: "status", value: "active")])
        #expect(rest.paginate == expected)
    }

    @Test func fileSourceAndStdoutSinkDecode() throws {
        let spec = try loadPipeline(
            """
            source:
              type: file
              path: samples/rows.json
              records: items
              pagination: { page-size: 10 }
            sink:
              format: table
            """)
        guard let file = spec.source.type.settings(as: FileSourceSpec.self) else {
            Issue.record("expected a file source")
            return
        }
        #expect(file == FileSourceSpec(path: "samples/rows.json", records: "items"))
        #expect(spec.source.pagination.pageSize == 10)
        #expect(spec.sink == SinkSpec(destination: .stdout, format: .table))
    }

    @Test func paramsKeepYAMLTypesAndExact64BitIntegers() throws {
        let spec = try loadPipeline(
            """
            source:
              type: liferay-jsonws
              server: sandbox
              rows:
                service: /x/get
                params:
                  big: 9223372036854775807
                  small: -9223372036854775808
                  huge: 123456789012345678901234567890
                  ratio: 0.5
                  on: true
                  off: false
                  nothing: null
                  tilde: ~
                  quoted: "42"
                  single: 'true'
                  yes: yes
                  hex: 0x1F
                  nested: { a: 1, b: [x, 2] }
            """)
        guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else {
            Issue.record("expected a JSON-WS source")
            return
        }
        let params = jsonws.rows.params
        #expect(params["big"] == .int(9_223_372_036_854_775_807))
        #expect(params["small"] == .int(Int64.min))
        #expect(params["huge"] == .number("123456789012345678901234567890"))
        #expect(params["ratio"] == .double(0.5))
        #expect(params["on"] == .bool(true))
        #expect(params["off"] == .bool(false))
        #expect(params["nothing"] == .null)
        #expect(params["tilde"] == .null)
        #expect(params["quoted"] == .string("42"))
        #expect(params["single"] == .string("true"))
        #expect(params["yes"] == .string("yes"))
        #expect(params["hex"] == .int(31))
        #expect(params["nested"] == .object(["a": 1, "b": ["x", 2]]))
        #expect(params.keys == ["big", "small", "huge", "ratio", "on", "off", "nothing", "tilde", "quoted", "single", "yes", "hex", "nested"])
    }

    @Test func defaultNameComesFromTheFileName() throws {
        let loader = PipelineLoader(environment: [:])
        let yaml = "source: { type: file, path: a.json }"
        #expect(try loader.load(yaml: yaml).name == "pipeline")
        #expect(try loader.load(yaml: yaml).file == nil)
        #expect(try loader.load(yaml: yaml, file: "pipelines/bookmarks.yml").name == "bookmarks")
        #expect(PipelineLoader.defaultName(file: "/a/b/web-content.yaml") == "web-content")
    }

    @Test func loadsFromAFileOnDisk() throws {
        let directory = "/tmp/screens-pipe-config-tests-\(UInt32.random(in: 0...UInt32.max))"
        let path = "\(directory)/assets.yaml"
        try writeFile(path, "source:\n  type: file\n  path: rows.json\n")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spec = try PipelineLoader(environment: [:]).load(file: path)
        #expect(spec.name == "assets")
        #expect(spec.file == path)
    }

    @Test func missingFileIsOneErrorWithTheReason() {
        do {
            _ = try PipelineLoader(environment: [:]).load(file: "/nonexistent/dir/p.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.errors.count == 1)
            #expect(error.errors.first?.location == nil)
            #expect(error.description == "cannot read /nonexistent/dir/p.yaml: No such file or directory")
        }
    }
}
