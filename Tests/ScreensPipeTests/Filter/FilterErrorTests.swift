import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite struct FilterErrorTests {
    private func compileError(_ expression: String, location: ScreensPipe.SourceLocation? = nil) -> ScreensPipeError? {
        #expect(throws: ScreensPipeError.self) { try RowFilter(expression: expression, location: location) }
    }

    @Test func unexpectedWordShowsTheExpressionAndACaret() {
        let error = compileError(#"url contains "x" andd y"#)
        #expect(error?.code == .configuration)
        #expect(error?.location == nil)
        #expect(error?.message == """
            unexpected 'andd' at column 18
              url contains "x" andd y
                               ^
            """)
    }

    @Test func locationIsTheColumnInsideTheFile() {
        let error = compileError(#"url contains "x" andd y"#, location: ScreensPipe.SourceLocation(file: "p.yaml", line: 12, column: 10))
        #expect(error?.location == ScreensPipe.SourceLocation(file: "p.yaml", line: 12, column: 27))
        #expect(error?.description.hasPrefix("p.yaml:12:27: unexpected 'andd' at column 18") == true)
    }

    @Test func columnsCountCharactersNotBytes() {
        let error = compileError(#"ñandú == "ñ" or"#)
        #expect(error?.message == """
            expected a value or a field, found end of expression at column 16
              ñandú == "ñ" or
                             ^
            """)
    }

    @Test func laterLinesOfAMultiLineExpression() {
        let error = compileError("a == 1\nand b ==", location: ScreensPipe.SourceLocation(file: "p.yaml", line: 4, column: 9))
        #expect(error?.message == "expected a value or a field, found end of expression at line 2, column 9\n  and b ==\n          ^")
        // Only a literal block (`where: |`) keeps its line breaks, and each of its lines is
        // indented like the first, so a later line's column is counted from the block's start.
        #expect(error?.location == ScreensPipe.SourceLocation(file: "p.yaml", line: 5, column: 17))
    }

    @Test(arguments: [
        ("name = \"x\"", "unexpected '=' (equality is '==') at column 6"),
        ("name ! \"x\"", "unexpected '!': use 'not' at column 6"),
        ("!published", "unexpected '!': use 'not' at column 1"),
        ("a == 1 && b == 2", "unexpected '&&': use 'and' at column 8"),
        ("a == 1 & b == 2", "unexpected '&': use 'and' at column 8"),
        ("a == 1 || b == 2", "unexpected '||': use 'or' at column 8"),
        ("(a == 1", "expected ')', found end of expression at column 8"),
        ("a == \"open", "unterminated string at column 6"),
        ("a ==", "expected a value or a field, found end of expression at column 5"),
        ("and a", "expected a value or a field, found 'and' at column 1"),
        ("a in 1", "expected '[' after 'in', found '1' at column 6"),
        ("a in [1, b]", "expected a literal, found 'b' at column 10"),
        ("a in [1 2]", "expected ',' or ']', found '2' at column 9"),
        ("a matches b", "expected a regular expression in quotes, found 'b' at column 11"),
        ("a matches \"(\"", "invalid regular expression"),
        ("\"x\" exists", "'exists' needs a field path on its left at column 5"),
        ("\"x\"", "\"x\" is not a condition at column 1"),
        ("a.", "expected a field name at column 3"),
        ("a[x]", "expected an index or a quoted key after '[' at column 3"),
        ("a == 12abc", "invalid number '12a' at column 6"),
        ("a == \"\\q\"", "unknown escape '\\q' at column 7"),
        ("a == 1 #", "unexpected '#' at column 8"),
        ("a == 1 b", "unexpected 'b' at column 8"),
        ("tags == [\"a\", 1]", "expected ']' at column 13"),
    ])
    func syntaxErrors(expression: String, messageStart: String) {
        let error = compileError(expression)
        #expect(error?.code == .configuration)
        #expect(error?.message.hasPrefix(messageStart) == true, "\(error?.message ?? "no error")")
    }

    @Test func literalTypeMismatchIsACompileTimeError() {
        let error = compileError(#""cheap" < 3"#)
        #expect(error?.message == """
            '"cheap" < 3': cannot apply '<' to string "cheap" and number 3 at column 9
              "cheap" < 3
                      ^
            """)
        #expect(compileError(#"3 contains "a""#)?.message.hasPrefix("'3 contains \"a\"': cannot apply 'contains' to number 3 and string \"a\" at column 3") == true)
        #expect(compileError(#"4 matches "a""#)?.message.hasPrefix("'4 matches \"a\"': cannot apply 'matches' to number 4") == true)
    }

    @Test(arguments: [
        ("price < 3", ["price": "cheap"], "'price < 3': cannot apply '<' to string \"cheap\" and number 3"),
        ("visits >= \"10\"", ["visits": 12], "'visits >= \"10\"': cannot apply '>=' to number 12 and string \"10\""),
        ("name contains 3", ["name": "x3"], "'name contains 3': cannot apply 'contains' to string \"x3\" and number 3"),
        ("count contains \"1\"", ["count": 11], "'count contains \"1\"': cannot apply 'contains' to number 11 and string \"1\""),
        ("flag < true", ["flag": false], "'flag < true': cannot apply '<' to bool false and bool true"),
        ("id starts-with \"4\"", ["id": 42], "'id starts-with \"4\"': cannot apply 'starts-with' to number 42 and string \"4\""),
        ("id matches \"4\"", ["id": 42], "'id matches \"4\"': cannot apply 'matches' to number 42 and string \"4\""),
        ("title", ["title": "x"], "'title' is string \"x\", expected a bool for a condition"),
    ] as [(String, JSONValue, String)])
    func runtimeTypeErrorsNameBothTypes(expression: String, row: JSONValue, message: String) throws {
        let filter = try RowFilter(expression: expression)
        let error = #expect(throws: ScreensPipeError.self) { try filter.matches(row) }
        #expect(error?.code == .filter)
        #expect(error?.message == message)
    }

    @Test func shortCircuitSkipsTheRightSide() throws {
        let filter = try RowFilter(expression: "price exists and price < 3")
        #expect(try !filter.matches(["other": 1]))
    }
}
