import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The seed's Screenlet attributes as a Liferay developer writes them: the server context,
/// `groupId: 0`, each screenlet's validateData, asset classes by name, and a saved Asset
/// Publisher selection. Every mistake is a positioned configuration error.
@Suite struct ScreenletAttributeTests {
    static func jsonws(server: String = "sandbox", _ rest: String) -> String {
        """
        source:
          type: liferay-jsonws
          server: \(server)
        \(rest)
        """
    }

    static func rowsParams(_ spec: PipelineSpec) throws -> JSONObject {
        guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else { throw ScreensPipeError(errors: []) }
        return jsonws.rows.params
    }

    // MARK: - Server context and group 0

    @Test func theServerMayCarryItsContext() throws {
        let spec = try loadPipeline(
            Self.jsonws(
                server: "{ url: 'https://portal.example.com/', company-id: 20099, group-id: 20143 }",
                "  rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 0, folderId: 0 } }"))
        #expect(spec.source.server == .url("https://portal.example.com"))
        #expect(spec.source.serverContext == ServerContext(companyId: 20099, groupId: 20143))
        #expect(try Self.rowsParams(spec)["groupId"] == 20143)
    }

    @Test func aMissingGroupIsTheServerContextsSiteToo() throws {
        let spec = try loadPipeline(
            Self.jsonws(
                server: "{ url: sandbox, group-id: 20144 }",
                """
                  rows: { service: /journal.journalarticle/get-articles, params: { folderId: 0 } }
                  count: { service: /journal.journalarticle/get-articles-count }
                """))
        guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else { return }
        #expect(spec.source.server == .sandbox)
        #expect(jsonws.rows.params["groupId"] == 20144)
        #expect(jsonws.count?.params["groupId"] == 20144)
    }

    @Test func aGivenGroupIsKept() throws {
        let spec = try loadPipeline(
            Self.jsonws(
                server: "{ url: sandbox, group-id: 20144 }",
                "  rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }"))
        #expect(try Self.rowsParams(spec)["groupId"] == 20143)
    }

    @Test func groupZeroWithoutAServerContextSaysHowToFixIt() {
        let errors = configErrors(
            Self.jsonws("  rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 0, folderId: 0 } }"))
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("test.yaml:4:69: Bookmark List Screenlet: /bookmarks.bookmarksentry/get-entries needs a site, and 'groupId' is 0") == true)
        #expect(errors.first?.contains("source.server: { url: ..., group-id: N }") == true)
    }

    @Test func theAssetQueryTakesTheServerContextsSite() throws {
        let spec = try loadPipeline(
            Self.jsonws(
                server: "{ url: sandbox, group-id: 20143 }",
                """
                  rows:
                    service: /screens.screensassetentry/get-asset-entries
                    params: { assetEntryQuery: { $type: com.liferay.asset.kernel.service.persistence.AssetEntryQuery, classNameIds: [20109] }, locale: en_US }
                """))
        let params = try Self.rowsParams(spec)
        #expect(params["assetEntryQuery.groupIds"] == 20143)
        #expect(params["+assetEntryQuery"] == "com.liferay.asset.kernel.service.persistence.AssetEntryQuery")
    }

    @Test func serverContextKeysAreChecked() {
        let errors = configErrors(Self.jsonws(server: "{ company-id: -1, gruop-id: 2 }", "  rows: { service: /a/b }"))
        #expect(errors.contains("test.yaml:3:11: missing required key 'url' in source.server"))
        #expect(errors.contains("test.yaml:3:29: unknown key 'gruop-id' in source.server; did you mean 'group-id'?"))
        #expect(errors.contains { $0.hasPrefix("test.yaml:3:25: 'company-id' must be between 1 and") })
    }

    // MARK: - validateData

    @Test func theBookmarkListNeedsAFolder() {
        let errors = configErrors(
            Self.jsonws("  rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143 } }"))
        #expect(
            errors == [
                "test.yaml:4:67: Bookmark List Screenlet: /bookmarks.bookmarksentry/get-entries needs 'folderId', the bookmark folder; 0 is the site's root folder; add it to source.rows.params"
            ])
    }

    @Test func theWebContentListNeedsAFolderInTheCountToo() {
        let errors = configErrors(
            Self.jsonws(
                """
                  rows: { service: /journal.journalarticle/get-articles, params: { groupId: 20143, folderId: 0 } }
                  count: { service: /journal.journalarticle/get-articles-count, params: { groupId: 20143 } }
                """))
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("test.yaml:5:73: Web Content List Screenlet: /journal.journalarticle/get-articles-count needs 'folderId'") == true)
    }

    @Test func theDDLListNeedsARecordSetAndTakesTheScreenletsName() throws {
        let missing = configErrors(
            Self.jsonws("  rows: { service: /screens.screensddlrecord/get-ddl-records, params: { ddlRecordSetId: 0, obc: null } }"))
        #expect(missing.count == 1)
        #expect(missing.first?.contains("needs 'ddlRecordSetId', the dynamic data list's record set id (undefined-recordset)") == true)
        let spec = try loadPipeline(
            Self.jsonws("  rows: { service: /screens.screensddlrecord/get-ddl-records, params: { recordSetId: 20501, obc: null } }"))
        let params = try Self.rowsParams(spec)
        #expect(params["ddlRecordSetId"] == 20501)
        #expect(params["recordSetId"] == nil)
    }

    @Test func theAssetListNeedsAClass() {
        let errors = configErrors(
            Self.jsonws(
                """
                  rows:
                    service: /screens.screensassetentry/get-asset-entries
                    params: { +assetEntryQuery: X, assetEntryQuery.groupIds: 20143, locale: en_US }
                """))
        #expect(errors.count == 1)
        #expect(errors.first?.contains("lists no asset class (undefined-classname)") == true)
        #expect(errors.first?.contains("source.classes: [BookmarksEntry, JournalArticle]") == true)
    }

    @Test func servicesNoScreenletCallsAreLeftAlone() throws {
        let spec = try loadPipeline(Self.jsonws("  rows: { service: /blogs.blogsentry/get-group-entries, params: { groupId: 0 } }"))
        #expect(try Self.rowsParams(spec)["groupId"] == 0)
    }

    // MARK: - Asset classes by name

    @Test func classesTakeShortAndQualifiedNames() throws {
        let spec = try loadPipeline(
            Self.jsonws(
                """
                  classes: [BookmarksEntry, com.liferay.journal.model.JournalArticle, BookmarksEntry]
                  rows: { service: /screens.screensassetentry/get-asset-entries, params: { +assetEntryQuery: X, assetEntryQuery.groupIds: 20143, locale: en_US } }
                """))
        guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else { return }
        #expect(jsonws.classNames == ["com.liferay.bookmarks.model.BookmarksEntry", "com.liferay.journal.model.JournalArticle"])
    }

    @Test func anUnknownClassSuggestsTheClosestName() {
        let errors = configErrors(
            Self.jsonws(
                """
                  classes: [BookmarkEntry, "not a class"]
                  rows: { service: /screens.screensassetentry/get-asset-entries, params: { +assetEntryQuery: X, assetEntryQuery.groupIds: 20143, locale: en_US } }
                """))
        #expect(errors.count == 2)
        #expect(errors.first?.hasPrefix("test.yaml:4:13: unknown asset class 'BookmarkEntry'") == true)
        #expect(errors.first?.hasSuffix("did you mean 'BookmarksEntry'?") == true)
        #expect(errors.last?.hasPrefix("test.yaml:4:28: unknown asset class 'not a class'") == true)
    }

    @Test func classesAreForAssetListsOnlyAndNotBesideIds() {
        let bookmarks = configErrors(
            Self.jsonws(
                """
                  classes: [BookmarksEntry]
                  rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
                """))
        #expect(bookmarks == ["test.yaml:4:3: 'classes' applies to asset lists (/screens.screensassetentry/get-asset-entries, /assetentry/get-entries), not to /bookmarks.bookmarksentry/get-entries"])
        let both = configErrors(
            Self.jsonws(
                """
                  classes: [BookmarksEntry]
                  rows: { service: /screens.screensassetentry/get-asset-entries, params: { +assetEntryQuery: X, assetEntryQuery.groupIds: 1, assetEntryQuery.classNameIds: 2, locale: en_US } }
                """))
        #expect(both.count == 1)
        #expect(both.first?.contains("give the asset classes once: 'classes' or assetEntryQuery.classNameIds, not both") == true)
    }

    // MARK: - portlet-item-name

    @Test func aSavedSelectionNeedsTheServerContext() throws {
        let spec = try loadPipeline(
            Self.jsonws(
                server: "{ url: sandbox, company-id: 20099, group-id: 20143 }",
                """
                  portlet-item-name: Front page picks
                  pagination: { first-page-size: 30 }
                """))
        guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else { return }
        #expect(jsonws.portletItem == PortletItemSelection(name: "Front page picks", companyId: 20099, groupId: 20143, max: 30))
        #expect(jsonws.rows.params == ["companyId": 20099, "groupId": 20143, "portletItemName": "Front page picks"])
        let errors = configErrors(Self.jsonws("  portlet-item-name: Front page picks\n  rows: { service: /a/b }"))
        #expect(errors.contains("test.yaml:5:3: key 'rows' does not apply with 'portlet-item-name': the saved Asset Publisher configuration is the query, loaded through /screens.screensassetentry/get-asset-entries"))
        #expect(errors.contains { $0.hasPrefix("test.yaml:4:22: 'portlet-item-name' needs the portal's company id") })
        #expect(errors.contains { $0.hasPrefix("test.yaml:4:22: 'portlet-item-name' needs a site") })
    }

    @Test func aSavedSelectionMayNameItsSite() throws {
        let spec = try loadPipeline(
            Self.jsonws(
                server: "{ url: sandbox, company-id: 20099 }",
                "  portlet-item-name: { name: Latest web content, group-id: 20144 }"))
        guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else { return }
        #expect(jsonws.portletItem?.groupId == 20144)
        #expect(jsonws.portletItem?.max == 50)
    }

    // MARK: - Described and loaded back

    @Test("the attributes survive the spec's description: it loads back to the same spec", arguments: [
        """
          server: { url: 'https://portal.example.com', company-id: 20099, group-id: 20143 }
          classes: [JournalArticle, com.example.Custom]
          start-param: assetEntryQuery.start
          end-param: assetEntryQuery.end
          rows: { service: /screens.screensassetentry/get-asset-entries, params: { +assetEntryQuery: X, locale: en_US } }
        """,
        """
          server: { url: sandbox, company-id: 20099 }
          portlet-item-name: { name: 'Front page picks', group-id: 20144 }
        """,
    ])
    func describedAndLoadedBack(source: String) throws {
        let spec = try loadPipeline("source:\n  type: liferay-jsonws\n" + source)
        let text = spec.redactedDescription()
        let reloaded = try loadPipeline(text)
        #expect(reloaded.redactedDescription() == text)
        guard let original = spec.source.type.settings(as: JSONWSSourceSpec.self), let again = reloaded.source.type.settings(as: JSONWSSourceSpec.self) else {
            Issue.record("expected JSON-WS sources")
            return
        }
        #expect(again == original)
        #expect(reloaded.source.serverContext == spec.source.serverContext)
    }

    // MARK: - Headless first-page-size

    @Test func aHeadlessFirstPageSizeThatCannotApplyIsAnError() throws {
        let errors = configErrors(
            """
            source:
              type: liferay-headless
              server: sandbox
              path: /o/headless-delivery/v1.0/sites/20143/structured-contents
              pagination: { first-page-size: 50, page-size: 25 }
            """)
        #expect(
            errors == [
                "test.yaml:5:17: 'first-page-size' does not apply to source type 'liferay-headless': the server takes one pageSize for every page, so page 0 has page-size (25) rows too; remove it, or set page-size"
            ])
        // Equal sizes say nothing wrong.
        _ = try loadPipeline(
            """
            source:
              type: liferay-headless
              server: sandbox
              path: /o/headless-delivery/v1.0/sites/20143/structured-contents
              pagination: { first-page-size: 25, page-size: 25 }
            """)
    }
}
