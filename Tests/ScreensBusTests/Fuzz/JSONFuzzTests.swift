import ScreensBus
import TestSupport
import Testing

/// The JSON parser on mutated page bodies: every input either parses, and then writes back
/// to text that parses to the same value, or throws a `JSONParseError` inside the input.
@Suite("Fuzz: JSON parser")
struct JSONFuzzTests {
    static let tokens = ["[", "]", "{", "}", ",", ":", "\"", "\\", "\\u", "\\ud800", "0", "-", "1e", ".5", "9223372036854775808", "true", "null", " ", "\u{0}", "é", "😀"]

    @Test("3,000 seeded mutants of the corpus: parse, round-trip or a located error")
    func mutants() throws {
        var mutator = Mutator(seed: 0x5C12_EE45, corpus: try Mutator.corpus("json"), tokens: Self.tokens)
        var parsed = 0
        for _ in 0..<3_000 {
            let input = mutator.mutant()
            do {
                let value = try JSONValue(parsing: input)
                parsed += 1
                #expect(try JSONValue(parsing: value.jsonBytes) == value, "round trip of \(String(decoding: input, as: UTF8.self).prefix(200))")
            } catch {
                #expect(error.offset >= 0 && error.offset <= input.count)
            }
        }
        // The mutants must not all be garbage, or the writer half is never exercised.
        #expect(parsed > 150)
    }

    @Test("100,000 nested arrays or objects: an error, not a stack overflow", arguments: ["[", "{\"a\":"])
    func deepNesting(open: String) {
        let input = String(repeating: open, count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: input) }
    }
}
