import Testing

@testable import ScreensBus
@testable import ScreensJSON

/// A page's texts as a store keeps them: read back by their index only when the index is the
/// text's, whatever was changed in either.
@Suite("Stored arrays")
struct StoredArrayTests {
    private func texts(_ text: String) throws -> JSONElementTexts {
        try #require(try JSONValue.parseArrayKeepingTexts(Array(text.utf8), skippingElements: true)).texts
    }

    private func strings(_ texts: JSONElementTexts) -> [String] {
        (0..<texts.count).map { String(decoding: texts[$0] ?? [], as: UTF8.self) }
    }

    static let arrays = [
        "[]", "[1]", "[null]", #"[""]"#, "[[],{}]", #"[{"a":1},{"a":2}]"#,
        #"[{"b":1,"a":1.50},18446744073709551617,"\u00e9\/",[],1E+2,-0.0]"#,
        #"[{"s":"a,b]c","t":"\",\\"},{"n":[1,[2,[3]]]}]"#,
        "[\n {\"pretty\" : [ 1 , 2 ] },\n 3\n]",
    ]

    @Test("the texts come back as they were kept", arguments: arrays)
    func roundTrips(_ array: String) throws {
        let kept = try texts(array)
        let (text, index) = kept.storedArray
        let stored = try #require(index)
        #expect(stored.count == 8 + 4 * kept.count)
        #expect(text == kept.arrayText)
        let read = try #require(JSONElementTexts(storedArray: text, index: stored))
        #expect(strings(read) == strings(kept))
        for position in 0..<read.count { #expect(read.value(at: position) == kept.value(at: position)) }
        #expect(read.contentDigest == kept.contentDigest)
    }

    @Test("a text changed in any byte, cut or lengthened is not read by the index", arguments: arrays)
    func changedTextsAreRefused(_ array: String) throws {
        let (text, index) = try texts(array).storedArray
        let stored = try #require(index)
        for position in text.indices {
            for replacement: UInt8 in [0x20, 0x31, UInt8(ascii: ","), UInt8(ascii: "]"), text[position] ^ 0x01] where replacement != text[position] {
                var changed = text
                changed[position] = replacement
                #expect(JSONElementTexts(storedArray: changed, index: stored) == nil, "byte \(position) to \(replacement)")
            }
        }
        #expect(JSONElementTexts(storedArray: Array(text.dropLast()), index: stored) == nil)
        #expect(JSONElementTexts(storedArray: text + [0x20], index: stored) == nil)
        #expect(JSONElementTexts(storedArray: [], index: stored) == nil)
    }

    @Test("an index changed in any byte, cut, lengthened or another text's is refused", arguments: arrays)
    func changedIndexesAreRefused(_ array: String) throws {
        let (text, index) = try texts(array).storedArray
        let stored = try #require(index)
        for position in stored.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var changed = stored
                changed[position] ^= flip
                #expect(JSONElementTexts(storedArray: text, index: changed) == nil, "byte \(position) ^ \(flip)")
            }
        }
        #expect(JSONElementTexts(storedArray: text, index: Array(stored.dropLast())) == nil)
        #expect(JSONElementTexts(storedArray: text, index: Array(stored.dropLast(4))) == nil)
        #expect(JSONElementTexts(storedArray: text, index: stored + [0, 0, 0, 0]) == nil)
        #expect(JSONElementTexts(storedArray: text, index: []) == nil)
        for other in Self.arrays where other != array {
            let otherIndex = try #require(try texts(other).storedArray.index)
            #expect(JSONElementTexts(storedArray: text, index: otherIndex) == nil, "\(other)")
        }
    }

    @Test("offsets are checked against the separators, even under a matching digest")
    func offsetsAreCheckedAgainstTheSeparators() throws {
        let text = Array(#"[{"a":"x,y"},[1,2],3]"#.utf8)
        func index(_ ends: [UInt32]) -> [UInt8] {
            var offsets: [UInt8] = []
            for end in ends { withUnsafeBytes(of: end.littleEndian) { offsets.append(contentsOf: $0) } }
            let digest = JSONElementTexts.storedDigest(text: text, offsets: offsets[...])
            return withUnsafeBytes(of: digest.littleEndian) { Array($0) } + offsets
        }
        let good = try #require(JSONElementTexts(storedArray: text, index: index([12, 18, 20])))
        #expect(strings(good) == [#"{"a":"x,y"}"#, "[1,2]", "3"])
        // The same bytes a store makes for this array.
        #expect(index([12, 18, 20]) == (try texts(String(decoding: text, as: UTF8.self)).storedArray.index))
        // Each of these lands on a byte that is not a separator, ends early or late, or has
        // an empty element.
        for ends: [UInt32] in [[12, 17, 20], [12, 18], [12, 18, 20, 20], [12, 12, 20], [0, 18, 20], [12, 18, 19], [12, 18, 21], [12, 18, UInt32.max], [UInt32.max]] {
            #expect(JSONElementTexts(storedArray: text, index: index(ends)) == nil, "\(ends)")
        }
        // No elements: only for `[]`.
        #expect(JSONElementTexts(storedArray: text, index: index([])) == nil)
        // A comma inside a value is a comma: an index forged with its digest can split there.
        // The digest detects damage, not forgery (see the stored array's documentation).
        #expect(JSONElementTexts(storedArray: text, index: index([8, 18, 20])) != nil)
    }

    @Test("random indexes over random texts never trap and are refused")
    func randomIndexesNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<40, using: &generator)
            var text = (0..<length).map { _ in [UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: "1")].randomElement(using: &generator)! }
            if Bool.random(using: &generator), length >= 2 { (text[0], text[length - 1]) = (UInt8(ascii: "["), UInt8(ascii: "]")) }
            let index = (0..<(8 + 4 * Int.random(in: 0..<6, using: &generator))).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(JSONElementTexts(storedArray: text, index: index) == nil)
        }
    }
}
