import Testing

@testable import ScreensJSON

/// `JSONValueDecoder`: Decodable types straight from values, numbers exact or refused.
@Suite("JSONValue decoder")
struct JSONValueDecoderTests {
    struct Author: Decodable, Equatable {
        let name: String
        let email: String?
    }

    struct Entry: Decodable, Equatable {
        let entryId: Int64
        let name: String
        let visits: Int
        let score: Double
        let published: Bool
        let author: Author
        let tags: [String]
        let note: String?
        let rating: Int?
    }

    private func parse(_ text: String) throws -> JSONValue { try JSONValue(parsing: text) }

    /// The error `decode` throws, as one line (`path: reason`).
    private func failure<T: Decodable>(_ type: T.Type, _ text: String, decoder: JSONValueDecoder = JSONValueDecoder()) throws -> String {
        do {
            let decoded = try decoder.decode(T.self, from: try parse(text))
            Issue.record("decoded \(decoded) from \(text)")
            return ""
        } catch let error as DecodingError {
            return error.pathAndReason
        }
    }

    @Test("nested objects, arrays, optionals: null and a missing key are nil")
    func nestedTypes() throws {
        let row = try parse(
            #"{"entryId":30001,"name":"Liferay","visits":3,"score":2.5,"published":true,"author":{"name":"Ana","email":null},"tags":["a","b"],"note":null}"#)
        let entry = try JSONValueDecoder().decode(Entry.self, from: row)
        #expect(entry == Entry(
            entryId: 30001, name: "Liferay", visits: 3, score: 2.5, published: true, author: Author(name: "Ana", email: nil),
            tags: ["a", "b"], note: nil, rating: nil))
        #expect(try JSONValueDecoder().decode([Int8].self, from: parse("[1,-2,127]")) == [1, -2, 127])
        #expect(try JSONValueDecoder().decode([String: Int].self, from: parse(#"{"a":1,"b":2}"#)) == ["a": 1, "b": 2])
        #expect(try JSONValueDecoder().decode(JSONValue.self, from: row) == row)
    }

    @Test("a wrong type names the field's path and what was found, never a string as a number")
    func wrongTypes() throws {
        #expect(try failure(Entry.self, #"{"entryId":"30001","name":"x","visits":1,"score":1,"published":true,"author":{"name":"a"},"tags":[]}"#)
            == "entryId: expected an integer, found a string (5 characters)")
        #expect(try failure(Entry.self, #"{"entryId":1,"name":"x","visits":1,"score":1,"published":true,"author":{"name":7},"tags":[]}"#)
            == "author.name: expected a string, found the number 7")
        #expect(try failure(Entry.self, #"{"entryId":1,"name":"x","visits":1,"score":1,"published":true,"author":{"name":"a"},"tags":["a",null]}"#)
            == "tags[1]: expected a string, found null")
        #expect(try failure(Entry.self, #"{"entryId":1,"name":"x","visits":1,"score":1,"published":1,"author":{"name":"a"},"tags":[]}"#)
            == "published: expected true or false, found the number 1")
        #expect(try failure(Entry.self, #"{"entryId":1,"visits":1,"score":1,"published":true,"author":{"name":"a"},"tags":[]}"#)
            == "name: no member 'name'")
        #expect(try failure(Entry.self, "[1]") == "expected an object, found an array of 1")
        #expect(try failure(String.self, "12") == "expected a string, found the number 12")
    }

    /// Whether decoding `text` as `T` throws `valueNotFound` (and not `typeMismatch`).
    private func isValueNotFound<T: Decodable>(_ type: T.Type, _ text: String, decoder: JSONValueDecoder = JSONValueDecoder()) throws -> Bool {
        do {
            _ = try decoder.decode(T.self, from: try parse(text))
            return false
        } catch DecodingError.valueNotFound {
            return true
        } catch {
            return false
        }
    }

    /// Reads `null` itself, through its own `init(from:)`.
    struct NullMeansZero: Decodable, Equatable {
        let value: Int
        init(value: Int) { self.value = value }
        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            value = single.decodeNil() ? 0 : try single.decode(Int.self)
        }
    }

    @Test("null where a value is expected is valueNotFound; optionals and a type's own init(from:) still see it")
    func nullIsValueNotFound() throws {
        #expect(try isValueNotFound(String.self, "null"))
        #expect(try isValueNotFound(Bool.self, "null"))
        #expect(try isValueNotFound(Int64.self, "null"))
        #expect(try isValueNotFound(UInt8.self, "null"))
        #expect(try isValueNotFound(Double.self, "null"))
        #expect(try isValueNotFound(Float.self, "null"))
        #expect(try isValueNotFound(JSONNumberText.self, "null"))
        #expect(try isValueNotFound(Author.self, "null"))
        #expect(try isValueNotFound([String].self, "null"))
        #expect(try isValueNotFound([String].self, #"["a",null]"#))
        #expect(try isValueNotFound(Author.self, #"{"name":null}"#))
        // A wrong kind of value stays a typeMismatch.
        #expect(try !isValueNotFound(String.self, "1"))
        #expect(try !isValueNotFound(Author.self, "[]"))
        // The message says the same as before.
        #expect(try failure(Author.self, #"{"name":null}"#) == "name: expected a string, found null")
        #expect(try failure([Int].self, "null") == "expected an array, found null")
        // A type decoder that does not take null.
        struct Day: Sendable, Decodable {}
        var decoder = JSONValueDecoder()
        decoder.addDecoder(for: Day.self, expecting: "a day") { $0.stringValue.map { _ in Day() } }
        #expect(try isValueNotFound(Day.self, "null", decoder: decoder))
        // Optionals and types that read null themselves.
        #expect(try JSONValueDecoder().decode(String?.self, from: parse("null")) == nil)
        #expect(try JSONValueDecoder().decode([Int?].self, from: parse("[1,null]")) == [1, nil])
        #expect(try JSONValueDecoder().decode([NullMeansZero].self, from: parse("[null,5]")) == [NullMeansZero(value: 0), NullMeansZero(value: 5)])
        #expect(try JSONValueDecoder().decode(JSONValue.self, from: parse("null")) == .null)
    }

    @Test("integers keep every digit: a number that does not fit the type is an error, not wrapped or rounded")
    func bigIntegers() throws {
        let decoder = JSONValueDecoder()
        #expect(try decoder.decode(Int64.self, from: parse("9223372036854775807")) == .max)
        #expect(try decoder.decode(Int64.self, from: parse("-9223372036854775808")) == .min)
        #expect(try decoder.decode(UInt64.self, from: parse("18446744073709551615")) == .max)
        #expect(try decoder.decode(Int.self, from: parse("3e2")) == 300)
        #expect(try decoder.decode(Int.self, from: parse("3.0")) == 3)
        #expect(try decoder.decode(Int64.self, from: parse("1.2345e4")) == 12_345)
        #expect(try decoder.decode(Int.self, from: parse("-0.0")) == 0)
        #expect(try failure(Int64.self, "12345678901234567.5").hasPrefix("expected an integer that fits Int64"))
        #expect(try failure(Int64.self, "1e19").hasPrefix("expected an integer that fits Int64"))
        #expect(try decoder.decode(UInt64.self, from: parse("1e19")) == 10_000_000_000_000_000_000)
        // Decimals: the nearest Double when it gives their digits back, refused when it would not.
        #expect(try decoder.decode(Double.self, from: parse("0.10")) == 0.1)
        #expect(try decoder.decode(Double.self, from: parse("1.5e3")) == 1500)
        #expect(try failure(Double.self, "3.14159265358979323846").hasPrefix("expected a number a Double holds"))
        #expect(try failure(Double.self, "1.0e-400").hasPrefix("expected a number a Double holds"))
        #expect(try failure(Int64.self, "9223372036854775808").hasPrefix("expected an integer that fits Int64"))
        #expect(try failure(UInt64.self, "18446744073709551616").hasPrefix("expected an integer that fits UInt64"))
        #expect(try failure(UInt8.self, "256").hasPrefix("expected an integer that fits UInt8 (0...255)"))
        #expect(try failure(UInt32.self, "-1").hasPrefix("expected an integer that fits UInt32"))
        #expect(try failure(Int.self, "2.5").hasPrefix("expected an integer that fits Int"))
        #expect(try failure(Int.self, "1e400").hasPrefix("expected an integer that fits Int"))
        // 2^53 + 1 is an exact Int64, and no Double holds it.
        #expect(try decoder.decode(Int64.self, from: parse("9007199254740993")) == 9_007_199_254_740_993)
        #expect(try failure(Double.self, "9007199254740993").hasPrefix("expected a number a Double holds exactly"))
        #expect(try decoder.decode(Double.self, from: parse("9007199254740992")) == 9_007_199_254_740_992)
        #expect(try failure(Double.self, "1e400").hasPrefix("expected a number a Double holds"))
        // A Float takes what it spells the same; anything it would round is refused.
        #expect(try decoder.decode(Float.self, from: parse("0.1")) == 0.1)
        #expect(try failure(Float.self, "0.123456789012").hasPrefix("expected a number a Float holds"))
    }

    /// A "skip bad elements" array: each element decodes as `Element`, or, when it does not,
    /// as a placeholder that takes its place.
    struct Lossy<Element: Decodable>: Decodable {
        let elements: [Element]

        private struct Skipped: Decodable {}

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            var elements: [Element] = []
            while !container.isAtEnd {
                if let element = try? container.decode(Element.self) {
                    elements.append(element)
                } else {
                    _ = try container.decode(JSONValue.self)
                }
            }
            self.elements = elements
        }
    }

    @Test("an array element that fails to decode is still the current one: a lossy array skips only it")
    func failedElementIsNotSkipped() throws {
        #expect(try JSONValueDecoder().decode(Lossy<Int>.self, from: parse(#"[1,"x",3]"#)).elements == [1, 3])
        #expect(try JSONValueDecoder().decode(Lossy<Int>.self, from: parse(#"[{"a":1},2,[3],4,true]"#)).elements == [2, 4])
        // A nested container that cannot be opened leaves the element current too.
        let nestedFirst = try JSONValueDecoder().decode(NestedFirst.self, from: parse(#"[7,8]"#))
        #expect(nestedFirst.number == 7)
    }

    /// Tries the first element as an array, then decodes it as a number.
    struct NestedFirst: Decodable {
        let number: Int
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            #expect(throws: DecodingError.self) { _ = try container.nestedUnkeyedContainer() }
            #expect(throws: DecodingError.self) { _ = try container.nestedContainer(keyedBy: JSONKey.self) }
            number = try container.decode(Int.self)
        }
    }

    @Test("trailing zeros are not significant: a number is judged by its exact value, not its spelling")
    func trailingZeros() throws {
        let decoder = JSONValueDecoder()
        // Exactly 1, with 19 digits written: a Double and an integer.
        #expect(try decoder.decode(Double.self, from: parse("1.000000000000000000")) == 1)
        #expect(try decoder.decode(Int.self, from: parse("1.000000000000000000")) == 1)
        // 1e20 written out is exact as a Double; it fits no 64-bit integer.
        #expect(try decoder.decode(Double.self, from: parse("100000000000000000000")) == 1e20)
        #expect(try decoder.decode(Double.self, from: parse("-2500000000000000000000.000")) == -2.5e21)
        #expect(try failure(UInt64.self, "100000000000000000000").hasPrefix("expected an integer that fits UInt64"))
        #expect(try decoder.decode(Int64.self, from: parse("-9223372036854775808.000")) == .min)
        #expect(try decoder.decode(UInt8.self, from: parse("0.0255e4")) == 255)
        #expect(try decoder.decode(Int.self, from: parse("0e400")) == 0)
        // 16 significant digits are still refused, whatever the zeros around them.
        #expect(try failure(Double.self, "1.234567890123456000").hasPrefix("expected a number a Double holds"))
        #expect(try failure(Int.self, "1.0000000000000000001").hasPrefix("expected an integer that fits Int"))
    }

    /// Keeps the coding path its decoder reports, as `a.b[1]`.
    struct Where: Decodable {
        let path: String
        init(from decoder: any Decoder) throws {
            path = decoder.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
    }

    struct Located: Decodable {
        let top: Where
        let list: [[String: Where]]
        let maybe: Where?
    }

    @Test("the coding path built on demand is the same as before: keys, indexes, nesting")
    func codingPaths() throws {
        let located = try JSONValueDecoder().decode(Located.self, from: parse(#"{"top":1,"list":[{"x":1},{"y":2}],"maybe":3}"#))
        #expect(located.top.path == ".top")
        #expect(located.list.map { $0.values.map(\.path) } == [[".list[0].x"], [".list[1].y"]])
        #expect(located.maybe?.path == ".maybe")
        #expect(try failure([[Int]].self, "[[1],[2,true]]") == "[1][1]: expected an integer, found true")
        #expect(try failure([String: [Int]].self, #"{"a":[1],"b":[2,null]}"#) == "b[1]: expected an integer, found null")
        #expect(JSONKey(index: 12).stringValue == "12")
    }

    @Test("an optional member: nil when missing or null, an error when present and wrong")
    func optionalMembers() throws {
        struct Optionals: Decodable, Equatable {
            let text: String?; let flag: Bool?; let double: Double?; let float: Float?; let int: Int?; let int8: Int8?
            let int16: Int16?; let int32: Int32?; let int64: Int64?; let uint: UInt?; let uint8: UInt8?; let uint16: UInt16?
            let uint32: UInt32?; let uint64: UInt64?; let author: Author?
        }
        let all = try JSONValueDecoder().decode(Optionals.self, from: parse(
            #"{"text":"t","flag":true,"double":0.5,"float":0.25,"int":-1,"int8":-8,"int16":16,"int32":32,"int64":64,"uint":1,"uint8":8,"uint16":16,"uint32":32,"uint64":64,"author":{"name":"Ana"}}"#))
        #expect(all == Optionals(
            text: "t", flag: true, double: 0.5, float: 0.25, int: -1, int8: -8, int16: 16, int32: 32, int64: 64, uint: 1, uint8: 8,
            uint16: 16, uint32: 32, uint64: 64, author: Author(name: "Ana", email: nil)))
        let none = try JSONValueDecoder().decode(Optionals.self, from: parse(#"{"text":null,"uint8":null,"author":null}"#))
        #expect(none == Optionals(
            text: nil, flag: nil, double: nil, float: nil, int: nil, int8: nil, int16: nil, int32: nil, int64: nil, uint: nil, uint8: nil,
            uint16: nil, uint32: nil, uint64: nil, author: nil))
        #expect(try failure(Optionals.self, #"{"uint8":256}"#).hasPrefix("uint8: expected an integer that fits UInt8"))
        #expect(try failure(Optionals.self, #"{"text":1}"#) == "text: expected a string, found the number 1")
        #expect(try failure(Optionals.self, #"{"author":{"name":null}}"#) == "author.name: expected a string, found null")
    }

    @Test("a Float takes a number it holds exactly, and one whose shortest spelling it keeps")
    func floats() throws {
        let decoder = JSONValueDecoder()
        #expect(try decoder.decode(Float.self, from: parse("0.5")) == 0.5)
        #expect(try decoder.decode(Float.self, from: parse("16777216")) == 16_777_216)
        #expect(try decoder.decode(Float.self, from: parse("3.4028235e38")) == .greatestFiniteMagnitude)
        #expect(try failure(Float.self, "16777217").hasPrefix("expected a number a Float holds"))
        #expect(try failure(Float.self, "1e39").hasPrefix("expected a number a Float holds"))
    }

    @Test("a number's exact text, for decimals and integers no Swift number holds")
    func numberTexts() throws {
        struct Price: Decodable { let amount: JSONNumberText; let id: JSONNumberText }
        let price = try JSONValueDecoder().decode(Price.self, from: parse(#"{"amount":1.10,"id":123456789012345678901234567890}"#))
        #expect(price.amount.text == "1.10")
        #expect(price.id.text == "123456789012345678901234567890")
        #expect(try failure(Price.self, #"{"amount":"1.10","id":1}"#) == "amount: expected a number, found a string (4 characters)")
    }

    @Test("a type decoder replaces a type's own init(from:), and says what it expected")
    func typeDecoders() throws {
        struct Day: Sendable, Equatable, Decodable { let epochDay: Int64 }
        struct Event: Decodable { let on: Day }
        var decoder = JSONValueDecoder()
        decoder.addDecoder(for: Day.self, expecting: "an ISO date") { value in
            guard case .string(let text) = value, let milliseconds = ISODate.parse(text) else { return nil }
            return Day(epochDay: milliseconds / 86_400_000)
        }
        #expect(try decoder.decode(Event.self, from: parse(#"{"on":"1970-01-03"}"#)).on == Day(epochDay: 2))
        #expect(try failure(Event.self, #"{"on":"someday"}"#, decoder: decoder) == "on: expected an ISO date, found a string (7 characters)")
    }

    @Test("decodeNil(forKey:) is true for a missing key, as for null (Foundation's JSONDecoder throws keyNotFound)")
    func decodeNilOnAMissingKey() throws {
        struct Probe: Decodable {
            let absentIsNil: Bool
            let nullIsNil: Bool
            enum CodingKeys: String, CodingKey { case absent, empty }
            init(from decoder: any Decoder) throws {
                let members = try decoder.container(keyedBy: CodingKeys.self)
                absentIsNil = try members.decodeNil(forKey: .absent)
                nullIsNil = try members.decodeNil(forKey: .empty)
            }
        }
        let probe = try JSONValueDecoder().decode(Probe.self, from: parse(#"{"empty":null}"#))
        #expect(probe.absentIsNil && probe.nullIsNil)
    }

    @Test("a type decoder for a type the decoder reads itself (String, Int) is never called")
    func typeDecodersLeaveBuiltInTypes() throws {
        var decoder = JSONValueDecoder()
        decoder.addDecoder(for: Int.self, expecting: "a counted integer") { _ in 42 }
        decoder.addDecoder(for: String.self, expecting: "a rewritten string") { _ in "rewritten" }
        struct Row: Decodable { let id: Int; let name: String }
        let row = try decoder.decode(Row.self, from: parse(#"{"id":7,"name":"seven"}"#))
        #expect(row.id == 7)
        #expect(row.name == "seven")
        #expect(try failure(Row.self, #"{"id":"7","name":"seven"}"#, decoder: decoder) == "id: expected an integer, found a string (1 characters)")
    }
}
