import Testing
import ScreensBus
@testable import ScreensPipeCore
import ScreensPipe

/// The filter compares numbers by their exact decimal value, never through Double.
@Suite("Filter: exact number comparison")
struct ExactNumberFilterTests {
    private func matches(_ expression: String, _ row: String) throws -> Bool {
        try RowFilter(expression: expression).matches(try JSONValue(parsing: row))
    }

    @Test func bigIntegersAreNotRounded() throws {
        let row = #"{"id":12345678901234567890124}"#
        #expect(try !matches("id == 12345678901234567890123", row))
        #expect(try matches("id == 12345678901234567890124", row))
        #expect(try matches("id > 12345678901234567890123", row))
        #expect(try matches("id < 12345678901234567890125", row))
    }

    @Test func decimalsByValue() throws {
        #expect(try matches("x == 0.10", #"{"x":0.1}"#))
        #expect(try matches("x == 100", #"{"x":1e2}"#))
        #expect(try matches("x == 0", #"{"x":-0}"#))
        #expect(try !matches("x == 0.1", #"{"x":0.1000000000000000000000000000001}"#))
        #expect(try matches("x > 0.1", #"{"x":0.1000000000000000000000000000001}"#))
        #expect(try matches("x < 0", #"{"x":-1.0e-400}"#))
        #expect(try matches("x > 9223372036854775807", #"{"x":9223372036854775807.5}"#))
        #expect(try matches("x < -9223372036854775808", #"{"x":-9223372036854775809}"#))
        #expect(try matches("x > 1e308", #"{"x":1e400}"#))
    }

    @Test func exactDecimalOrdering() {
        let ordered = ["-1e400", "-12.5", "-1", "-0.001", "0", "1e-400", "0.001", "0.1", "1", "1.5", "12", "1e400"]
        let values = ordered.map { ExactDecimal(text: $0)! }
        for (i, a) in values.enumerated() {
            for (j, b) in values.enumerated() {
                #expect(a.compare(to: b) == (i < j ? -1 : (i == j ? 0 : 1)), "\(ordered[i]) vs \(ordered[j])")
            }
        }
        #expect(ExactDecimal(text: "1e99999999999999999999999") != nil)
        #expect(ExactDecimal(text: "1.2.3") == nil)
        #expect(ExactDecimal(text: "-0.000")!.compare(to: ExactDecimal(text: "0")!) == 0)
    }
}
