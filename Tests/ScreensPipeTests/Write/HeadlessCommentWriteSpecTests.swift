import Foundation
@testable import ScreensPipeCore
import ScreensBus
import Testing

/// `service: comment` with `transport: headless`: what the sink takes, and the rows it
/// checks before any request.
@Suite struct HeadlessCommentWriteSpecTests {
    private func sink(_ lines: String) -> String {
        """
        name: w
        sink:
          type: liferay
          server: http://127.0.0.1:1
          service: comment
          transport: headless
        \(lines)
        """
    }

    private func errors(_ lines: String) -> String {
        do {
            _ = try loadPipeline(sink(lines))
            return ""
        } catch {
            return error.description
        }
    }

    @Test func theSinkTakesHeadlessCommentsFrom7_2On() throws {
        let spec = try loadPipeline(sink(""))
        #expect(spec.sink.liferay?.service == .comment)
        #expect(spec.sink.liferay?.transport == .headless)
        #expect(errors("  liferay-version: \"7.1\"").contains("has no comments API"))
        #expect(errors("  liferay-version: \"7.4\"") == "")
        #expect(errors("  key: [text]").contains("'key' is not for 'service: comment'"))
        #expect(errors("  folder-id: 1").contains("'folder-id' is not for 'service: comment'"))
        #expect(errors("  write-policy: cache-first").contains("keeps pending writes for JSON-WS services"))
    }

    private func row(_ json: String) throws(RowRejection) -> HeadlessCommentRow {
        try HeadlessCommentRow.parse(try! JSONValue(parsing: Array(json.utf8)), line: 1)
    }

    private func rejection(_ json: String) -> String {
        do {
            _ = try row(json)
            return ""
        } catch let rejection as RowRejection {
            return rejection.message
        } catch {
            return "\(error)"
        }
    }

    @Test func rowsNameOneEntryAndAText() throws {
        let add = try row(#"{"structuredContentId":40001,"text":"Hi"}"#)
        #expect(add.operation == .add && add.parent == .structuredContent && add.parentId == 40001 && add.storedText == "<p>Hi</p>")
        let byClass = try row(#"{"className":"com.liferay.document.library.kernel.model.DLFileEntry","classPK":90001,"text":"Hi"}"#)
        #expect(byClass.parent == .document && byClass.parentId == 90001)
        #expect(try row(#"{"blogPostingId":60004,"text":"Hi"}"#).parent == .blogPosting)
        #expect(add.key != byClass.key, "the same text on two entries is two comments")
        let update = try row(#"{"commentId":80003,"text":"New"}"#)
        #expect(update.operation == .update && update.commentId == 80003)
        let delete = try row(#"{"op":"delete","commentId":80004}"#)
        #expect(delete.operation == .delete && delete.content == "deleted")

        #expect(rejection(#"{"structuredContentId":40001,"text":" "}"#).contains("'text' is empty"))
        #expect(rejection(#"{"structuredContentId":40001,"body":"<p>x</p>"}"#).contains("over headless a row gives 'text'"))
        #expect(rejection(#"{"text":"x"}"#).contains("missing the commented entry"))
        #expect(rejection(#"{"structuredContentId":1,"blogPostingId":2,"text":"x"}"#).contains("names 2 entries"))
        #expect(rejection(#"{"className":"com.liferay.bookmarks.model.BookmarksEntry","classPK":1,"text":"x"}"#).contains("headless-delivery takes comments on"))
        #expect(rejection(#"{"structuredContentId":-1,"text":"x"}"#).contains("positive whole number"))
        #expect(rejection(#"{"op":"add","commentId":3,"text":"x"}"#).contains("'commentId' names a comment to update or delete"))
        #expect(rejection(#"{"op":"delete"}"#).contains("missing 'commentId'"))
        #expect(rejection(#"{"commentId":3,"text":"a\u0000b"}"#).contains("control character U+0000"))
        #expect(rejection("[1]").contains("a row is a JSON object"))
    }
}
