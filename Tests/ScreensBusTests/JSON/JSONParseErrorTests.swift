import Testing
import ScreensBus

@Suite("JSON parse errors")
struct JSONParseErrorTests {
    /// Parses `bytes` and returns the error's offset, or nil when it parsed.
    private func errorOffset(_ bytes: [UInt8]) -> Int? {
        do {
            _ = try JSONValue(parsing: bytes)
            return nil
        } catch {
            return error.offset
        }
    }

    private func errorOffset(_ text: String) -> Int? { errorOffset(Array(text.utf8)) }

    @Test(arguments: [
        ("", 0), ("   ", 3), ("[", 1), ("[1", 2), ("[1,", 3), ("{", 1), (#"{"a""#, 4), (#"{"a":"#, 5),
        (#"{"a":1"#, 6), (#""abc"#, 4), ("tru", 3), ("-", 1), ("1e", 2), ("1.", 2), ("1e+", 3),
    ])
    func truncatedDocuments(text: String, offset: Int) {
        #expect(errorOffset(text) == offset, "\(text)")
    }

    @Test(arguments: [
        ("[1,]", 3), (#"{"a" 1}"#, 5), (#"{"a":1,}"#, 7), ("{a:1}", 1), ("[1 2]", 3), (#"{"a":1 "b":2}"#, 7),
        ("01", 1), ("-01", 2), (".5", 0), ("+1", 0), ("1.e5", 2), ("1.5e", 4), ("1ex", 2), ("--1", 1),
        ("nul", 3), ("nulx", 3), ("True", 0), ("NaN", 0), ("Infinity", 0), ("[1] x", 4), ("1 2", 2),
        ("{} {}", 3), ("[1]]", 3), ("// c\n1", 0), ("'a'", 0),
    ])
    func invalidSyntax(text: String, offset: Int) {
        #expect(errorOffset(text) == offset, "\(text)")
    }

    @Test(arguments: [
        (#""\x""#, 2), (#""\u12""#, 5), (#""\u12g4""#, 5), (#""\ud800""#, 1), (#""ab\udc00""#, 3),
        (#""\ud83d\u0041""#, 1), (#""\ud83dx""#, 1), (#""\"#, 2),
    ])
    func invalidEscapes(text: String, offset: Int) {
        #expect(errorOffset(text) == offset, "\(text)")
    }

    @Test func rawControlCharactersInStringsAreErrors() {
        for byte in UInt8(0)..<0x20 {
            #expect(errorOffset([0x22, 0x61, byte, 0x22]) == 2, "byte \(byte)")
        }
        #expect(errorOffset("\"line\nbreak\"") == 5)
    }

    @Test func invalidUTF8IsAnError() {
        let q: UInt8 = 0x22
        let cases: [([UInt8], Int)] = [
            ([q, 0x80, q], 1),                   // continuation byte without a lead
            ([q, 0x61, 0xC3, q], 2),             // truncated 2-byte sequence
            ([q, 0xC0, 0xAF, q], 1),             // overlong '/'
            ([q, 0xE0, 0x80, 0xAF, q], 1),       // overlong 3-byte
            ([q, 0xED, 0xA0, 0x80, q], 1),       // UTF-8 encoded surrogate
            ([q, 0xF4, 0x90, 0x80, 0x80, q], 1), // above U+10FFFF
            ([q, 0xF5, 0x80, 0x80, 0x80, q], 1),
            ([q, 0xFF, q], 1),
            ([q, 0x61, 0x5C, 0x6E, 0xE2, 0x82, q], 4), // in the escape slow path
            ([0xC3, 0xA9], 0),                   // outside a string
        ]
        for (bytes, offset) in cases {
            #expect(errorOffset(bytes) == offset, "\(bytes)")
        }
    }

    @Test func descriptionNamesTheOffset() {
        do {
            _ = try JSONValue(parsing: "[1,]")
            Issue.record("parsed")
        } catch {
            #expect(error.description == "invalid JSON at byte 3: expected a value")
        }
    }
}
