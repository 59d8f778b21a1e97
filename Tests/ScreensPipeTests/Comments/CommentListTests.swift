import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The `comment` model (Screens' `Comment`) and the Comment List Screenlet's `validateData`.
@Suite struct CommentListTests {
    @Test func theCommentModelReadsWhatScreensCommentReads() throws {
        let converter = try RowConverter(spec: ConvertSpec(model: .comment))
        let raw: JSONValue = [
            "body": "<p>Q3 &lt; Q4</p>", "commentId": 9_007_199_254_740_993, "createDate": 1_704_456_000_000,
            "deletePermission": false, "modifiedDate": 1_704_542_400_250, "updatePermission": true,
            "userId": 20139, "userName": "Test Test",
        ]
        let row = try converter.convert(raw, row: 0, page: 0)
        #expect(row == [
            "commentId": .int(9_007_199_254_740_993), "body": "<p>Q3 &lt; Q4</p>", "userId": 20139, "userName": "Test Test",
            "createDate": "2024-01-05T12:00:00Z", "modifiedDate": "2024-01-06T12:00:00.250Z",
            "editable": true, "deletable": false,
        ])
    }

    @Test func missingPermissionsAreFalseAndAMissingIdNamesTheField() throws {
        let converter = try RowConverter(spec: ConvertSpec(model: .comment))
        let row = try converter.convert(["commentId": 1], row: 0, page: 0)
        #expect(row["editable"] == .bool(false))
        #expect(row["deletable"] == .bool(false))
        #expect(row["body"] == .null)
        let error = #expect(throws: ScreensPipeError.self) {
            try converter.convert(["body": "<p>x</p>"], row: 4, page: 2)
        }
        #expect(error?.message == "required field 'commentId' (from 'commentId') is missing")
        // A permission flag that is not a boolean is refused, not guessed.
        #expect(throws: ScreensPipeError.self) {
            try converter.convert(["commentId": 1, "updatePermission": "maybe"], row: 0, page: 0)
        }
    }

    static func comments(_ params: String, count: String? = nil) -> String {
        """
        source:
          type: liferay-jsonws
          server: sandbox
          rows: { service: /screens.screenscomment/get-comments, params: \(params) }
        \(count.map { "  count: { service: /screens.screenscomment/get-comments-count, params: \($0) }" } ?? "")
        """
    }

    @Test func theCommentListNeedsAClassNameAndAClassPK() throws {
        let noPK = configErrors(Self.comments("{ className: com.liferay.journal.model.JournalArticle, classPK: 0 }"))
        #expect(noPK.count == 1)
        #expect(noPK.first?.contains("Comment List Screenlet: /screens.screenscomment/get-comments needs 'classPK'") == true)
        #expect(noPK.first?.contains("(undefined-classPK)") == true)
        let noClass = configErrors(Self.comments("{ className: '  ', classPK: 40001 }"))
        #expect(noClass.count == 1)
        #expect(noClass.first?.contains("needs 'className'") == true)
        #expect(noClass.first?.contains("(undefined-className)") == true)
        let countMissing = configErrors(
            Self.comments(
                "{ className: com.liferay.journal.model.JournalArticle, classPK: 40001 }",
                count: "{ className: com.liferay.journal.model.JournalArticle }"))
        #expect(countMissing.count == 1)
        #expect(countMissing.first?.contains("source.count.params") == true)
        let spec = try loadPipeline(Self.comments("{ className: com.liferay.journal.model.JournalArticle, classPK: 40001 }"))
        let params = try #require(spec.source.type.settings(as: JSONWSSourceSpec.self)?.rows.params)
        #expect(params == ["className": "com.liferay.journal.model.JournalArticle", "classPK": 40001])
    }
}
