import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite struct RowFilterTests {
    static let row: JSONValue = [
        "entryId": .int(9_007_199_254_740_993), "name": "Liferay Portal", "url": "https://www.liferay.com/docs",
        "visits": 42, "rating": 4.5, "active": true, "deleted": false, "note": nil,
        "tags": ["portal", "java", 7], "author": ["email": "ana@liferay.com", "name": "Ana"],
        "price": "cheap", "key with.dot": "dotted", "ñandú": "ave",
    ]

    @Test(arguments: [
        ("name == \"Liferay Portal\"", true),
        ("name == 'Liferay Portal'", true),
        ("name != \"Liferay\"", true),
        ("visits == 42", true),
        ("visits == 42.0", true),
        ("visits > 41 and visits < 43", true),
        ("visits >= 42 and visits <= 42", true),
        ("rating > 4", true),
        ("rating < -1", false),
        ("entryId == 9007199254740993", true),
        ("entryId == 9007199254740992", false),
        ("entryId > 9007199254740992", true),
        ("name < \"M\"", true),
        ("name > \"liferay\"", false),
        ("\"Z\" < \"a\"", true),
        ("active", true),
        ("deleted", false),
        ("missing", false),
        ("active == true", true),
        ("note == null", true),
        ("missing == null", true),
        ("name == null", false),
        ("visits == \"42\"", false),
        ("visits != \"42\"", true),
        ("note < 3", false),
        ("missing > \"a\"", false),
        ("url contains \"liferay\"", true),
        ("url contains \"LIFERAY\"", false),
        ("url contains \"\"", true),
        ("url contains \"/docs\"", true),
        ("url contains \"/docsx\"", false),
        ("ñandú contains \"ve\"", true),
        ("[\"ñandú\"] contains \"ñ\"", false),
        ("tags contains \"java\"", true),
        ("tags contains 7", true),
        ("tags contains \"go\"", false),
        ("missing contains \"x\"", false),
        ("url starts-with \"https://\"", true),
        ("url ends-with \"/docs\"", true),
        ("url ends-with \"/doc\"", false),
        ("missing starts-with \"a\"", false),
        ("name matches \"^Life.*l$\"", true),
        ("name matches \"ray P\"", true),
        ("name matches \"^Portal\"", false),
        ("missing matches \"x\"", false),
        ("visits in [1, 42, 3]", true),
        ("name in [\"a\", \"b\"]", false),
        ("note in [null]", true),
        ("visits in []", false),
        ("url exists", true),
        ("note exists", false),
        ("missing exists", false),
        ("not missing exists", true),
        ("not url exists", false),
        ("author.email ends-with \"@liferay.com\"", true),
        ("author.missing exists", false),
        ("tags[0] == \"portal\"", true),
        ("tags[-1] == 7", true),
        ("tags[9] exists", false),
        ("[\"key with.dot\"] == \"dotted\"", true),
        ("ñandú == \"ave\"", true),
        ("not (name starts-with \"tmp\")", true),
        ("not name starts-with \"Life\"", false),
        ("not not active", true),
    ])
    func evaluatesOperators(expression: String, expected: Bool) throws {
        let filter = try RowFilter(expression: expression)
        #expect(try filter.matches(Self.row) == expected, "\(expression)")
    }

    @Test(arguments: [
        // `and` binds tighter than `or`.
        ("active or deleted and missing exists", true),
        ("(active or deleted) and missing exists", false),
        ("deleted and active or visits == 42", true),
        ("deleted and (active or visits == 42)", false),
        // `not` applies to the whole comparison, and before `and`.
        ("not visits == 1 and active", true),
        ("not (visits == 42 or deleted)", false),
        ("not visits == 42 or active", true),
    ])
    func appliesPrecedence(expression: String, expected: Bool) throws {
        #expect(try RowFilter(expression: expression).matches(Self.row) == expected, "\(expression)")
    }

    @Test func stringsEscapesAndScalarEquality() throws {
        let row: JSONValue = ["q": "say \"hi\"\n", "composed": "\u{E9}", "s": "it's"]
        #expect(try RowFilter(expression: #"q == "say \"hi\"\n""#).matches(row))
        #expect(try RowFilter(expression: #"s == 'it\'s'"#).matches(row))
        #expect(try RowFilter(expression: #"composed == "\u00e9""#).matches(row))
        // e + combining acute is canonically equal but a different scalar sequence.
        #expect(try !RowFilter(expression: #"composed == "e\u0301""#).matches(row))
        let bird: JSONValue = ["t": "ñandú 🐦 grande"]
        #expect(try RowFilter(expression: #"t contains "dú 🐦""#).matches(bird))
        #expect(try RowFilter(expression: #"t starts-with "ñ""#).matches(bird))
        #expect(try !RowFilter(expression: #"t contains "u 🐦""#).matches(bird))
    }

    @Test func arraysNeverThrowOnEqualityAndMatchElementwise() throws {
        let row: JSONValue = ["pair": [1, "a"], "point": ["x": 1, "y": 2.0]]
        #expect(try RowFilter(expression: "pair contains 1").matches(row))
        #expect(try RowFilter(expression: "pair != 1").matches(row))
        #expect(try RowFilter(expression: "point.y == 2").matches(row))
    }
}
