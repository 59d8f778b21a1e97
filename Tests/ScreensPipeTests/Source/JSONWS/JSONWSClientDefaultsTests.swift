import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// What the client adds to a JSON-WS command so it matches the real signatures: the
/// pipeline's locale for the Screens services that take one, and a count command's
/// parameters from the rows command when it gives none.
@Suite struct JSONWSClientDefaultsTests {
    /// The JSON body of page 0's request, as `plan` shows it.
    static func firstBatch(_ yaml: String) throws -> [JSONValue] {
        let spec = try PipelineLoader(environment: [:]).load(yaml: yaml, file: "t.yaml")
        let blueprint = try SourceFactory.makeBlueprint(spec: spec, baseURL: "http://127.0.0.1:1")
        let request = try #require(blueprint.plan(PageRequest(index: 0, pagination: spec.source.pagination)).first)
        let body = try #require(request.body)
        let parsed = try JSONValue(parsing: body)
        return try #require(parsed.arrayValue)
    }

    @Test func theLocaleGoesToTheServicesThatTakeOne() throws {
        let batch = try Self.firstBatch(
            """
            source:
              type: liferay-jsonws
              server: sandbox
              rows: { service: /screens.screensddlrecord/get-ddl-records, params: { ddlRecordSetId: 20501, obc: null } }
            convert: { model: ddl-record, locale: es_ES }
            """)
        let params = try #require(batch.first?["/screens.screensddlrecord/get-ddl-records"])
        #expect(params["locale"] == "es_ES")
        #expect(LiferaySignatures.match(service: "/screens.screensddlrecord/get-ddl-records", params: try #require(params.objectValue)) != nil)
    }

    @Test func aLocaleWrittenInParamsWinsAndOtherServicesGetNone() throws {
        let written = try Self.firstBatch(
            """
            source:
              type: liferay-jsonws
              server: sandbox
              rows: { service: /screens.screensddlrecord/get-ddl-records, params: { ddlRecordSetId: 1, locale: en_US, obc: null } }
            convert: { model: ddl-record, locale: es_ES }
            """)
        #expect(written.first?["/screens.screensddlrecord/get-ddl-records"]?["locale"] == "en_US")
        let bookmarks = try Self.firstBatch(
            """
            source:
              type: liferay-jsonws
              server: sandbox
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
            convert: { model: bookmark, locale: es_ES }
            """)
        #expect(bookmarks.first?["/bookmarks.bookmarksentry/get-entries"]?["locale"] == nil)
    }

    @Test func aCountWithoutParamsCountsTheRowsCommandsList() throws {
        let batch = try Self.firstBatch(
            """
            source:
              type: liferay-jsonws
              server: sandbox
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count }
            """)
        let count = try #require(batch.last?["/bookmarks.bookmarksentry/get-entries-count"]?.objectValue)
        #expect(count == ["groupId": 20143, "folderId": 0])
        #expect(LiferaySignatures.match(service: "/bookmarks.bookmarksentry/get-entries-count", params: count) != nil)
    }
}
