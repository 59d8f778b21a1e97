import Testing
import ScreensBus

/// A number is written back exactly as it arrived: values are never rewritten through Double.
@Suite("JSON number texts")
struct NumberTextTests {
    // Literals whose shortest Double form differs from the text (each was rewritten before).
    static let kept = [
        "0.1000000000000000000000000000001", "1.0e-400", "123456789012345678901234567890.5", "-0",
        "1E+2", "1e2", "-0.0e0", "0.10", "1.50", "2.0E-3", "1e400", "-1e-400", "100.0000", "0.000001",
        // From nst/JSONTestSuite test_parsing/y_number_*.json:
        "1E22", "1E-2", "1E+2", "1e1", "1e-1", "-1", "-0", "20e1", "123e65", "123.456e78", "1.0E+2",
        "-1.0", "123456789", "-123", "0e1", "0e+1", "1.5e+9999", "-1.5e+9999", "123.456789",
        "1.23e-98765", "-2.2250738585072014e-308",
    ]

    @Test("each number's text survives parse and write byte for byte", arguments: kept)
    func textKept(_ text: String) throws {
        let document = "[\(text)]"
        #expect(String(decoding: try JSONValue(parsing: document).jsonBytes, as: UTF8.self) == document)
    }

    @Test("a decimal the writer prints back unchanged is still a Double")
    func plainDecimalsStayDoubles() throws {
        #expect(try JSONValue(parsing: "0.5") == .double(0.5))
        #expect(try JSONValue(parsing: "-1.25") == .double(-1.25))
        #expect(try JSONValue(parsing: "0.10") == .number("0.10"))
    }

    // nst/JSONTestSuite n_number_* cases: never numbers.
    static let rejected = [
        "-", "+1", "01", "1.", ".1", "1e", "1e+", "0x1", "1.0e", "-01", "2.e3", "Inf", "NaN", "-NaN", "1ea", "0.e1", "- 1",
    ]

    @Test("malformed numbers are errors", arguments: rejected)
    func malformed(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: "[\(text)]") }
    }
}
