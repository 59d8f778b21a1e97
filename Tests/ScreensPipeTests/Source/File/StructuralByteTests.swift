import Testing

@testable import ScreensPipeCore

/// `JSONFileScanner.structuralByte` finds the next quote or bracket a word at a time: every
/// byte value, at every place in the word and every alignment, against a byte-by-byte search.
@Suite("File scanner: the next quote or bracket")
struct StructuralByteTests {
    private static func naive(_ bytes: [UInt8], from start: Int) -> Int {
        bytes[start...].firstIndex { [0x22, 0x5B, 0x5D, 0x7B, 0x7D].contains($0) } ?? bytes.count
    }

    @Test("each byte value, at every offset of a run of indentation, is found or passed as a search byte by byte does")
    func everyByteEverywhere() {
        for value in UInt8.min...UInt8.max {
            for length in 1...19 {
                for place in 0..<length {
                    var bytes = [UInt8](repeating: 0x20, count: length)
                    bytes[place] = value
                    for start in 0...min(place + 1, length) {
                        let found = bytes.withUnsafeMutableBufferPointer { buffer in
                            JSONFileScanner.structuralByte(in: buffer.baseAddress!, from: start, to: length)
                        }
                        #expect(found == Self.naive(bytes, from: start), "byte \(value) at \(place) of \(length) from \(start)")
                    }
                }
            }
        }
    }

    @Test("in a pretty-printed row, the first of several candidates is the one found")
    func firstOfSeveral() {
        let text = Array(#"  ,  1, true:  "x" [ ] { } "#.utf8)
        var positions: [Int] = []
        var cursor = 0
        var bytes = text
        while cursor < bytes.count {
            cursor = bytes.withUnsafeMutableBufferPointer { JSONFileScanner.structuralByte(in: $0.baseAddress!, from: cursor, to: $0.count) }
            if cursor < bytes.count { positions.append(cursor) }
            cursor += 1
        }
        let expected = text.indices.filter { [0x22, 0x5B, 0x5D, 0x7B, 0x7D].contains(text[$0]) }
        #expect(positions == expected)
    }
}
