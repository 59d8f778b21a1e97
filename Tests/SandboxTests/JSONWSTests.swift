import Foundation
@testable import Sandbox
import ScreensJSON
import Testing

@Suite("JSON-WS invoke")
struct JSONWSTests {
    static let entries = "/bookmarks.bookmarksentry/get-entries"

    @Test("a batch answers an array: page 0 of 50 and the count of 73")
    func batchPageAndCount() async throws {
        try await withSandbox { client, _ in
            let body = try client.invoke("""
                [{"\(Self.entries)":{"groupId":20143,"folderId":0,"start":0,"end":50}},
                 {"\(Self.entries)-count":{"groupId":20143,"folderId":0}}]
                """).expect(200).json()
            let results = try #require(body.arrayValue)
            #expect(results.count == 2)
            #expect(results[0].arrayValue?.count == 50)
            #expect(results[1] == .int(73))
        }
    }

    @Test("a single command object answers a single result, not an array")
    func singleCommand() async throws {
        try await withSandbox { client, _ in
            let count = try client.invoke(#"{"\#(Self.entries)-count":{"groupId":20143,"folderId":0}}"#).expect(200).json()
            #expect(count == .int(73))
        }
    }

    @Test("start/end slice end-exclusive; pages 0..50 and 50..75 cross the boundary and cover the list once")
    func slicingAcrossTheFirstPageBoundary() async throws {
        try await withSandbox { client, _ in
            func page(_ start: Int, _ end: Int) throws -> [Int64] {
                try client.invoke(#"{"\#(Self.entries)":{"groupId":20143,"folderId":0,"start":\#(start),"end":\#(end)}}"#)
                    .expect(200).json().entryIds
            }
            let all = try page(-1, -1)
            #expect(all.count == 73)
            #expect(Set(all).count == 73)
            let first = try page(0, 50)
            let second = try page(50, 75)
            #expect(first.count == 50)
            #expect(second.count == 23)
            #expect(first + second == all)
            #expect(try page(73, 98).isEmpty)
            #expect(try page(10, 5).isEmpty)
            #expect(try page(49, 51) == Array(all[49..<51]))
        }
    }

    @Test("64-bit ids beyond 2^53 come out exactly, in the body bytes")
    func exactIds() async throws {
        try await withSandbox { client, _ in
            let response = try client.invoke(#"{"\#(Self.entries)":{"groupId":20143,"folderId":0,"start":-1,"end":-1}}"#).expect(200)
            #expect(response.text.contains("\"entryId\":9007199254740993,"))
            #expect(response.text.contains("\"entryId\":9223372036854775807,"))
            let ids = try response.json().entryIds
            #expect(ids[10] == 9_007_199_254_740_993)
            #expect(ids[49] == 9_007_199_254_740_995)
            #expect(ids[50] == Int64.max)
        }
    }

    @Test("hostile strings arrive intact: emoji, CJK, RTL, quotes, backslashes, control characters")
    func hostileStrings() async throws {
        try await withSandbox { client, _ in
            let response = try client.invoke(#"{"\#(Self.entries)":{"groupId":20143,"folderId":0,"start":-1,"end":-1}}"#).expect(200)
            #expect(response.text.contains(#"Control \u0001 and \u001f chars\ttab"#))
            let names = Set(try response.json().arrayValue!.compactMap { $0["name"]?.stringValue })
            #expect(names.contains("🚀 Launch notes 👩‍👩‍👧 ✨"))
            #expect(names.contains("東京の書籍 — 中文 한국어"))
            #expect(names.contains("مرحبا بالعالم — שלום עולם"))
            #expect(names.contains(#"He said "hello" and 'bye'"#))
            #expect(names.contains(#"C:\Program Files\Liferay\bin"#))
            #expect(names.contains("Control \u{01} and \u{1F} chars\ttab"))
        }
    }

    @Test("bookmarks of a subfolder and the generated folder is absent without the generator")
    func folders() async throws {
        try await withSandbox { client, _ in
            let count = try client.invoke(#"{"\#(Self.entries)-count":{"groupId":20143,"folderId":20200}}"#).expect(200).json()
            #expect(count == .int(40))
            let empty = try client.invoke(#"{"\#(Self.entries)":{"groupId":20143,"folderId":20201,"start":0,"end":50}}"#).expect(200).json()
            #expect(empty == .array([]))
            let generated = try client.invoke(#"{"\#(Self.entries)-count":{"groupId":20143,"folderId":1000000}}"#).expect(404).json()
            #expect(generated["error"]?["type"] == "com.liferay.bookmarks.exception.NoSuchFolderException")
        }
    }

    @Test("bookmarks: +orderByComparator by class name, descending as the no-argument constructors; unknown classes are ClassNotFoundException")
    func bookmarksComparators() async throws {
        try await withSandbox { client, _ in
            func entries(_ comparator: String, _ extra: String = "") throws -> [JSONValue] {
                try client.invoke(
                    #"{"\#(Self.entries)":{"groupId":20143,"folderId":0,"start":-1,"end":-1,"+orderByComparator":"com.liferay.bookmarks.util.comparator.\#(comparator)"\#(extra)}}"#
                ).expect(200).json().arrayValue ?? []
            }
            let stored = try client.invoke(#"{"\#(Self.entries)":{"groupId":20143,"folderId":0,"start":-1,"end":-1}}"#).expect(200).json().arrayValue ?? []
            #expect(stored.count == 73)

            let byModified = try entries("EntryModifiedDateComparator")
            let modified = byModified.compactMap { $0["modifiedDate"]?.int64Value }
            #expect(modified.count == 73 && modified == modified.sorted(by: >))
            #expect(Set(byModified.compactMap { $0["entryId"]?.int64Value }) == Set(stored.compactMap { $0["entryId"]?.int64Value }))
            #expect(try entries("EntryModifiedDateComparator", #","orderByComparator.ascending":true"#).map { $0["entryId"] } == byModified.map { $0["entryId"] })

            let names = try entries("EntryNameComparator").compactMap { $0["name"]?.stringValue?.lowercased() }
            #expect(names == names.sorted(by: >))

            let unknown = try client.invoke(
                #"{"\#(Self.entries)":{"groupId":20143,"folderId":0,"start":0,"end":5,"+orderByComparator":"com.liferay.bookmarks.util.comparator.Nope"}}"#
            ).expect(500).json()
            #expect(unknown["error"]?["type"] == "java.lang.ClassNotFoundException")
        }
    }

    @Test("the generated folder serves EntryModifiedDateComparator newest first without materialising it")
    func generatedNewestFirst() async throws {
        try await withSandbox(.init { $0.generatedRows = 5_000 }) { client, _ in
            let page = try client.invoke(
                #"{"\#(Self.entries)":{"groupId":20143,"folderId":1000000,"start":0,"end":3,"+orderByComparator":"com.liferay.bookmarks.util.comparator.EntryModifiedDateComparator"}}"#
            ).expect(200).json().arrayValue ?? []
            #expect(page.compactMap { $0["description"]?.stringValue } == ["Row 5000 of 5000", "Row 4999 of 5000", "Row 4998 of 5000"])
            let byName = try client.invoke(
                #"{"\#(Self.entries)":{"groupId":20143,"folderId":1000000,"start":0,"end":3,"+orderByComparator":"com.liferay.bookmarks.util.comparator.EntryNameComparator"}}"#)
            #expect(byName.response?.status != 200)
        }
    }

    @Test("journal articles: count, folder, obc title and create-date sorting (descending, as the no-argument constructors), obc null keeps the stored order")
    func journalArticles() async throws {
        try await withSandbox { client, _ in
            let service = "/journal.journalarticle/get-articles"
            #expect(try client.invoke(#"{"\#(service)-count":{"groupId":20143,"folderId":0}}"#).expect(200).json() == .int(60))
            #expect(try client.invoke(#"{"\#(service)-count":{"groupId":20143,"folderId":20300}}"#).expect(200).json() == .int(13))

            func articles(_ sort: String) throws -> [JSONValue] {
                try client.invoke(#"{"\#(service)":{"groupId":20143,"folderId":0,"start":-1,"end":-1,\#(sort)}}"#)
                    .expect(200).json().arrayValue ?? []
            }
            let stored = try articles(#""obc":null"#)
            #expect(stored.count == 60)
            #expect(stored.first?["articleId"] == "40001")

            // JSON-WS builds the comparator with its no-argument constructor, `this(false)`:
            // descending, ties by article id in the same direction.
            let byTitle = try articles(#""+obc":"com.liferay.journal.util.comparator.ArticleTitleComparator""#)
            let expected = stored.sorted {
                (Self.englishTitle($0).lowercased(), $0["articleId"]?.stringValue ?? "")
                    > (Self.englishTitle($1).lowercased(), $1["articleId"]?.stringValue ?? "")
            }
            #expect(byTitle.map { $0["articleId"] } == expected.map { $0["articleId"] })
            #expect(byTitle.map { $0["articleId"] } != stored.map { $0["articleId"] })

            let byDate = try articles(#""+obc":"com.liferay.journal.util.comparator.ArticleCreateDateComparator""#)
            let dates = byDate.compactMap { $0["createDate"]?.int64Value }
            #expect(dates == dates.sorted(by: >))
            #expect(dates != stored.compactMap { $0["createDate"]?.int64Value })

            // The portal cannot set the comparator's private `ascending` field: the inner
            // parameter is ignored, whichever value it has.
            for ascending in ["true", "false"] {
                let withInner = try articles(#""+obc":"com.liferay.journal.util.comparator.ArticleCreateDateComparator","obc.ascending":\#(ascending)"#)
                #expect(withInner.compactMap { $0["createDate"]?.int64Value } == dates)
            }

            let unknown = try client.invoke(#"{"\#(service)":{"groupId":20143,"folderId":0,"start":0,"end":5,"+obc":"com.liferay.Nope"}}"#).expect(500).json()
            #expect(unknown["error"]?["type"] == "java.lang.ClassNotFoundException")
        }
    }

    static func englishTitle(_ article: JSONValue) -> String {
        LocalizedXML.parseLocalized(article["title"]?.stringValue ?? "").text(for: "en_US")
    }

    @Test("assets: flattened +assetEntryQuery with classNameIds and groupIds; the count service (entryQuery) agrees")
    func flattenedEntryQuery() async throws {
        try await withSandbox { client, _ in
            let rows = try client.invoke("""
                {"/screens.screensassetentry/get-asset-entries":{"+assetEntryQuery":"com.liferay.asset.kernel.service.persistence.AssetEntryQuery",
                 "assetEntryQuery.classNameIds":20109,"assetEntryQuery.groupIds":20143,"assetEntryQuery.start":0,"assetEntryQuery.end":100,"locale":"es_ES"}}
                """).expect(200).json().arrayValue ?? []
            #expect(rows.count == 12)
            #expect(rows.allSatisfy { $0["classNameId"] == .int(20109) && $0["groupId"] == .int(20143) })
            #expect(rows.allSatisfy { $0["className"] == "com.liferay.journal.model.JournalArticle" })

            let count = try client.invoke("""
                {"/assetentry/get-entries-count":{"+entryQuery":"com.liferay.asset.kernel.service.persistence.AssetEntryQuery",
                 "entryQuery.classNameIds":20109,"entryQuery.groupIds":20143}}
                """).expect(200).json()
            #expect(count == .int(12))

            let page = try client.invoke("""
                {"/screens.screensassetentry/get-asset-entries":{"assetEntryQuery":{"groupIds":[20143,20144],"start":60,"end":80},"locale":"en_US"}}
                """).expect(200).json().arrayValue ?? []
            #expect(page.count == 8)
            // getAssetEntries(assetEntryQuery, locale) declares no start/end: top-level ones have no
            // effect, the range lives in the query.
            let topLevel = try client.invoke("""
                {"/screens.screensassetentry/get-asset-entries":{"+assetEntryQuery":"com.liferay.asset.kernel.service.persistence.AssetEntryQuery",
                 "assetEntryQuery.groupIds":20143,"locale":"en_US","start":40,"end":60}}
                """).expect(200).json().arrayValue ?? []
            #expect(topLevel.count == 48)
            #expect(topLevel.allSatisfy { $0["groupId"] == .int(20143) })
            let missing = try client.invoke(#"{"/assetentry/get-entries-count":{}}"#).expect(404).json()
            #expect(missing["error"]?["type"] == "com.liferay.portal.kernel.jsonwebservice.NoSuchJSONWebServiceException")
        }
    }

    @Test("DDL records and their count, with modelAttributes and modelValues")
    func ddlRecords() async throws {
        try await withSandbox { client, _ in
            let body = try client.invoke("""
                [{"/screens.screensddlrecord/get-ddl-records":{"ddlRecordSetId":20501,"locale":"en_US","start":20,"end":40,"obc":null}},
                 {"/screens.screensddlrecord/get-ddl-records-count":{"ddlRecordSetId":20501}}]
                """).expect(200).json()
            #expect(body[0]?.arrayValue?.count == 5)
            #expect(body[1] == .int(25))
            #expect(body[0]?[0]?["modelAttributes"]?["recordSetId"] == .int(20501))
            #expect(body[0]?[0]?["modelValues"]?["name"]?.stringValue?.isEmpty == false)
            let unknown = try client.invoke(#"{"/screens.screensddlrecord/get-ddl-records-count":{"ddlRecordSetId":1}}"#).expect(404).json()
            #expect(unknown["error"]?["type"] == "com.liferay.dynamic.data.lists.exception.NoSuchRecordSetException")
        }
    }

    @Test("errors: unknown service, group, folders, bad parameter type, missing parameter")
    func errors() async throws {
        try await withSandbox { client, _ in
            let unknown = try client.invoke(#"{"/nope.nope/get-nothing":{}}"#).expect(404).json()
            #expect(unknown["exception"]?.stringValue?.hasPrefix("No JSON web service action with path /nope.nope/get-nothing") == true)
            #expect(unknown["error"]?["type"] == "com.liferay.portal.kernel.jsonwebservice.NoSuchJSONWebServiceException")
            #expect(unknown["error"]?["message"] == unknown["exception"])

            let group = try client.invoke(#"{"\#(Self.entries)":{"groupId":99999,"folderId":0,"start":0,"end":5}}"#).expect(404).json()
            #expect(group["error"]?["type"] == "com.liferay.portal.kernel.exception.NoSuchGroupException")
            #expect(group["error"]?["message"] == "No Group exists with the primary key 99999")

            let folder = try client.invoke(#"{"\#(Self.entries)":{"groupId":20143,"folderId":4242,"start":0,"end":5}}"#).expect(404).json()
            #expect(folder["error"]?["type"] == "com.liferay.bookmarks.exception.NoSuchFolderException")
            let foreignFolder = try client.invoke(#"{"\#(Self.entries)":{"groupId":20143,"folderId":20210,"start":0,"end":5}}"#).expect(404).json()
            #expect(foreignFolder["error"]?["type"] == "com.liferay.bookmarks.exception.NoSuchFolderException")
            let journalFolder = try client.invoke(#"{"/journal.journalarticle/get-articles":{"groupId":20143,"folderId":4242,"start":0,"end":5,"obc":null}}"#).expect(404).json()
            #expect(journalFolder["error"]?["type"] == "com.liferay.journal.exception.NoSuchFolderException")

            let badType = try client.invoke(#"{"\#(Self.entries)":{"groupId":"guest","folderId":0,"start":0,"end":5}}"#).expect(500).json()
            #expect(badType["error"]?["type"] == "jodd.typeconverter.TypeConversionException")
            #expect(try client.invoke(#"{"\#(Self.entries)":{"groupId":"20143","folderId":0,"start":0,"end":2}}"#).expect(200).json().entryIds.count == 2)
            // A command that names too few parameters matches no action at all.
            let missing = try client.invoke(#"{"\#(Self.entries)":{"folderId":0,"start":0,"end":5}}"#).expect(404).json()
            #expect(missing["error"]?["message"]?.stringValue == "No JSON web service action with path \(Self.entries) and method null for bookmarks")
            // With a hint (.4) the portal picks the four-parameter overload anyway; a null groupId is missing.
            let hinted = try client.invoke(#"{"\#(Self.entries).4":{"folderId":0,"start":0,"end":5}}"#).expect(500).json()
            #expect(hinted["error"]?["message"] == "Missing value for parameter groupId")
            _ = try client.invoke("[{not json").expect(500)
        }
    }

    @Test("one failing command fails the whole batch with its error")
    func failingBatch() async throws {
        try await withSandbox { client, _ in
            let body = try client.invoke("""
                [{"\(Self.entries)":{"groupId":20143,"folderId":0,"start":0,"end":50}},
                 {"\(Self.entries)-count":{"groupId":77777,"folderId":0}}]
                """).expect(404).json()
            #expect(body.arrayValue == nil)
            #expect(body["error"]?["type"] == "com.liferay.portal.kernel.exception.NoSuchGroupException")
        }
    }
}
