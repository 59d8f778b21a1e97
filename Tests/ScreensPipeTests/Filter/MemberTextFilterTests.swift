import ScreensBus
import TestSupport
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// A filter decided on its members' texts must say what the filter says on their values, or
/// say nothing: never another answer, and nothing where the filter throws.
@Suite struct MemberTextFilterTests {
    static let keys = ["a", "b", "c"]

    /// Member texts as a checked row holds them (compact JSON), and "missing".
    static let texts: [String?] = [
        nil, "null", #""""#, #""x""#, #""abc""#, #""abd""#, #""ab""#, #""b""#, #""é""#, #""é\u0301""#, #""a\"b""#,
        #""example.com/x""#, #""tmp file""#, "0", "1", "-1", "3", "42", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "1.0", "1.5", "3e0", "-0", "true", "false", "[]", #"["x",1]"#, "{}", #"{"x":1}"#,
    ]

    static let filters = [
        #"a == "abc""#, #"a != "abc""#, #"a < "abd""#, #"a <= "ab""#, #"a > "ab""#, #"a >= "b""#,
        #"a contains "b""#, #"a contains """#, #"a starts-with "ab""#, #"a ends-with "c""#, #"a ends-with "abcd""#,
        #""abc" contains a"#, #""abc" == a"#, #""b" > a"#, #""abc" starts-with a"#, #""xabc" ends-with a"#,
        "a == 1", "a != 1", "a < 3", "a >= -1", "a > 9223372036854775806", "a == 1.0", "a < 1.5", "3 > a",
        "a == true", "a == null", "a != null", "a < null", "a contains 1",
        "a", "not a", "a exists", "not (a exists)", "a == b", "a < b", "a contains b", "a starts-with b",
        #"a in ["abc", 1, null, "x"]"#, "a in [1.0, 3]", #"a in []"#,
        #"a contains "b" and not (b starts-with "tmp")"#, #"a == "x" or b == 1 or c exists"#,
        #"(a < "b" or b > 2) and not (c == "x" or c == null)"#, "a > 1 and a", "a or b < 3",
        #"a matches "^a""#, "a.x == 1",
    ]

    @Test(arguments: filters)
    func decidesAsTheFilterOrNotAtAll(_ expression: String) throws {
        let filter = try RowFilter(expression: expression)
        let slots = Dictionary(uniqueKeysWithValues: Self.keys.enumerated().map { ($1, $0) })
        let predicate = filter.textPredicate(slots: slots)
        if expression.contains("matches") || expression.contains(".x") {
            #expect(predicate == nil)
            return
        }
        let decide = try #require(predicate)
        var random = Mutator(seed: UInt64(expression.utf8.count), corpus: [[]], tokens: [""])
        var decided = 0
        for round in 0..<3_000 {
            // Every text for `a` in turn, the others at random.
            let row = [Self.texts[round % Self.texts.count], Self.texts[random.below(Self.texts.count)], Self.texts[random.below(Self.texts.count)]]
            var members = JSONObject()
            var bytes: [UInt8] = []
            var ranges: [Range<Int>?] = []
            for (key, text) in zip(Self.keys, row) {
                guard let text else {
                    ranges.append(nil)
                    continue
                }
                members.appendUnchecked(key: key, value: try JSONValue(parsing: Array(text.utf8)))
                ranges.append(bytes.count..<(bytes.count + text.utf8.count))
                bytes += Array(text.utf8)
            }
            let expected = Result { () throws(ScreensPipeError) in try filter.matches(.object(members)) }
            let answer = bytes.withUnsafeBufferPointer { bytes in
                ranges.withUnsafeBufferPointer { decide(MemberTexts(bytes: bytes, ranges: $0)) }
            }
            // Members that are plain strings, integers, booleans and nulls are always decided,
            // unless the filter throws.
            let plain = row.allSatisfy { text in
                guard let text else { return true }
                if text.hasPrefix("\"") { return !text.contains("\\") }
                return ["null", "true", "false", "0", "1", "-1", "3", "42", "9223372036854775807", "-9223372036854775808"].contains(text)
            }
            if plain, case .success = expected { #expect(answer != nil, "\(row.map { $0 ?? "missing" })") }
            guard let answer else { continue }
            decided += 1
            switch expected {
            case .success(let selected): #expect(answer == selected, "\(row.map { $0 ?? "missing" })")
            case .failure(let error): Issue.record("\(row.map { $0 ?? "missing" }): decided \(answer) where the filter throws \(error)")
            }
        }
        #expect(decided > 150, "\(decided) decided")
    }

    @Test func aPlanDecidesItsRowsOnTextsWhenItCan() throws {
        let bookmark = try RowConverter(spec: ConvertSpec(model: .bookmark))
        let filter = try RowFilter(expression: #"url contains "example.com" and not (name starts-with "tmp")"#)
        #expect(RowTextPlan(converter: bookmark, filter: filter)?.textFilter != nil)
        #expect(RowTextPlan(converter: try RowConverter(spec: nil), filter: filter)?.textFilter != nil)
        let regex = try RowFilter(expression: #"url matches "example""#)
        #expect(RowTextPlan(converter: bookmark, filter: regex)?.textFilter == nil)
    }
}
