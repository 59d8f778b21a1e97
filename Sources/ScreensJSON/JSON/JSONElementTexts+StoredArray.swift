/// A page of element texts as a store keeps it: the array's compact text, and an index of
/// where each element ends in it, sealed by a digest of both.
///
/// A store reads the texts back from the two without checking the elements again: the
/// digest says the text and the index are the ones stored together, and each offset must
/// land on a `,` (the last on the `]`) past the one before. Texts are only ever kept for
/// values that parsed, so a text whose digest matches holds exactly the elements that were
/// stored. A text or an index that was changed, cut or hand-edited since, or an index from
/// another text, is not accepted: the store then checks the text in full, as it would with
/// no index (a damaged text is an error there).
///
/// The digest detects damage and edits; it is not a signature. Someone who rewrites a text
/// and its digest on purpose can place an offset on a comma inside a value, and the rows
/// read then are not the rows stored; such a person can write any rows into the store anyway.
///
/// The index is 8 bytes of digest, then one 4-byte offset per element: the position of the
/// `,` or `]` after it. All little-endian. The digest's key is fixed (``storedDigestKey``):
/// indexes outlive the process, so the key and the digest must never change.
extension JSONElementTexts {
    /// The key of the stored digest. Part of the stored format: never change it.
    static let storedDigestKey: UInt64 = 0x7363_7265_656E_7370

    /// The array as compact JSON (``arrayText``) and its index; the index is nil when the
    /// text is too large for 4-byte offsets (the store then keeps the text alone).
    package var storedArray: (text: [UInt8], index: [UInt8]?) {
        let text = arrayText
        guard text.count <= Int(UInt32.max) else { return (text, nil) }
        var index: [UInt8] = []
        index.reserveCapacity(8 + 4 * ranges.count)
        index.append(contentsOf: repeatElement(0, count: 8))
        // Element `k` starts one byte after the `[` or `,` before it: its end in the array is
        // one past the ends (and separators) before it.
        var end = 0
        for range in ranges {
            end += 1 + range.count
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: end).littleEndian) { index.append(contentsOf: $0) }
        }
        let digest = Self.storedDigest(text: text, offsets: index[8...])
        withUnsafeBytes(of: digest.littleEndian) { index.replaceSubrange(0..<8, with: $0) }
        return (text, index)
    }

    /// The digest of a stored text and its offsets (the index after its digest).
    static func storedDigest(text: [UInt8], offsets: ArraySlice<UInt8>) -> UInt64 {
        let textDigest = text.withUnsafeBytes { digest(of: $0, ranges: [0..<$0.count], key: storedDigestKey) }
        return offsets.withUnsafeBytes { digest(of: $0, ranges: [0..<$0.count], key: textDigest) }
    }

    /// The texts of the array `text` as ``storedArray`` stored it with `index`; nil when the
    /// index is not `text`'s (another digest, an offset off the separators, a count that
    /// does not add up).
    package init?(storedArray text: [UInt8], index: [UInt8]) {
        guard index.count >= 8, (index.count - 8) % 4 == 0, text.count >= 2, text.count <= Int(UInt32.max) else { return nil }
        let elements = (index.count - 8) / 4
        // Each element takes at least one byte and a separator.
        guard elements <= (text.count - 1) / 2 else { return nil }
        let ranges = text.withUnsafeBytes { bytes -> [Range<Int>]? in
            guard bytes[0] == JSONByte.openBracket, bytes[bytes.count - 1] == JSONByte.closeBracket else { return nil }
            let stored = index.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
            guard Self.storedDigest(text: text, offsets: index[8...]) == stored else { return nil }
            if elements == 0 { return bytes.count == 2 ? [] : nil }
            var ranges: [Range<Int>] = []
            ranges.reserveCapacity(elements)
            var start = 1
            let ok = index.withUnsafeBytes { offsets in
                for element in 0..<elements {
                    let end = Int(UInt32(littleEndian: offsets.loadUnaligned(fromByteOffset: 8 + 4 * element, as: UInt32.self)))
                    let isLast = element == elements - 1
                    guard end > start, isLast ? end == bytes.count - 1 : end < bytes.count - 1 else { return false }
                    guard bytes[end] == (isLast ? JSONByte.closeBracket : JSONByte.comma) else { return false }
                    ranges.append(start..<end)
                    start = end + 1
                }
                return true
            }
            return ok ? ranges : nil
        }
        guard let ranges else { return nil }
        self.init(text: text, ranges: ranges, compacting: false)
    }
}
