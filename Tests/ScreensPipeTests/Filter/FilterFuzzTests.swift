import ScreensBus
import ScreensPipe
import TestSupport
import Testing

/// The filter expression parser on mutated expressions: every input compiles or throws a
/// `ScreensPipeError`; a compiled filter evaluates any row without crashing.
@Suite("Fuzz: filter expressions")
struct FilterFuzzTests {
    static let tokens = ["(", ")", " and ", " or ", "not ", " == ", " < ", " contains ", " matches ", " in [", "]", " exists", "\"", "\\", ".", "[0]", "1e999", "-", "null", "(a", "[\"", "é"]
    static let row: JSONValue = [
        "name": "Bookmark 5", "url": "https://www.liferay.com", "visits": 12, "score": 1.5,
        "author": ["email": "a@liferay.com"], "tags": ["tag3", 1, nil], "a": ["b": [["c": true]]],
    ]

    @Test("2,000 seeded mutants of the corpus: compile and evaluate, or a syntax error")
    func mutants() throws {
        var mutator = Mutator(seed: 0xF17E_2026, corpus: try Mutator.corpus("filter"), tokens: Self.tokens)
        var compiled = 0
        for _ in 0..<2_000 {
            let expression = String(decoding: mutator.mutant(), as: UTF8.self)
            guard let filter = try? RowFilter(expression: expression) else { continue }
            compiled += 1
            _ = try? filter.matches(Self.row)
        }
        #expect(compiled > 100)
    }

    // Regressions found by the fuzzer: each crashed the process with a stack overflow.
    @Test("100,000 nested parentheses or nots are a syntax error", arguments: ["(", "not "])
    func deepNesting(open: String) {
        let close = open == "(" ? ")" : ""
        let expression = String(repeating: open, count: 100_000) + "a == 1" + String(repeating: close, count: 100_000)
        #expect(throws: ScreensPipeError.self) { try RowFilter(expression: expression) }
    }

    @Test("100,000 conditions chained with and/or are a syntax error", arguments: [" and ", " or "])
    func longChain(connective: String) {
        let expression = Array(repeating: "a == 1", count: 100_000).joined(separator: connective)
        #expect(throws: ScreensPipeError.self) { try RowFilter(expression: expression) }
    }

    @Test("expressions at the limits still compile and evaluate")
    func atTheLimits() throws {
        let nested = String(repeating: "not (", count: 32) + "visits == 12" + String(repeating: ")", count: 32)
        #expect(try RowFilter(expression: nested).matches(Self.row) == true)
        let chain = Array(repeating: "visits == 12", count: 512).joined(separator: " and ")
        #expect(try RowFilter(expression: chain).matches(Self.row) == true)
        let tooMany = Array(repeating: "visits == 12", count: 513).joined(separator: " and ")
        #expect(throws: ScreensPipeError.self) { try RowFilter(expression: tooMany) }
    }
}
