// libFuzzer target: a cache page's rows read back by their stored index
// (JSONElementTexts(storedArray:index:)), on any text and offsets a damaged or hand-edited
// cache file could hold. The input is a text, a 0xFF byte, then 4-byte offsets; the index is
// sealed with the right digest, as a forger would, so the offsets' own checks are what is
// fuzzed. Reading must never trap, and what it accepts must be exactly the text's elements
// between its separators: as many as the offsets, none empty, joined back into the text.
// When the text is a JSON array, its texts stored and read back must be the texts kept.
// @testable: the digest is package-internal; scripts/fuzz.sh builds with -enable-testing.
@testable import ScreensBus

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoredArray(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let split = bytes.firstIndex(of: 0xFF) ?? bytes.count
    let text = Array(bytes[..<split])
    var offsets = Array(bytes[min(split + 1, bytes.count)...])
    offsets.removeLast(offsets.count % 4)

    let digest = JSONElementTexts.storedDigest(text: text, offsets: offsets[...])
    let index = withUnsafeBytes(of: digest.littleEndian) { Array($0) } + offsets
    if let texts = JSONElementTexts(storedArray: text, index: index) {
        guard texts.count == offsets.count / 4 else { fatalError("\(texts.count) elements for \(offsets.count / 4) offsets: \(bytes)") }
        var rebuilt: [UInt8] = [UInt8(ascii: "[")]
        for element in 0..<texts.count {
            guard let piece = texts[element], !piece.isEmpty else { fatalError("element \(element) is empty: \(bytes)") }
            if element > 0 { rebuilt.append(UInt8(ascii: ",")) }
            rebuilt += piece
        }
        rebuilt.append(UInt8(ascii: "]"))
        guard rebuilt == text else { fatalError("the elements do not make the text again: \(bytes)") }
    }
    // Any other digest: refused (a chance of 2^-64 aside, which no input here can find).
    var other = index
    if other.count >= 8 { other[0] ^= 0x01 }
    if JSONElementTexts(storedArray: text, index: other) != nil { fatalError("an index with another digest was read: \(bytes)") }

    if let kept = try? JSONValue.parseArrayKeepingTexts(text, skippingElements: true)?.texts {
        let (stored, storedIndex) = kept.storedArray
        guard let storedIndex, let read = JSONElementTexts(storedArray: stored, index: storedIndex), read.count == kept.count else {
            fatalError("a stored array was not read back: \(bytes)")
        }
        for element in 0..<kept.count where read[element].map(Array.init) != kept[element].map(Array.init) {
            fatalError("element \(element) read back otherwise: \(bytes)")
        }
    }
    return 0
}
