import Testing
@testable import ScreensBus
@testable import ScreensJSON

@Suite("JSON parser")
struct JSONParserTests {
    @Test func scalars() throws {
        #expect(try JSONValue(parsing: "null") == .null)
        #expect(try JSONValue(parsing: "true") == .bool(true))
        #expect(try JSONValue(parsing: "false") == .bool(false))
        #expect(try JSONValue(parsing: "0") == .int(0))
        #expect(try JSONValue(parsing: "-17") == .int(-17))
        #expect(try JSONValue(parsing: "\"hi\"") == .string("hi"))
        #expect(try JSONValue(parsing: " \t\r\n[ 1 , 2 ]\n ") == .array([.int(1), .int(2)]))
    }

    @Test func int64Limits() throws {
        #expect(try JSONValue(parsing: "9223372036854775807") == .int(Int64.max))
        #expect(try JSONValue(parsing: "-9223372036854775808") == .int(Int64.min))
    }

    @Test func integersBeyondInt64KeepTheirText() throws {
        #expect(try JSONValue(parsing: "9223372036854775808") == .number("9223372036854775808"))
        #expect(try JSONValue(parsing: "-9223372036854775809") == .number("-9223372036854775809"))
        #expect(try JSONValue(parsing: "18446744073709551617") == .number("18446744073709551617"))
        #expect(try JSONValue(parsing: "123456789012345678901234567890") == .number("123456789012345678901234567890"))
    }

    @Test func doublesAreCorrectlyRounded() throws {
        let cases: [(String, Double)] = [
            ("0.1", 0.1), ("1e308", 1e308), ("-0.0", -0.0), ("1.5", 1.5), ("2.5e-3", 2.5e-3),
            ("1E2", 100), ("1e+2", 100), ("-1.25e-2", -0.0125),
            ("1.7976931348623157e308", 1.7976931348623157e308), ("5e-324", Double.leastNonzeroMagnitude),
            ("2.2250738585072014e-308", 2.2250738585072014e-308),
            ("0.30000000000000004", 0.30000000000000004),
            ("9007199254740993.0", 9007199254740992), // halfway: ties to even
            ("123456789012345678901234567890.5", 123456789012345678901234567890.5),
            ("0.000000000000000000000000001", 1e-27),
        ]
        for (text, expected) in cases {
            // A literal the writer would print differently keeps its text (`.number`); its
            // value, as Double, is still correctly rounded.
            let parsed = try JSONValue(parsing: text)
            guard let value = parsed.doubleValue else {
                Issue.record("\(text) parsed as \(parsed)")
                continue
            }
            #expect(value.bitPattern == expected.bitPattern, "\(text)")
            #expect(String(decoding: parsed.jsonBytes, as: UTF8.self) == text)
        }
    }

    @Test func numbersBeyondDoubleRangeKeepTheirText() throws {
        #expect(try JSONValue(parsing: "1e400") == .number("1e400"))
        #expect(try JSONValue(parsing: "-2.5E+99999999999") == .number("-2.5E+99999999999"))
        #expect(try JSONValue(parsing: "[1e400]").jsonString == "[1e400]")
        #expect(try JSONValue(parsing: "1e-400") == .number("1e-400"))
    }

    @Test func negativeZeroKeepsItsSign() throws {
        guard case .double(let value) = try JSONValue(parsing: "-0.0") else {
            Issue.record("not a double")
            return
        }
        #expect(value == 0 && value.sign == .minus)
    }

    @Test func everyEscape() throws {
        let parsed = try JSONValue(parsing: #""\"\\\/\b\f\n\r\t\u0041\u00e9\u4e2d""#)
        #expect(parsed == .string("\"\\/\u{08}\u{0C}\n\r\tAé中"))
    }

    @Test func surrogatePairsEscapedAndRaw() throws {
        #expect(try JSONValue(parsing: #""\ud83d\ude00""#) == .string("😀"))
        #expect(try JSONValue(parsing: #""\uD83D\uDE00""#) == .string("😀"))
        #expect(try JSONValue(parsing: "\"😀\"") == .string("😀"))
        #expect(try JSONValue(parsing: "\"a😀b\\n😀\"") == .string("a😀b\n😀"))
    }

    @Test func bmpAndAstralUnicode() throws {
        let text = "héllo wörld — 中文 日本語 한국어 𝄞 🇪🇸 \u{10FFFF}"
        #expect(try JSONValue(parsing: "\"\(text)\"") == .string(text))
    }

    @Test func keyOrderIsPreserved() throws {
        let parsed = try JSONValue(parsing: #"{"z":1,"a":2,"m":{"y":true,"b":null}}"#)
        #expect(parsed.objectValue?.keys == ["z", "a", "m"])
        #expect(parsed["m"]?.objectValue?.keys == ["y", "b"])
    }

    @Test func duplicateKeysLastWinsOnLookup() throws {
        let parsed = try JSONValue(parsing: #"{"a":1,"b":2,"a":3}"#)
        #expect(parsed["a"] == .int(3))
        #expect(parsed["b"] == .int(2))
    }

    @Test func nestingUpToTheLimit() throws {
        let depth = JSONParser.maxDepth
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var value = try JSONValue(parsing: text)
        #expect(value.jsonString == text)
        var levels = 1
        while case .array(let elements) = value, let inner = elements.first {
            value = inner
            levels += 1
        }
        #expect(levels == depth)

        let objects = String(repeating: #"{"k":"#, count: depth) + "0" + String(repeating: "}", count: depth)
        #expect(throws: Never.self) { try JSONValue(parsing: objects) }
    }

    @Test func nestingOnePastTheLimitIsAnError() {
        let depth = JSONParser.maxDepth + 1
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: JSONParseError(offset: depth - 1, message: "nesting deeper than 512 levels")) {
            try JSONValue(parsing: text)
        }
    }

    @Test func parsesFromBytesStringAndBuffer() throws {
        let text = #"{"entryId":20143000000000001,"name":"Ñandú"}"#
        let fromString = try JSONValue(parsing: text)
        let fromBytes = try JSONValue(parsing: Array(text.utf8))
        let fromBuffer = try Array(text.utf8).withUnsafeBytes { buffer in try JSONValue(parsing: buffer) }
        #expect(fromString == fromBytes)
        #expect(fromString == fromBuffer)
        #expect(fromString["entryId"] == .int(20_143_000_000_000_001))
    }
}

@Suite("JSON integers of every length")
struct JSONIntegerLengthTests {
    /// Covers the eight-digits-at-a-time path at every length and at the 19/20-digit boundary.
    @Test(arguments: 1...21)
    func integersOfEveryLength(digits: Int) throws {
        let text = String("98765432109876543210123".prefix(digits))
        for candidate in [text, "-" + text, "[" + text + ",1]", text + " "] {
            let parsed = try JSONValue(parsing: candidate)
            let value = parsed.arrayValue?.first ?? parsed
            let literal = candidate.hasPrefix("-") ? "-" + text : text
            if let exact = Int64(literal) {
                #expect(value == .int(exact), "\(candidate)")
            } else {
                #expect(value == .number(literal), "\(candidate)")
            }
        }
    }

    @Test func longDigitRunsFollowedByFractionOrExponent() throws {
        #expect(try JSONValue(parsing: "123456789.5") == .double(123_456_789.5))
        #expect(try JSONValue(parsing: "12345678e2").doubleValue == 1_234_567_800)
        #expect(try JSONValue(parsing: "1234567890123456.25").doubleValue == 1_234_567_890_123_456.25)
        #expect(throws: JSONParseError(offset: 8, message: "unexpected characters after the value")) {
            try JSONValue(parsing: "12345678x")
        }
    }
}

@Suite("JSON parser special bytes at every position")
struct JSONParserPositionTests {
    /// The parser scans strings eight bytes at a time: put an escape, a non-ASCII character and
    /// a raw control character at every position of strings around that width.
    @Test func specialBytesAtEveryPosition() throws {
        for length in 1...20 {
            for position in 0..<length {
                let before = String(repeating: "a", count: position)
                let after = String(repeating: "b", count: length - position - 1)
                #expect(try JSONValue(parsing: "\"\(before)\\n\(after)\"") == .string(before + "\n" + after))
                #expect(try JSONValue(parsing: "\"\(before)é\(after)\"") == .string(before + "é" + after))
                #expect(try JSONValue(parsing: "\"\(before)\\\"\(after)\"") == .string(before + "\"" + after))
                #expect(throws: JSONParseError(offset: 1 + position, message: "control character in a string must be escaped")) {
                    try JSONValue(parsing: "\"\(before)\u{1}\(after)\"")
                }
                // As an object key too, which goes through the key cache.
                let object = try JSONValue(parsing: "[{\"\(before)x\(after)\":1},{\"\(before)y\(after)\":2}]")
                #expect(object[1]?.objectValue?.keys == [before + "y" + after])
            }
        }
    }
}
