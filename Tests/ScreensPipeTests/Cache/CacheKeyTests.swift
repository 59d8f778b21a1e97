import ScreensBus
import ScreensPipe
import Testing

@Suite struct CacheKeyTests {
    private func key(_ spec: PipelineSpec) throws -> String { try CacheKey(spec: spec).text }

    private let base = CacheFixtures.bookmarksSpec()

    @Test func theSameListHasTheSameKey() throws {
        #expect(try key(base) == key(CacheFixtures.bookmarksSpec()))
        // Param order is how the file was written, not a different list.
        #expect(try key(base) == key(CacheFixtures.bookmarksSpec(params: ["folderId": 0, "groupId": 20143])))
        // The password is not part of who the user is.
        #expect(
            try key(base)
                == key(CacheFixtures.bookmarksSpec(auth: .basic(username: "test@liferay.com", password: "other"))))
    }

    @Test func everythingThatChangesTheAnswerChangesTheKey() throws {
        let variants: [(String, PipelineSpec)] = [
            ("locale", CacheFixtures.bookmarksSpec(locale: "es_ES")),
            ("other locale", CacheFixtures.bookmarksSpec(locale: "en_US")),
            ("user", CacheFixtures.bookmarksSpec(auth: .basic(username: "bruno@liferay.com", password: "secret"))),
            ("anonymous", CacheFixtures.bookmarksSpec(auth: nil)),
            ("bearer", CacheFixtures.bookmarksSpec(auth: .bearer(token: "token-a"))),
            ("other bearer", CacheFixtures.bookmarksSpec(auth: .bearer(token: "token-b"))),
            ("params", CacheFixtures.bookmarksSpec(params: ["groupId": 20143, "folderId": 1])),
            ("sort", CacheFixtures.bookmarksSpec(sort: "com.liferay.bookmarks.util.comparator.EntryNameComparator")),
            ("first page size", CacheFixtures.bookmarksSpec(pagination: PaginationSpec(firstPageSize: 5, pageSize: 3))),
            ("page size", CacheFixtures.bookmarksSpec(pagination: PaginationSpec(firstPageSize: 4, pageSize: 4))),
            ("server", CacheFixtures.bookmarksSpec(server: .url("http://127.0.0.1:8080"))),
            ("headers", CacheFixtures.bookmarksSpec(headers: [HeaderSpec(name: "Cookie", value: "JSESSIONID=1")])),
        ]
        var keys = [try key(base)]
        for (name, spec) in variants {
            let text = try key(spec)
            #expect(!keys.contains(text), "\(name) must change the key")
            keys.append(text)
        }
    }

    @Test func theSandboxIsNamedNotAddressed() throws {
        let text = try key(base)
        #expect(text.contains(#""server":"sandbox""#))
        #expect(!text.contains("127.0.0.1"))
        // A trailing slash is the same server.
        #expect(
            try key(CacheFixtures.bookmarksSpec(server: .url("http://portal:8080/")))
                == key(CacheFixtures.bookmarksSpec(server: .url("http://portal:8080"))))
    }

    @Test func noSecretIsInTheKey() throws {
        let bearer = try key(CacheFixtures.bookmarksSpec(auth: .bearer(token: "s3cr3t-token")))
        #expect(!bearer.contains("s3cr3t"))
        #expect(bearer.contains("bearer:sha256:"))
        let basic = try key(base)
        #expect(basic.contains("test@liferay.com"))
        #expect(!basic.contains("secret"))
        let headers = try key(CacheFixtures.bookmarksSpec(headers: [HeaderSpec(name: "X-Api-Key", value: "k3y-value")]))
        #expect(!headers.contains("k3y-value"))
    }

    @Test func theKeyIsReadableCanonicalJSON() throws {
        let text = try key(CacheFixtures.bookmarksSpec(locale: "es_ES"))
        #expect(
            text
                == #"{"server":"sandbox","user":"test@liferay.com","request":{"type":"liferay-jsonws","rows":{"service":"/bookmarks.bookmarksentry/get-entries","params":{"folderId":0,"groupId":20143}},"count":{"service":"/bookmarks.bookmarksentry/get-entries-count","params":{"folderId":0,"groupId":20143}}},"locale":"es_ES","sort":null,"firstPageSize":4,"pageSize":3}"#
        )
        #expect(try JSONValue(parsing: text)["locale"] == "es_ES")
    }

    @Test func aTemplateKeyIsExpandedFromTheParams() throws {
        let spec = CacheFixtures.bookmarksSpec(
            params: ["groupId": 20143, "folderId": 7, "entryQuery": ["classNameIds": 20109]],
            cache: CacheSpec(key: "{groupId}-{folderId}/{entryQuery.classNameIds}"))
        let text = try key(spec)
        #expect(text.contains(#""key":"20143-7/20109""#))
        #expect(!text.contains("request"))
        // Locale and user still separate entries under a template.
        var spanish = spec
        spanish.convert?.locale = "es_ES"
        #expect(try key(spanish) != text)
    }

    @Test(arguments: ["{groupId}-{folder}", "{groupId", "groupId}", "{}"])
    func aBadTemplateIsAConfigurationError(template: String) {
        let spec = CacheFixtures.bookmarksSpec(cache: CacheSpec(key: template))
        #expect {
            _ = try CacheKey(spec: spec)
        } throws: { error in
            guard let error = error as? ScreensPipeError else { return false }
            return error.code == .configuration && error.message.contains(template)
        }
    }

    @Test func anUnknownPlaceholderNamesTheKnownOnes() {
        let spec = CacheFixtures.bookmarksSpec(cache: CacheSpec(key: "{folder}"))
        do {
            _ = try CacheKey(spec: spec)
            Issue.record("{folder} is not a parameter")
        } catch {
            #expect(error.message.contains("unknown placeholder {folder}"))
            #expect(error.message.contains("known: groupId, folderId"))
        }
    }

    @Test func headlessAndRESTKeysHoldPathQueryAndSort() throws {
        func headless(_ query: [QueryParameter]) -> PipelineSpec {
            PipelineSpec(
                name: "contents",
                source: SourceSpec(
                    type: .liferayHeadless(HeadlessSourceSpec(path: "/o/headless-delivery/v1.0/sites/20143/structured-contents", query: query)),
                    server: .sandbox))
        }
        let plain = try key(headless([]))
        let sorted = try key(headless([QueryParameter(name: "sort", value: "title:asc")]))
        #expect(plain != sorted)
        #expect(sorted.contains(#""sort":"title:asc""#))
        #expect(plain.contains("structured-contents"))

        let rest = PipelineSpec(
            name: "rest",
            source: SourceSpec(type: .rest(RESTSourceSpec(url: "/items", records: "data", paginate: .offset())), server: .url("http://api")))
        var cursor = rest
        cursor.source.type = .rest(RESTSourceSpec(url: "/items", records: "data", paginate: .cursor()))
        #expect(try key(rest) != key(cursor))
    }

    @Test func sha256MatchesTheStandardVectors() {
        let emptyDigest = try? CacheKey(spec: CacheFixtures.bookmarksSpec(auth: .bearer(token: "")))
        // FIPS 180-4 test vectors, seen through the token digest prefix.
        #expect(emptyDigest?.text.contains("bearer:sha256:e3b0c44298fc1c14") == true)
        let abc = try? CacheKey(spec: CacheFixtures.bookmarksSpec(auth: .bearer(token: "abc")))
        #expect(abc?.text.contains("bearer:sha256:ba7816bf8f01cfea") == true)
        let long = try? CacheKey(
            spec: CacheFixtures.bookmarksSpec(auth: .bearer(token: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")))
        #expect(long?.text.contains("bearer:sha256:248d6a61d20638b8") == true)
    }

    /// A JSON-WS parameter written `{ secret: value }` is a secret in a `cache.key` template
    /// too, whatever its name: the key holds its digest, never the value.
    @Test func aMarkedSecretParameterIsADigestInAKeyTemplate() throws {
        let spec = try PipelineLoader(environment: [:]).load(yaml: """
            source:
              type: liferay-jsonws
              server: sandbox
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0, tenant: { secret: acme-SECRET } } }
            cache: { key: '{groupId}-{tenant}' }
            """)
        let text = try key(spec)
        #expect(!text.contains("acme-SECRET"))
        #expect(text.contains(#""key":"20143-sha256:"#))
    }
}
