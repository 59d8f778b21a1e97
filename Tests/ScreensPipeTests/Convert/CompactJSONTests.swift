import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite("CompactJSON")
struct CompactJSONTests {
    @Test("an integer text is read as the integer exactly when the writer writes that integer back as the text")
    func canonicalIntegers() {
        var random = SplitMix64(seed: 0xC0_4A17)
        var texts = ["0", "-0", "00", "01", "-01", "7", "-7", "", "-", "1-", "1.0", "1e3", " 1", "1 ",
                     "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                     "18446744073709551615", "99999999999999999999", "10000000000000000000", "1000000000000000000"]
        let alphabet = Array("0123456789".utf8) + Array("-.e:/ a".utf8)
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...22, using: &random)
            var bytes = (0..<length).map { _ in UInt8(ascii: "0") + UInt8.random(in: 0...9, using: &random) }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: bytes.insert(UInt8(ascii: "-"), at: 0)
            case 1: bytes[Int.random(in: 0..<length, using: &random)] = alphabet.randomElement(using: &random)!
            default: if bytes.count > 1, bytes[0] == UInt8(ascii: "0") { bytes[0] = UInt8(ascii: "1") }
            }
            texts.append(String(decoding: bytes, as: UTF8.self))
        }
        for text in texts {
            let bytes = Array(text.utf8)
            let read = bytes.withUnsafeBufferPointer { CompactJSON.canonicalInteger($0, 0..<$0.count) }
            // Framed in other bytes too: the range is what is read, not the buffer around it.
            let framed = Array("9\(text)9".utf8)
            let readFramed = framed.withUnsafeBufferPointer { CompactJSON.canonicalInteger($0, 1..<($0.count - 1)) }
            var expected: Int64?
            if case .int(let value) = try? JSONValue(parsing: bytes), JSONValue.int(value).jsonBytes == bytes { expected = value }
            #expect(read == expected, "\(text)")
            #expect(readFramed == expected, "\(text)")
        }
    }
}
