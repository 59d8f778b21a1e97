import Foundation
import ScreensBus
@testable import ScreensPipeCore
import ScreensPipe
import Testing

/// Cache keys keep their bytes across releases: a changed key makes every user's cache
/// miss once. These texts were produced before source types moved into folders of their own.
@Suite struct CacheKeyStabilityTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let sources: [(String, String)] = [
        ("jsonws", """
            source:
              type: liferay-jsonws
              server: https://portal.example.com/
              auth: { basic: { username: test@liferay.com, password: pw } }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0, p_auth: tok, entryQuery: { $type: X, classNameIds: [1, 2] } } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count }
              sort: com.liferay.Comparator
              headers: { X-Trace: abc }
            convert: { locale: es_ES }
            cache: {}
            """),
        ("headless", """
            source:
              type: liferay-headless
              server: https://portal.example.com
              auth: { bearer: tok3n }
              path: /o/headless-delivery/v1.0/sites/20143/structured-contents
              query: { sort: 'title:asc', filter: "x eq 'y'", api_key: k, tenant: { secret: t } }
              pagination: { page-size: 10 }
            cache: {}
            """),
        ("rest-cursor", """
            source:
              type: rest
              server: http://api.example.com
              url: /items?access_token=abc
              records: data.items
              total: data.total
              paginate: { style: cursor, cursor-param: c, cursor-path: meta.next, size-param: null }
              query: { q: ünïcode }
            cache: {}
            """),
        ("rest-page", """
            source: { type: rest, url: 'https://api.example.com/v1/items', paginate: page }
            cache: {}
            """),
        ("file", """
            source: { type: file, path: samples/offline/bookmarks.json, records: data }
            cache: {}
            """),
        ("template", """
            source:
              type: liferay-headless
              server: sandbox
              path: /o/x
              query: { site: '20143', token: { secret: s3 }, password: pw }
            cache: { key: '{site}-{password}' }
            """),
    ]

    /// The key texts of the sources above and of every sample pipeline, as produced before
    /// the move (see the suite's comment). A sample pipeline whose request changes on purpose
    /// (assets.yaml took `classes:`, structured-contents.yaml `flatten`) changes its key: the
    /// failure message prints the new text to paste here.
    static let expected: [String: String] = [
        "jsonws": #"{"server":"https://portal.example.com","user":"test@liferay.com","headers":"sha256:9047c990a3b5a38d","request":{"type":"liferay-jsonws","rows":{"service":"/bookmarks.bookmarksentry/get-entries","params":{"entryQuery":{"$type":"X","classNameIds":[1,2]},"folderId":0,"groupId":20143,"p_auth":"sha256:a08f2d06837472e7"}},"count":{"service":"/bookmarks.bookmarksentry/get-entries-count","params":{"entryQuery":{"$type":"X","classNameIds":[1,2]},"folderId":0,"groupId":20143,"p_auth":"sha256:a08f2d06837472e7"}}},"locale":"es_ES","sort":"com.liferay.Comparator","firstPageSize":50,"pageSize":25}"#,
        "headless": #"{"server":"https://portal.example.com","user":"bearer:sha256:9e795c29a8c362ac","request":{"type":"liferay-headless","path":"/o/headless-delivery/v1.0/sites/20143/structured-contents","query":[["sort","title:asc"],["filter","x eq 'y'"],["api_key","sha256:8254c329a92850f6"],["tenant","sha256:e3b98a4da31a127d"]]},"locale":null,"sort":"title:asc","firstPageSize":50,"pageSize":10}"#,
        "rest-cursor": #"{"server":"http://api.example.com","user":"anonymous","request":{"type":"rest","url":"/items?access_token=sha256:ba7816bf8f01cfea","query":[["q","ünïcode"]],"records":"data.items","total":"data.total","paginate":"cursor c meta.next "},"locale":null,"sort":null,"firstPageSize":50,"pageSize":25}"#,
        "rest-page": #"{"server":"none","user":"anonymous","request":{"type":"rest","url":"https://api.example.com/v1/items","query":[],"records":null,"total":null,"paginate":"page page per_page 1"},"locale":null,"sort":null,"firstPageSize":50,"pageSize":25}"#,
        "file": #"{"server":"none","user":"anonymous","request":{"type":"file","path":"samples/offline/bookmarks.json","records":"data"},"locale":null,"sort":null,"firstPageSize":50,"pageSize":25}"#,
        "template": #"{"server":"sandbox","user":"anonymous","key":"20143-sha256:49cff356a0dadb2d","locale":null,"sort":null,"firstPageSize":50,"pageSize":25}"#,
        "asset-publisher.yaml": #"{"server":"sandbox","user":"test@liferay.com","request":{"type":"liferay-jsonws","rows":{"service":"/screens.screensassetentry/get-asset-entries","params":{"companyId":20099,"groupId":20143,"portletItemName":"Front page picks"}},"portletItemName":"Front page picks","max":50},"locale":"en_US","sort":null,"firstPageSize":50,"pageSize":25}"#,
        "assets.yaml": #"{"server":"sandbox","user":"test@liferay.com","request":{"type":"liferay-jsonws","rows":{"service":"/screens.screensassetentry/get-asset-entries","params":{"+assetEntryQuery":"com.liferay.asset.kernel.service.persistence.AssetEntryQuery","assetEntryQuery.groupIds":20143,"locale":"en_US"}},"count":{"service":"/assetentry/get-entries-count","params":{"+entryQuery":"com.liferay.asset.kernel.service.persistence.AssetEntryQuery","entryQuery.groupIds":20143}},"classes":["com.liferay.journal.model.JournalArticle","com.liferay.bookmarks.model.BookmarksEntry","com.liferay.document.library.kernel.model.DLFileEntry","com.liferay.blogs.model.BlogsEntry"]},"locale":"en_US","sort":null,"firstPageSize":20,"pageSize":20}"#,
        "bookmarks.yaml": #"{"server":"sandbox","user":"test@liferay.com","request":{"type":"liferay-jsonws","rows":{"service":"/bookmarks.bookmarksentry/get-entries","params":{"folderId":0,"groupId":20143}},"count":{"service":"/bookmarks.bookmarksentry/get-entries-count","params":{"folderId":0,"groupId":20143}}},"locale":null,"sort":null,"firstPageSize":50,"pageSize":25}"#,
        "comments.yaml": #"{"server":"sandbox","user":"test@liferay.com","request":{"type":"liferay-jsonws","rows":{"service":"/screens.screenscomment/get-comments","params":{"className":"com.liferay.journal.model.JournalArticle","classPK":40001}},"count":{"service":"/screens.screenscomment/get-comments-count","params":{"className":"com.liferay.journal.model.JournalArticle","classPK":40001}}},"locale":null,"sort":null,"firstPageSize":50,"pageSize":25}"#,
        "structured-content-comments.yaml": #"{"server":"sandbox","user":"test@liferay.com","request":{"type":"liferay-headless","path":"/o/headless-delivery/v1.0/structured-contents/40001/comments","query":[]},"locale":null,"sort":null,"firstPageSize":25,"pageSize":25}"#,
        "folder-images.yaml": #"{"server":"sandbox","user":"test@liferay.com","request":{"type":"liferay-headless","path":"/o/headless-delivery/v1.0/document-folders/20400/documents","query":[]},"locale":null,"sort":null,"firstPageSize":20,"pageSize":20}"#,
        "images.yaml": #"{"server":"sandbox","user":"test@liferay.com","request":{"type":"liferay-jsonws","rows":{"service":"/dlapp/get-file-entries","params":{"folderId":20400,"mimeTypes":["image/png","image/jpeg","image/gif"],"obc":null,"repositoryId":20143}},"count":{"service":"/dlapp/get-file-entries-count","params":{"folderId":20400,"mimeTypes":["image/png","image/jpeg","image/gif"],"repositoryId":20143}}},"locale":null,"sort":null,"firstPageSize":20,"pageSize":10}"#,
        "ddl-records.yaml": #"{"server":"sandbox","user":"test@liferay.com","request":{"type":"liferay-jsonws","rows":{"service":"/screens.screensddlrecord/get-ddl-records","params":{"ddlRecordSetId":20501,"locale":"en_US","obc":null}},"count":{"service":"/screens.screensddlrecord/get-ddl-records-count","params":{"ddlRecordSetId":20501}}},"locale":"en_US","sort":null,"firstPageSize":10,"pageSize":10}"#,
        "oauth2-structured-contents.yaml": #"{"server":"sandbox","user":"oauth2:sha256:983b1c7b84ace199","request":{"type":"liferay-headless","path":"/o/headless-delivery/v1.0/sites/20143/structured-contents","query":[["flatten","true"]]},"locale":null,"sort":null,"firstPageSize":25,"pageSize":25}"#,
        "oauth2-password-structured-contents.yaml": #"{"server":"sandbox","user":"oauth2:sha256:4b0c1c4796b796c3","request":{"type":"liferay-headless","path":"/o/headless-delivery/v1.0/sites/20143/structured-contents","query":[["flatten","true"]]},"locale":null,"sort":null,"firstPageSize":25,"pageSize":25}"#,
        "rest-auto.yaml": #"{"server":"sandbox","user":"anonymous","request":{"type":"rest","url":"/rest/bookmarks/cursor","query":[],"records":null,"total":null,"paginate":"auto"},"locale":null,"sort":null,"firstPageSize":50,"pageSize":25}"#,
        "offline-bookmarks.yaml": #"{"server":"none","user":"anonymous","request":{"type":"file","path":"<pipelines>/../samples/offline/bookmarks.json","records":null},"locale":null,"sort":null,"firstPageSize":4,"pageSize":3}"#,
        "rest-github.yaml": #"{"server":"sandbox","user":"anonymous","request":{"type":"rest","url":"/rest/bookmarks/github","query":[],"records":null,"total":null,"paginate":"link-header","paginate-options":"per_page  0  "},"locale":null,"sort":null,"firstPageSize":50,"pageSize":30}"#,
        "rest-stripe.yaml": #"{"server":"sandbox","user":"anonymous","request":{"type":"rest","url":"/rest/bookmarks/stripe","query":[],"records":"data","total":null,"paginate":"cursor starting_after data[-1].entryId limit","has-more":"has_more"},"locale":null,"sort":null,"firstPageSize":50,"pageSize":20}"#,
        "rest-bookmarks.yaml": #"{"server":"sandbox","user":"anonymous","request":{"type":"rest","url":"/rest/bookmarks/cursor","query":[],"records":"results","total":null,"paginate":"cursor cursor next_cursor limit"},"locale":null,"sort":null,"firstPageSize":25,"pageSize":25}"#,
        "incremental-structured-contents.yaml": #"{"server":"sandbox","user":"test@liferay.com","request":{"type":"liferay-headless","path":"/o/headless-delivery/v1.0/sites/20143/structured-contents","query":[["flatten","true"]]},"locale":null,"sort":null,"firstPageSize":25,"pageSize":25}"#,
        "structured-contents.yaml": #"{"server":"sandbox","user":"test@liferay.com","request":{"type":"liferay-headless","path":"/o/headless-delivery/v1.0/sites/20143/structured-contents","query":[["flatten","true"]]},"locale":"es_ES","sort":null,"firstPageSize":25,"pageSize":25}"#,
        "web-content.yaml": #"{"server":"sandbox","user":"test@liferay.com","request":{"type":"liferay-jsonws","rows":{"service":"/journal.journalarticle/get-articles","params":{"folderId":0,"groupId":20143}},"count":{"service":"/journal.journalarticle/get-articles-count","params":{"folderId":0,"groupId":20143}}},"locale":"es_ES","sort":"com.liferay.journal.util.comparator.ArticleTitleComparator","firstPageSize":50,"pageSize":25}"#
    ]

    @Test func keysKeepTheirBytes() throws {
        for (name, yaml) in Self.sources {
            let spec = try PipelineLoader(environment: [:]).load(yaml: yaml)
            #expect(try CacheKey(spec: spec).text == Self.expected[name], "\(name)")
        }
        let directory = Self.packageRoot.appendingPathComponent("pipelines").path
        // Pipelines that write to a portal (sink type liferay) cache no pages.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted().filter {
            $0.hasSuffix(".yaml") && (try? PipelineLoader(environment: [:]).load(file: "\(directory)/\($0)"))?.sink.liferay == nil
        }
        #expect(files.count == 20)
        for file in files {
            let spec = try PipelineLoader(environment: [:]).load(file: "\(directory)/\(file)")
            // A fan-out has one key per list, built from the parent values (pinned apart by
            // FanOutRunTests.cacheKeysPerChild): there is no one key to pin here.
            if spec.source.fansOut { continue }
            // A file source's path is resolved against the pipeline file's directory, so the
            // key holds where this checkout is; the pinned text has it as a placeholder.
            let key = try CacheKey(spec: spec).text.replacingOccurrences(of: directory + "/", with: "<pipelines>/")
            #expect(key == Self.expected[file], "\(file): \(key)")
        }
    }

    /// A run's key comes from the identity of what its source type builds (an HTTP fetcher
    /// reports its wire format's settings), and equals the key of the spec.
    @Test func aRunKeysPagesByTheFetchersIdentity() throws {
        for (name, yaml) in Self.sources where name != "template" {
            let spec = try PipelineLoader(environment: [:]).load(yaml: yaml)
            let fetcher = try SourceFactory.makeBlueprint(spec: spec, baseURL: "http://127.0.0.1:1")
            let identity: String
            switch fetcher {
            case .fetcher(let source): identity = source.identity
            case .http(let wire, _): identity = wire.spec.identity
            }
            #expect(try CacheKey(spec: spec, identity: identity).text == Self.expected[name], "\(name)")
        }
    }
}
