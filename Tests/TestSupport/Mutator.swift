import Foundation
import ScreensBus

/// A seeded mutation fuzzer for the tests: SplitMix64 from a fixed seed, so a failure
/// reproduces exactly; mutations aimed at text grammars (structural bytes, keywords, deep
/// nesting, long runs, splices of other corpus entries).
public struct Mutator {
    private var random: SplitMix64
    private let corpus: [[UInt8]]
    private let tokens: [[UInt8]]

    /// A mutator seeded with `seed` over `corpus`, inserting grammar `tokens`.
    public init(seed: UInt64, corpus: [[UInt8]], tokens: [String]) {
        random = SplitMix64(seed: seed)
        self.corpus = corpus
        self.tokens = tokens.map { Array($0.utf8) }
    }

    /// The next random number.
    public mutating func next() -> UInt64 { random.next() }

    /// A random number in `0..<bound` (0 when `bound` is at most 1).
    public mutating func below(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(next() % UInt64(bound)) }

    /// A corpus entry with one to four mutations applied.
    public mutating func mutant() -> [UInt8] {
        var bytes = corpus[below(corpus.count)]
        for _ in 0...below(4) { mutate(&bytes) }
        return bytes
    }

    private mutating func mutate(_ bytes: inout [UInt8]) {
        let position = below(bytes.count + 1)
        switch below(8) {
        case 0 where !bytes.isEmpty: // flip a bit
            bytes[min(position, bytes.count - 1)] ^= UInt8(1 << below(8))
        case 1: // a random byte, often a high one (broken UTF-8)
            bytes.insert(UInt8(truncatingIfNeeded: next()), at: position)
        case 2: // a token of the grammar
            bytes.insert(contentsOf: tokens[below(tokens.count)], at: position)
        case 3 where !bytes.isEmpty: // delete a range
            let end = min(bytes.count, position + 1 + below(16))
            bytes.removeSubrange(min(position, bytes.count - 1)..<end)
        case 4 where !bytes.isEmpty: // duplicate a range
            let start = min(position, bytes.count - 1)
            let end = min(bytes.count, start + 1 + below(64))
            bytes.insert(contentsOf: Array(bytes[start..<end]), at: start)
        case 5: // a long run of one token: deep nesting, long chains
            let token = tokens[below(tokens.count)]
            let repeats = [10, 100, 1_000, 5_000][below(4)]
            bytes.insert(contentsOf: Array(repeating: token, count: repeats).joined(), at: position)
        case 6: // splice in part of another entry
            let other = corpus[below(corpus.count)]
            guard !other.isEmpty else { return }
            let start = below(other.count)
            bytes.insert(contentsOf: other[start..<min(other.count, start + 1 + below(256))], at: position)
        default: // truncate
            bytes.removeSubrange(position..<bytes.count)
        }
    }

    /// The files of `fuzz/corpus/<name>/`, the seeds shared with `make fuzz`.
    public static func corpus(_ name: String) throws -> [[UInt8]] {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("fuzz/corpus/\(name)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        return try names.map { Array(try Data(contentsOf: folder.appendingPathComponent($0))) }
    }
}
