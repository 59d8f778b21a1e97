import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite struct FieldPathTests {
    @Test(arguments: [
        ("name", [FieldPath.Component.key("name")]),
        ("author.email", [.key("author"), .key("email")]),
        ("tags[0]", [.key("tags"), .index(0)]),
        ("a.b[10].c", [.key("a"), .key("b"), .index(10), .key("c")]),
        ("a[\"key with.dot\"]", [.key("a"), .key("key with.dot")]),
        ("a['single']", [.key("a"), .key("single")]),
        ("a[\"q\\\"uote\"]", [.key("a"), .key("q\"uote")]),
        ("[\"top level\"].x", [.key("top level"), .key("x")]),
        ("[2]", [.index(2)]),
        ("rows[-1]", [.key("rows"), .index(-1)]),
        ("m[0][1]", [.key("m"), .index(0), .index(1)]),
        ("first-name", [.key("first-name")]),
        ("$meta.@type", [.key("$meta"), .key("@type")]),
        ("título.año", [.key("título"), .key("año")]),
    ])
    func parses(text: String, components: [FieldPath.Component]) throws {
        let path = try FieldPath(text)
        #expect(path.components == components)
        #expect(try FieldPath(path.description) == path, "round trip of \(path.description)")
    }

    @Test(arguments: [
        ("", "expected a field name at column 1"),
        ("a..b", "expected a field name, found '.' at column 3"),
        ("a.", "expected a field name at column 3"),
        (".a", "expected a field name, found '.' at column 1"),
        ("a[", "unclosed '[' at column 3"),
        ("a[0", "expected ']' at column 2"),
        ("a[x]", "expected an index or a quoted key after '[' at column 3"),
        ("a[\"open]", "unterminated string at column 3"),
        ("a b", "unexpected ' ' at column 2"),
        ("1a", "expected a field name, found '1' at column 1"),
        ("a[-]", "invalid array index at column 3"),
    ])
    func rejects(text: String, message: String) {
        let error = #expect(throws: ScreensPipeError.self) { try FieldPath(text) }
        #expect(error?.code == .configuration)
        #expect(error?.message == "invalid field path '\(text)': \(message)")
    }

    @Test func resolvesAndMissesWithoutErrors() throws {
        let row: JSONValue = ["a": ["b": [10, ["c": "deep"]]], "n": nil, "k.d": 1]
        #expect(try FieldPath("a.b[1].c").resolve(in: row) == "deep")
        #expect(try FieldPath("a.b[-2]").resolve(in: row) == 10)
        #expect(try FieldPath("n").resolve(in: row) == .null)
        #expect(try FieldPath("[\"k.d\"]").resolve(in: row) == 1)
        #expect(try FieldPath("a.b[2]").resolve(in: row) == nil)
        #expect(try FieldPath("a.b[-3]").resolve(in: row) == nil)
        #expect(try FieldPath("a.b.c").resolve(in: row) == nil)
        #expect(try FieldPath("a[0]").resolve(in: row) == nil)
        #expect(try FieldPath("n.x").resolve(in: row) == nil)
    }
}
