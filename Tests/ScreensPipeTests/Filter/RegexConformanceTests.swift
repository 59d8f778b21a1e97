import Foundation
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// `matches` against public regex test suites it was not written with: the AT&T POSIX
/// tests (basic, repetition, null subexpressions) and RE2's search tests with the answers RE2
/// logged. See Fixtures/regex/README.md for the sources. Only "is there a match anywhere" is
/// compared, which is all `matches` answers.
@Suite struct RegexConformanceTests {
    struct Case: CustomStringConvertible {
        var source: String
        var pattern: String
        var text: String
        /// true or false, or nil when the pattern is one the suite expects refused.
        var matches: Bool?
        var description: String { "\(source): /\(pattern)/ on \(text.debugDescription)" }
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/regex")

    /// What `matches` refuses on purpose; a case using it must be refused, not mis-answered.
    static func usesUnsupportedSyntax(_ pattern: String) -> Bool {
        let refused = ["[[:", "[[=", "[[.", "\\p", "\\P", "\\C", "\\Q", "\\E", "(?U", "\\pN", "(?P=", "\\z", "\\Z"]
        if refused.contains(where: pattern.contains) && !pattern.contains("\\z") { return true }
        // A backslash and a digit 1-9 is a backreference, unless octal digits follow (`\123`).
        let characters = Array(pattern)
        var index = 0
        while index < characters.count - 1 {
            if characters[index] == "\\" {
                let digit = characters[index + 1]
                let octalFollows = index + 2 < characters.count && ("0"..."7").contains(characters[index + 2])
                if ("1"..."9").contains(digit), !(("1"..."7").contains(digit) && octalFollows) { return true }
                index += 2
            } else {
                index += 1
            }
        }
        return false
    }

    /// The AT&T format: tab-separated flags, pattern (`SAME` repeats the last), text (`NULL`
    /// is empty), and the match spans or `NOMATCH` (or an error code).
    static func atAndT(_ file: String) throws -> [Case] {
        let text = try String(contentsOf: fixtures.appendingPathComponent(file), encoding: .utf8)
        var cases: [Case] = []
        var previous = ""
        var inBlock = false
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("{") { inBlock = true; continue }
            if line.hasPrefix("}") { inBlock = false; continue }
            if inBlock || line.isEmpty || line.hasPrefix("#") || line.hasPrefix("NOTE") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: true).map(String.init)
            guard fields.count >= 4 else { continue }
            let flags = fields[0]
            var pattern = fields[1] == "SAME" ? previous : fields[1]
            previous = pattern
            guard flags.contains("E"), !flags.contains("L"), !flags.contains("n") else { continue }
            var subject = fields[2] == "NULL" ? "" : fields[2]
            if flags.contains("$") {
                pattern = unescape(pattern)
                subject = unescape(subject)
            }
            if flags.contains("i") { pattern = "(?i)" + pattern }
            let result = fields[3]
            let matches: Bool? = result.hasPrefix("(") ? true : result == "NOMATCH" ? false : nil
            guard subject.allSatisfy(\.isASCII), !subject.contains("\r") else { continue }
            cases.append(Case(source: "\(file):\(number + 1)", pattern: pattern, text: subject, matches: matches))
        }
        return cases
    }

    /// RE2's log: blocks of `strings` (Go-quoted) then `regexps`, each regexp followed by one
    /// result line per string: full;partial;longest-full;longest-partial, `-` for no match.
    static func re2Search() throws -> [Case] {
        let text = try String(contentsOf: fixtures.appendingPathComponent("re2-search.txt"), encoding: .utf8)
        var cases: [Case] = []
        var strings: [String] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[...]
        var number = 0
        func next() -> String? {
            guard let line = lines.popFirst() else { return nil }
            number += 1
            return line
        }
        while let line = next() {
            if line == "strings" {
                strings = []
                while let first = lines.first, first.hasPrefix("\"") {
                    strings.append(unquote(next()!))
                }
            } else if line == "regexps" {
                while let first = lines.first, first.hasPrefix("\"") {
                    let pattern = unquote(next()!)
                    let at = number
                    for subject in strings {
                        guard let results = next() else { break }
                        let partial = results.split(separator: ";").dropFirst().first.map(String.init) ?? "-"
                        guard subject.allSatisfy(\.isASCII), !subject.contains("\r") else { continue }
                        cases.append(Case(source: "re2-search.txt:\(at)", pattern: pattern, text: subject, matches: partial != "-"))
                    }
                }
            }
        }
        return cases
    }

    static func unescape(_ text: String) -> String {
        var out = ""
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            guard character == "\\", let next = characters.first else {
                out.append(character)
                continue
            }
            switch next {
            case "n": out.append("\n"); characters.removeFirst()
            case "t": out.append("\t"); characters.removeFirst()
            case "r": out.append("\r"); characters.removeFirst()
            case "x":
                let hex = String(characters.dropFirst().prefix(2))
                if let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) {
                    out.unicodeScalars.append(scalar)
                    characters.removeFirst(1 + hex.count)
                } else {
                    out.append(character)
                }
            default: out.append(character)
            }
        }
        return out
    }

    static func unquote(_ quoted: String) -> String {
        var out = ""
        var characters = Array(quoted.dropFirst().dropLast())[...]
        while let character = characters.popFirst() {
            guard character == "\\", let next = characters.popFirst() else {
                out.append(character)
                continue
            }
            switch next {
            case "n": out.append("\n")
            case "t": out.append("\t")
            case "r": out.append("\r")
            default: out.append(next)
            }
        }
        return out
    }

    static func check(_ cases: [Case]) -> (checked: Int, refused: Int) {
        var checked = 0
        var refused = 0
        for testCase in cases {
            let expectRefusal = usesUnsupportedSyntax(testCase.pattern) || testCase.matches == nil
            do {
                let regex = try FilterRegex(testCase.pattern)
                if expectRefusal {
                    if testCase.matches == nil { continue }  // POSIX says error; a superset is fine
                    Issue.record("accepted a pattern it should refuse: \(testCase)")
                    continue
                }
                checked += 1
                #expect(regex.matches(testCase.text) == testCase.matches, "\(testCase)")
            } catch {
                refused += 1
                #expect(expectRefusal, "refused \(testCase): \(error)")
            }
        }
        return (checked, refused)
    }

    @Test func atAndTBasic() throws {
        let result = Self.check(try Self.atAndT("basic.dat"))
        #expect(result.checked > 100)
    }

    @Test func atAndTRepetition() throws {
        let result = Self.check(try Self.atAndT("repetition.dat"))
        #expect(result.checked > 50)
    }

    @Test func atAndTNullSubexpressions() throws {
        let result = Self.check(try Self.atAndT("nullsubexpr.dat"))
        #expect(result.checked > 30)
    }

    @Test func re2SearchTests() throws {
        let result = Self.check(try Self.re2Search())
        #expect(result.checked > 1000)
    }
}
