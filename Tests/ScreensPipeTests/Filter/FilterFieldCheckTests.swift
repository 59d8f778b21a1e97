import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// What `validate` (and `run`, before any request) says about the fields a filter names:
/// an unknown one with a suggestion and the fields there are, the caret under that field,
/// and a comparison of a declared type with a literal of another.
@Suite struct FilterFieldCheckTests {
    /// The errors of a pipeline with `convert` and `filter.where` (`where` in single quotes).
    private func errors(convert: String, where expression: String) -> [String] {
        let yaml = """
            source: { type: file, path: rows.json }
            convert: \(convert)
            filter: { where: '\(expression)' }
            """
        do {
            _ = try PipelineLoader(environment: [:]).loadChecked(yaml: yaml, file: "p.yaml")
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }

    private let typed = "{ fields: { title: name, comments: { from: stats.comments, type: int }, score: { from: s, type: number }, open: { from: o, type: bool } } }"

    @Test func unknownFieldGetsASuggestionAndTheListOfFields() {
        let found = errors(convert: "{ model: bookmark }", where: #"nmae starts-with "L""#)
        #expect(found == [
            """
            p.yaml:3:19: 'nmae' is not a field of the bookmark model; did you mean 'name'? (its fields: entryId, name, url, description, folderId, groupId, createDate, modifiedDate, userName) at column 1
              nmae starts-with "L"
              ^
            """
        ])
        // Nothing close: still the list.
        let far = errors(convert: typed, where: "zzz == 1")
        #expect(far.first?.contains("'zzz' is not a field of the convert.fields mapping (its fields: title, comments, score, open) at column 1") == true, "\(far)")
    }

    @Test func theCaretSitsUnderTheUnknownWordOnTheRight() {
        // `status == open`: `open` is not a field (the text lost its quotes); the caret was under `title`.
        let found = errors(convert: "{ fields: { title: name, status: state } }", where: "title != \"x\" and status == opne")
        let caret = "  " + String(repeating: " ", count: 27) + "^"
        #expect(found == [
            """
            p.yaml:3:46: 'opne' is not a field of the convert.fields mapping (its fields: title, status); to compare with the text opne, quote it: "opne" at column 28
              title != "x" and status == opne
            \(caret)
            """
        ], "\(found)")
    }

    @Test(arguments: [
        // An ordering fails on every row: named at validate time, the caret under the literal.
        (#"comments > "2""#, #"'comments' is declared 'type: int', so 'comments > "2"' compares an int with string "2" and would fail on every row; compare with the number: write 2 without quotes at column 12"#),
        (#"comments == "two""#, #"'comments' is declared 'type: int', so 'comments == "two"' compares an int with string "two" and is never true at column 13"#),
        (#"title < 3"#, #"'title' is declared"#),  // untyped mapping: kept as found, so no error (see below)
        (#"score contains "1""#, #"'score' is declared 'type: number', so 'score contains "1"' compares a number with string "1" and would fail on every row"#),
        (#"open > false"#, #"'open' is declared 'type: bool', so 'open > false' compares a bool with bool false and would fail on every row"#),
        (#""2" < comments"#, #"'comments' is declared 'type: int', so '"2" < comments' compares an int with string "2" and would fail on every row"#),
        (#"comments matches "1""#, #"'comments' is declared 'type: int', and 'matches' reads text: it would fail on every row"#),
    ])
    func comparingADeclaredTypeWithAnotherIsAnError(expression: String, message: String) {
        let found = errors(convert: typed, where: expression)
        if expression == "title < 3" {
            #expect(found.isEmpty, "\(found)")
            return
        }
        #expect(found.count == 1)
        #expect(found.first?.contains(message) == true, "\(found)")
    }

    @Test func anUnknownFieldAndATypeMismatchAreReportedTogether() {
        let found = errors(convert: typed, where: #"comments > "2" and zzz == 1"#)
        #expect(found.count == 2, "\(found)")
        #expect(found.contains { $0.contains("'zzz' is not a field") })
        #expect(found.contains { $0.contains("'comments' is declared 'type: int'") })
    }

    @Test func literalsOfTheDeclaredTypeAndNullAreFine() {
        for expression in ["comments > 2", "comments >= 2.5", "comments == null", "open == true", "not open", #"title starts-with "a""#, "score < 1e3", "comments in [1, 2]"] {
            #expect(errors(convert: typed, where: expression).isEmpty, "\(expression)")
        }
        // A model's types too: entryId is an int, createDate ISO text.
        #expect(errors(convert: "{ model: bookmark }", where: #"createDate > "2024-01-01""#).isEmpty)
        #expect(errors(convert: "{ model: bookmark }", where: #"entryId == "1""#).first?.contains("'entryId' is declared 'type: int'") == true)
    }
}
