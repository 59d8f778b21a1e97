import Testing
import ScreensBus

@Suite("JSON lines")
struct JSONLinesTests {
    @Test func parsesLinesSkippingBlankOnes() throws {
        let text = "{\"a\":1}\n\n  \r\n[2]\r\n\"three\"\n\t\n4"
        #expect(try JSONValue.parseLines(Array(text.utf8)) == [["a": 1], [2], "three", 4])
    }

    @Test func emptyInputHasNoValues() throws {
        #expect(try JSONValue.parseLines([]) == [])
        #expect(try JSONValue.parseLines(Array("\n\n".utf8)) == [])
    }

    @Test func errorOffsetCountsFromTheStartOfTheInput() {
        let text = "{\"a\":1}\n[1,]\n"
        #expect(throws: JSONParseError(offset: 11, message: "expected a value")) {
            try JSONValue.parseLines(Array(text.utf8))
        }
    }

    @Test func aValueMayNotSpanLines() {
        #expect(throws: JSONParseError(offset: 3, message: "unexpected end of input")) {
            try JSONValue.parseLines(Array("[1,\n2]".utf8))
        }
    }

    @Test func twoValuesOnOneLineAreAnError() {
        #expect(throws: JSONParseError.self) { try JSONValue.parseLines(Array("1 2\n".utf8)) }
    }
}
