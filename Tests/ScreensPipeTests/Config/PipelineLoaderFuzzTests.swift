import ScreensPipe
import TestSupport
import Testing

/// The YAML pipeline loader on mutated pipeline files: every input loads or throws
/// a configuration `ScreensPipeError` with at least one message.
@Suite("Fuzz: YAML pipeline loader")
struct PipelineLoaderFuzzTests {
    static let tokens = ["\n", ": ", "- ", "{", "}", "[", "]", ",", "  ", "\t", "&a ", "*a", "!!str ", "'", "\"", "${X}", "${X:?m}", "$$", "|\n", "? ", "#", "---\n", "%YAML 1.1\n", "<<: *a\n", "é"]

    @Test("1,500 seeded mutants of the bundled pipelines: a spec or located errors")
    func mutants() throws {
        var mutator = Mutator(seed: 0x9A3_1C0F, corpus: try Mutator.corpus("yaml"), tokens: Self.tokens)
        let loader = PipelineLoader(environment: ["X": "1"])
        var loaded = 0
        for _ in 0..<1_500 {
            let text = String(decoding: mutator.mutant(), as: UTF8.self)
            do {
                _ = try loader.load(yaml: text, file: "mutant.yaml")
                loaded += 1
            } catch {
                #expect(!String(describing: error).isEmpty)
            }
        }
        #expect(loaded > 50)
    }

    enum Nesting: String, CaseIterable, CustomTestStringConvertible {
        case flowSequences, flowMappings, blockMappings, blockSequences
        var testDescription: String { rawValue }
        var text: String {
            switch self {
            case .flowSequences: "a: " + String(repeating: "[", count: 100_000)
            case .flowMappings: "a: " + String(repeating: "{b: ", count: 100_000)
            case .blockMappings: "a:\n" + (1..<3_000).map { String(repeating: " ", count: $0) + "k:\n" }.joined()
            case .blockSequences: String(repeating: "- ", count: 50_000) + "x"
            }
        }
    }

    @Test("deeply nested YAML is an error, not a stack overflow", arguments: Nesting.allCases)
    func deepNesting(nesting: Nesting) {
        #expect(throws: ScreensPipeError.self) { try PipelineLoader(environment: [:]).load(yaml: nesting.text) }
    }
}
