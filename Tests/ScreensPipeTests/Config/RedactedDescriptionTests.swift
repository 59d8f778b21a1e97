import Testing
@testable import ScreensPipeCore
import ScreensPipe

@Suite struct RedactedDescriptionTests {
    @Test func secretsNeverAppear() throws {
        let spec = try loadPipeline(
            """
            source:
              type: rest
              server: https://robot:hunter2@api.example.com
              url: /v1/items?access_token=tok-123&status=open
              auth:
                bearer: bearer-xyz
              headers:
                X-Api-Key: key-456
              query: { api_key: key-789, status: open }
              paginate: offset
            """)
        let text = spec.redactedDescription()
        for secret in ["hunter2", "robot", "tok-123", "bearer-xyz", "key-456", "key-789"] {
            #expect(!text.contains(secret), "\(secret) leaked into \(text)")
        }
        #expect(text.contains("server: https://<redacted>@api.example.com"))
        #expect(text.contains("url: /v1/items?access_token=<redacted>&status=open"))
        #expect(text.contains("X-Api-Key: <redacted>"))
        #expect(text.contains("status: open"))
    }

    @Test func describesTheWholeSpecWithDefaults() throws {
        let spec = try loadPipeline(
            """
            name: bookmarks
            source:
              type: liferay-jsonws
              server: sandbox
              auth: { basic: { username: test@liferay.com, password: pw } }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0, password: pw, tag: "007" } }
              timeout: 90s
              retry: { backoff: 1500ms }
            convert:
              model: bookmark
              fields: { id: entryId, title: { from: name, localized: true } }
            cache: { ttl: 1h30m }
            filter: { where: 'name starts-with "a: b"', limit: 3 }
            """)
        #expect(
            spec.redactedDescription() == """
                name: bookmarks
                source:
                  type: liferay-jsonws
                  server: sandbox
                  auth:
                    basic:
                      username: test@liferay.com
                      password: <redacted>
                  rows:
                    service: /bookmarks.bookmarksentry/get-entries
                    params:
                      groupId: 20143
                      folderId: 0
                      tag: '007'
                      password: <redacted>
                  pagination:
                    first-page-size: 50
                    page-size: 25
                    prefetch: 4
                    max-pages: 10000
                  timeout: 90s
                  connect-timeout: 5s
                  retry:
                    attempts: 4
                    backoff: 1500ms
                    max-backoff: 10s
                  max-response-size: 64MiB
                  allow-insecure-auth: false
                  insecure-skip-tls-verify: false
                convert:
                  model: bookmark
                  fields:
                    id: entryId
                    title:
                      from: name
                      localized: true
                  on-invalid: fail
                cache:
                  policy: remote-first
                  ttl: 90m
                filter:
                  where: 'name starts-with "a: b"'
                  limit: 3
                sink:
                  type: stdout
                  format: items

                """)
    }

    @Test func descriptionWithoutSecretsLoadsBackToTheSameSpec() throws {
        let original = try loadPipeline(
            """
            source:
              type: rest
              url: "https://api.example.com/items?q=a #b"
              records: "data: items"
              paginate: { style: cursor, size-param: null }
              max-response-size: 1000
            convert: { fields: { n: { from: "x.y", default: [1, "2", true, null] }, m: { from: z, type: int, default: 7 } } }
            sink: { path: "out file.jsonl", format: events }
            """)
        let text = original.redactedDescription()
        let reloaded = try loadPipeline(text)
        #expect(reloaded.redactedDescription() == text)
        guard let rest = reloaded.source.type.settings(as: RESTSourceSpec.self) else {
            Issue.record("expected a rest source")
            return
        }
        #expect(rest.url == "https://api.example.com/items?q=a #b")
        #expect(rest.records == "data: items")
        #expect(rest.paginate == .cursor(sizeParam: nil))
        #expect(reloaded.source.maxResponseSize == 1000)
        #expect(reloaded.convert?.fields?.first?.defaultValue == [1, "2", true, nil])
        #expect(reloaded.sink == SinkSpec(destination: .file(path: "out file.jsonl"), format: .events))
    }

    @Test func quotingKeepsStringsStrings() {
        #expect(YAMLTextWriter.quoted("plain text") == "plain text")
        #expect(YAMLTextWriter.quoted("true") == "'true'")
        #expect(YAMLTextWriter.quoted("12") == "'12'")
        #expect(YAMLTextWriter.quoted("") == "''")
        #expect(YAMLTextWriter.quoted("it's: x") == "'it''s: x'")
        #expect(YAMLTextWriter.quoted("line\nbreak") == "\"line\\nbreak\"")
        #expect(YAMLTextWriter.quoted("-dash") == "'-dash'")
    }
}
