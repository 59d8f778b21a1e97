import Testing
import ScreensBus

@Suite("JSON round trips")
struct JSONRoundTripTests {
    private func roundTrip(_ value: JSONValue) throws -> JSONValue {
        try JSONValue(parsing: value.jsonBytes)
    }

    @Test func extremeNumbers() throws {
        let values: [JSONValue] = [
            .int(Int64.max), .int(Int64.min), .number("18446744073709551617"), .number("-18446744073709551617"),
            .double(1e308), .double(0.1), .double(.leastNonzeroMagnitude), .double(1.7976931348623157e308), .double(-1.5e-7),
        ]
        for value in values {
            #expect(try roundTrip(value) == value)
        }
        guard case .double(let zero) = try roundTrip(.double(-0.0)) else {
            Issue.record("-0.0 did not come back as a double")
            return
        }
        #expect(zero.sign == .minus && zero == 0)
    }

    @Test func textRoundTripsExactly() throws {
        let texts = [
            #"{"a":[1,-2,3.5,"x\ny",null,true,{}],"b":{"c":[]}}"#,
            #"[18446744073709551617,-0.0,1e+308,"\u0000😀"]"#,
        ]
        for text in texts {
            #expect(try JSONValue(parsing: text).jsonString == text)
        }
    }

    @Test func stringsRoundTripExactly() throws {
        let strings = ["", "plain", "😀", "\u{D7FF}\u{E000}\u{FFFF}\u{10000}\u{10FFFF}", "\"\\/\u{0}\u{1F}",
                       "e\u{301} vs é", "\r\n", String(repeating: "ñ", count: 1000)]
        for string in strings {
            #expect(try roundTrip(.string(string)) == .string(string))
        }
    }

    @Test func seededRandomValuesRoundTrip() throws {
        var generator = SplitMix64(seed: 0x5C12_EE25)
        for _ in 0..<2_000 {
            let value = randomValue(depth: 0, using: &generator)
            let written = value.jsonBytes
            let parsed = try JSONValue(parsing: written)
            #expect(parsed == value, "\(String(decoding: written, as: UTF8.self))")
            #expect(parsed.jsonBytes == written)
        }
    }

    private func randomValue(depth: Int, using generator: inout SplitMix64) -> JSONValue {
        let kind = Int.random(in: 0..<(depth < 4 ? 9 : 7), using: &generator)
        switch kind {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2:
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: return .int(Int64.random(in: -1000...1000, using: &generator))
            case 1: return .int(Int64.random(in: .min ... .max, using: &generator))
            default: return .int([Int64.min, Int64.max, 0, -1][Int.random(in: 0..<4, using: &generator)])
            }
        case 3:
            var double = Double(bitPattern: UInt64.random(in: 0 ... .max, using: &generator))
            if !double.isFinite { double = Double.random(in: -1e6...1e6, using: &generator) }
            return .double(double)
        case 4:
            let digits = (0..<Int.random(in: 20...40, using: &generator)).map { index in
                String(Int.random(in: (index == 0 ? 1 : 0)...9, using: &generator))
            }
            return .number((Bool.random(using: &generator) ? "-" : "") + digits.joined())
        case 5, 6: return .string(randomString(using: &generator))
        case 7:
            return .array((0..<Int.random(in: 0..<6, using: &generator)).map { _ in
                randomValue(depth: depth + 1, using: &generator)
            })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0..<6, using: &generator) {
                object.appendUnchecked(key: randomString(using: &generator), value: randomValue(depth: depth + 1, using: &generator))
            }
            return .object(object)
        }
    }

    private func randomString(using generator: inout SplitMix64) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0..<12, using: &generator) {
            let value: UInt32
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: value = UInt32.random(in: 0..<0x20, using: &generator)
            case 1, 2: value = UInt32.random(in: 0x20..<0x7F, using: &generator)
            case 3: value = UInt32.random(in: 0x80..<0xD800, using: &generator)
            default: value = UInt32.random(in: 0x10000...0x10FFFF, using: &generator)
            }
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }
}
