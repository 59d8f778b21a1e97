import Foundation
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// Patterns that make a backtracking engine run for ever (Swift's `Regex` took 86 s for
/// `(a+)+$` on 20 characters and never finished on 22) answer at once here: the matcher's
/// work is bounded by instructions x characters. Each test would hang before the change.
@Suite struct RegexLinearTimeTests {
    static let attack = String(repeating: "a", count: 10_000) + "!"

    /// Each pattern with its answer on the attack text (10,000 `a`s then `!`), which a
    /// backtracking engine never reaches for the ones that answer false.
    @Test(arguments: [
        ("(a+)+$", false), ("(a|aa)+$", false), ("(a|aa)*$", true), ("(a*)*b", false), ("(.*)*x", false),
        ("(a|a)*b", false), ("^(a+)+b", false), ("(a?){30}a{30}", true), ("((a+)+)+c", false), ("^(a|a?)+!$", true),
    ])
    func catastrophicPatternsFinish(pattern: String, expected: Bool) throws {
        let answer = try FilterRegex(pattern).matches(Self.attack)
        #expect(answer == expected, "/\(pattern)/ on the attack text")
    }

    @Test func theClassicAttackStillMatchesWhatItShould() throws {
        let regex = try FilterRegex("^(a+)+$")
        #expect(regex.matches(String(repeating: "a", count: 10_000)))
        #expect(!regex.matches(Self.attack))
    }

    @Test(arguments: [
        ("(a)\\1", "backreferences are not supported"),
        ("(?=a)", "lookahead '(?=' is not supported"),
        ("(?<!a)b", "lookbehind '(?<!' is not supported"),
        ("a++", "possessive quantifiers are not supported"),
        ("(?>a)", "atomic groups"),
        ("[[:alpha:]]", "POSIX classes"),
        ("\\p{L}", "Unicode property classes"),
        ("a{1001}", "repeat counts are at most 1000"),
        ("a{5,2}", "the maximum is below the minimum"),
        ("(a", "missing ')'"),
        ("a)", "unmatched ')'"),
        ("*a", "'*' has nothing to repeat"),
        ("a**", "a quantifier cannot follow another quantifier"),
        ("[a", "missing ']'"),
        ("[z-a]", "out of order"),
        ("\\q", "unknown escape '\\q'"),
        ("(?x)a", "unknown group flag 'x'"),
    ])
    func refusedWithTheConstructNamed(pattern: String, message: String) {
        #expect {
            _ = try FilterRegex(pattern)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func programSizeIsBounded() {
        // 1000 x 1000 x 1000 copies would be a billion instructions.
        #expect(throws: RegexSyntaxError.self) { _ = try FilterRegex("((a{1000}){1000}){1000}") }
        #expect(throws: RegexSyntaxError.self) { _ = try FilterRegex(String(repeating: "(", count: 101) + "a" + String(repeating: ")", count: 101)) }
        #expect(throws: RegexSyntaxError.self) { _ = try FilterRegex(String(repeating: "a", count: 10_001)) }
        #expect(throws: Never.self) { _ = try FilterRegex(String(repeating: "(", count: 100) + "a" + String(repeating: ")", count: 100)) }
    }

    @Test(arguments: [
        ("^.$", "👍🏽", true),  // one grapheme cluster
        ("(?i)straße", "STRAßE", true),
        ("^\\w+$", "niño_3", true),
        ("^\\d+$", "٣٤", true),
        ("caf\\x{e9}", "café", true),
        ("^a.c$", "a\nc", false),
        ("(?s)^a.c$", "a\nc", true),
        ("(?m)^b$", "a\nb\nc", true),
        ("^b$", "a\nb\nc", false),
        ("\\bcat\\b", "a cat here", true),
        ("\\bcat\\b", "concatenate", false),
        ("colou?r", "color", true),
        ("(?i:LIFERAY) screens", "liferay screens", true),
        ("(?i:LIFERAY) screens", "liferay SCREENS", false),
    ])
    func semantics(pattern: String, text: String, expected: Bool) throws {
        #expect(try FilterRegex(pattern).matches(text) == expected)
    }

    /// A cancelled task (a signal stopping the run) stops a long match instead of finishing it.
    @Test func aCancelledMatchStops() async throws {
        let regex = try FilterRegex("(a|b|c|d|e|f|g|h){200}z")
        let text = String(repeating: "abcdefgh", count: 500_000)
        let task = Task { () -> (Bool, ContinuousClock.Duration) in
            while !Task.isCancelled { await Task.yield() }
            let clock = ContinuousClock()
            let start = clock.now
            let answer = regex.matches(text)
            return (answer, clock.now - start)
        }
        task.cancel()
        let (answer, elapsed) = await task.value
        #expect(!answer)
        // Uncancelled, this match takes minutes in a debug build (about 1,700 thread steps per
        // character over 4 million characters); cancelled, it stops at the first check, 16,384
        // steps in (milliseconds), so the bound tells the two apart even on a loaded machine.
        #expect(elapsed < .seconds(30))
    }

    /// Found by `make fuzz`: a digit followed by a combining mark is one Character that sorts
    /// between "0" and "7", so a Character range took it for an octal digit and trapped.
    @Test(arguments: ["\\60\u{0342}", "\\1\u{0342}", "\\0\u{0301}1", "\\7\u{0308}7", "[\\0\u{0342}-9]"])
    func digitsWithCombiningMarksNeverTrap(pattern: String) {
        _ = try? FilterRegex(pattern).matches("0\u{0342}1")
    }

    @Test func theFuzzerCrashInputIsRefusedOrCompiled() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("fuzz/corpus/regex/crash-combining-digit")
        let input = try Data(contentsOf: url)
        let split = input.firstIndex(of: 0) ?? input.endIndex
        _ = try? FilterRegex(String(decoding: input[..<split], as: UTF8.self)).matches("x")
    }
}
