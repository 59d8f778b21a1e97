import Foundation
import ScreensBus
import Testing

/// Number texts through the real binary: written exactly as they arrived, compared exactly.
@Suite("run: number texts byte for byte")
struct NumberTextRunTests {
    static let numbers = [
        "0.1000000000000000000000000000001", "1.0e-400", "123456789012345678901234567890.5", "-0", "1E+2",
        "0.10", "-0.0", "12345678901234567890123", "12345678901234567890124", "9007199254740993", "0.5",
    ]

    private func pipeline(in directory: URL, filter: String? = nil) throws -> String {
        let rows = Self.numbers.enumerated().map { #"{"n":\#($1),"i":\#($0)}"# }.joined(separator: ",")
        let data = directory.appendingPathComponent("numbers.json")
        try "[\(rows)]".write(to: data, atomically: true, encoding: .utf8)
        let file = directory.appendingPathComponent("numbers.yaml")
        var yaml = "name: numbers\nsource:\n  type: file\n  path: \(data.path)\n  pagination: { first-page-size: 4, page-size: 3 }\n"
        if let filter { yaml += "filter:\n  where: '\(filter)'\n" }
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    @Test("every number is written as the server sent it")
    func textsKept() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CommandRunner.run(["run", try pipeline(in: directory)])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutLines == Self.numbers.enumerated().map { #"{"n":\#($1),"i":\#($0)}"# })
    }

    @Test("the filter compares big integers and decimals exactly")
    func exactFilter() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let big = try await CommandRunner.run(["run", try pipeline(in: directory, filter: "n == 12345678901234567890123")])
        #expect(big.status == 0, "stderr: \(big.stderr)")
        #expect(big.stdoutLines == [#"{"n":12345678901234567890123,"i":7}"#])
        let tenth = try await CommandRunner.run(["run", try pipeline(in: directory, filter: "n == 0.1")])
        #expect(tenth.stdoutLines == [#"{"n":0.10,"i":5}"#])
        let zero = try await CommandRunner.run(["run", try pipeline(in: directory, filter: "n == 0")])
        #expect(zero.stdoutLines == [#"{"n":-0,"i":3}"#, #"{"n":-0.0,"i":6}"#])
    }
}
