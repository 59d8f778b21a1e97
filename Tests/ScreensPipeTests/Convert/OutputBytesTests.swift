import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite("OutputBytes")
struct OutputBytesTests {
    @Test("pieces of every length, at every offset, through growth, hold what an array holds")
    func piecesOfEveryLength() {
        var random = SplitMix64(seed: 0x0B_7E5)
        let source = (0..<200).map { _ in UInt8.random(in: 0...255, using: &random) }
        var output = OutputBytes(capacity: 16)
        var expected: [UInt8] = []
        source.withUnsafeBufferPointer { source in
            for round in 0..<2_000 {
                let start = Int.random(in: 0..<source.count, using: &random)
                let length = Int.random(in: 0...min(40, source.count - start), using: &random)
                let piece = UnsafeBufferPointer(rebasing: source[start..<(start + length)])
                switch round % 4 {
                case 0: output.append(piece)
                case 1: output.append(contentsOf: Array(piece))
                case 2: output.append(contentsOf: [UInt8](piece).lazy.map { $0 })  // not contiguous
                default:
                    output.append(UInt8(truncatingIfNeeded: round))
                    expected.append(UInt8(truncatingIfNeeded: round))
                    output.append(piece)
                }
                expected.append(contentsOf: piece)
                if round % 97 == 96 {
                    let kept = Int.random(in: 0...expected.count, using: &random)
                    output.truncate(to: kept)
                    expected.removeSubrange(kept...)
                }
                #expect(Array(output.bytes) == expected)
            }
        }
        #expect(output.capacity >= output.count)
    }

    @Test("a copy keeps its bytes when the other copy grows")
    func copiesSurviveGrowth() {
        var output = OutputBytes(capacity: 16)
        output.append(contentsOf: Array("0123456789".utf8))
        let copy = output
        output.append(contentsOf: Array(repeating: UInt8(ascii: "x"), count: 1_000))
        #expect(Array(copy.bytes) == Array("0123456789".utf8))
        #expect(output.count == 1_010)
        #expect(Array(output.bytes.prefix(10)) == Array("0123456789".utf8))
    }

    @Test("advance counts bytes written into reserved room")
    func reserveAndAdvance() {
        var output = OutputBytes(capacity: 16)
        output.append(contentsOf: Array("ab".utf8))
        output.reserve(100)
        #expect(output.capacity - output.count >= 100)
        for offset in 0..<100 { output.base[output.count + offset] = UInt8(ascii: "a") + UInt8(offset % 26) }
        output.advance(by: 100)
        #expect(output.count == 102)
        #expect(output.bytes[101] == UInt8(ascii: "a") + 99 % 26)
    }
}
