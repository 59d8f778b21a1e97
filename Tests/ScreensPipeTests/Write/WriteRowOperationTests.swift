@testable import ScreensPipeCore
import ScreensBus
import Testing

/// `op` is read by one rule for every service: a bookmark row with `"op":"delete"` removes
/// its entry by key, and comments refuse the same unknown `op` with the same words.
@Suite struct WriteRowOperationTests {
    private let spec = LiferaySinkSpec(connection: SourceSpec.writeInput, groupId: 20143, folderId: 20201)

    private func bookmark(_ json: String) throws(RowRejection) -> BookmarkRow {
        do {
            return try BookmarkRowValidator.row(try JSONValue(parsing: Array(json.utf8)), line: 1, spec: spec)
        } catch let rejection as RowRejection {
            throw rejection
        } catch {
            throw RowRejection(message: "\(error)")
        }
    }

    private func rejection(_ body: () throws(RowRejection) -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return error.message
        }
    }

    @Test func aBookmarkDeleteHasItsEntrysKeyAndAContentNoWriteHas() throws {
        let delete = try bookmark(#"{"op":"delete","url":"https://example.com/a"}"#)
        let add = try bookmark(#"{"url":"https://example.com/a"}"#)
        #expect(delete.deletes)
        #expect(!add.deletes)
        #expect(delete.key == add.key, "a delete names the entry an add of the same key wrote")
        #expect(delete.content != add.content)
        #expect(delete.legacyContent != add.legacyContent, "no journal of an earlier version reads as a delete done")
        let model = BookmarkWriteModel(spec: spec)
        #expect(model.removal(delete)?.command(FoundEntry(id: 5_000_000, content: "")).service == "/bookmarks.bookmarksentry/delete-entry")
        #expect(model.removal(delete)?.command(FoundEntry(id: 5_000_000, content: "")).params["entryId"] == .int(5_000_000))
        #expect(model.removal(add) == nil)
        #expect(model.sendsAlone(delete))
        #expect(try bookmark(#"{"op":"update","url":"https://example.com/a"}"#).deletes == false, "add and update are what a row without op says")
        #expect(try bookmark(#"{"op":null,"url":"https://example.com/a"}"#).deletes == false)
    }

    @Test func anUnknownOpIsRefusedAlikeByEveryService() {
        let bookmarkReason = rejection { () throws(RowRejection) in _ = try bookmark(#"{"op":"remove","url":"https://example.com/a"}"#) }
        let commentReason = rejection { () throws(RowRejection) in
            _ = try CommentWriteModel().row(.object(["op": "remove", "commentId": .int(80004)]), line: 1)
        }
        #expect(bookmarkReason == #"'op' is add, update or delete, found "remove""#)
        #expect(commentReason == bookmarkReason)
        #expect(rejection { () throws(RowRejection) in _ = try bookmark(#"{"op":1,"url":"https://example.com/a"}"#) }?.contains("found 1") == true)
    }

    @Test func jsonwsWebContentDeletesFindTheirArticleByLookup() throws {
        let model = WebContentWriteModel(spec: spec)
        let byTitle = try model.row(.object(["op": "delete", "title": "Gone"]), line: 1)
        let created = try model.row(.object(["title": "Gone", "ddmStructureKey": "NEWS-ARTICLE"]), line: 2)
        #expect(byTitle.deletes && byTitle.key == created.key && byTitle.content == "deleted")
        let removal = try #require(model.removal(byTitle))
        #expect(removal.needsLookup, "delete-article names the article by its articleId, which only a lookup gives")
        let command = removal.command(FoundEntry(id: 6_000_000, content: "", updateParameters: ["articleId": "40001"]))
        #expect(command.service == "/journal.journalarticle/delete-article")
        #expect(command.params == ["groupId": .int(20143), "articleURL": "", "articleId": "40001"])
        #expect(model.sendsAlone(byTitle) && !model.sendsAlone(created))
        #expect(model.removal(created) == nil)
        let byArticleId = try model.row(.object(["op": "delete", "articleId": "40001"]), line: 3)
        #expect(byArticleId.articleId == "40001" && byArticleId.key != byTitle.key)
    }

    @Test func headlessWebContentDeletesNameTheirArticleOneWay() throws {
        let spec = LiferaySinkSpec(connection: SourceSpec.writeInput, service: .webContent, transport: .headless, groupId: 20143, key: ["title"])
        func row(_ text: String) throws(RowRejection) -> StructuredContentRow {
            guard let value = try? JSONValue(parsing: Array(text.utf8)) else { throw RowRejection(message: "the test's row is not JSON") }
            return try StructuredContentRowValidator.row(value, line: 1, spec: spec)
        }
        let byId = try row(#"{"op":"delete","id":6000001,"title":"ignored"}"#)
        #expect(byId.deletes && byId.id == 6_000_001 && byId.externalReferenceCode == nil)
        let byCode = try row(#"{"op":"delete","externalReferenceCode":"welcome"}"#)
        let created = try row(#"{"externalReferenceCode":"welcome","title":"Welcome","contentStructureId":20701}"#)
        #expect(byCode.key == created.key, "the journal knows the article deleted by the key it was created with")
        #expect(byCode.content == "deleted" && created.content != "deleted")
        let byTitle = try row(#"{"op":"delete","title":"Welcome"}"#)
        #expect(byTitle.key == (try row(#"{"title":"Welcome","contentStructureId":20701}"#)).key)
        #expect(byTitle.inputText == #"{"op":"delete","title":"Welcome"}"#)
        #expect(rejection { () throws(RowRejection) in _ = try row(#"{"op":"delete"}"#) }?.contains("missing 'title'") == true)
        #expect(rejection { () throws(RowRejection) in _ = try row(#"{"op":"delete","id":0}"#) }?.contains("web content id") == true)
    }

    @Test func aDDLRecordIsDeletedByItsIdOrItsKeyFieldsAndAnOwnOpFieldStaysAField() throws {
        let records = DDLRecordWriteModel(spec: spec, recordSetId: 1)
        let byId = try records.row(.object(["op": "delete", "recordId": .int(5)]), line: 1)
        #expect(byId.deletes && byId.recordId == 5 && byId.key == WriteKey.encode(["recordId", "5"]))
        #expect(records.removal(byId)?.command(FoundEntry(id: 5, content: "")).service == "/ddl.ddlrecord/delete-record")
        #expect(records.removal(byId)?.command(FoundEntry(id: 5, content: "")).params == ["recordId": .int(5)])
        #expect(records.sendsAlone(byId))
        #expect(rejection { () throws(RowRejection) in _ = try records.row(.object(["op": "delete", "recordId": .int(-5)]), line: 1) } != nil)
        var keyed = spec
        keyed.key = ["name"]
        let byKey = try DDLRecordWriteModel(spec: keyed, recordSetId: 1).row(.object(["op": "delete", "name": "x", "age": .int(3)]), line: 1)
        #expect(byKey.deletes && byKey.fields == ["name": "x"] && byKey.key == #""x""#)
        let nameless = rejection { () throws(RowRejection) in _ = try records.row(.object(["op": "delete", "name": "x"]), line: 1) }
        #expect(nameless?.contains("names its record by 'recordId'") == true, "\(nameless ?? "")")
        // A record's own field named `op` is still a field.
        let open = try records.row(.object(["op": "open", "recordId": .int(5), "name": "x"]), line: 1)
        #expect(open.fields["op"] == "open" && !open.deletes && records.removal(open) == nil)
    }
}
