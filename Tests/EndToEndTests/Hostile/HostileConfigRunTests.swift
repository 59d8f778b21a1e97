import Foundation
import Testing

/// The hostile pipeline files that once killed `validate`, `plan` or `run` with a trap or a
/// stack overflow (exit 132 or 139, no message): through the real binary, each is now exit 2
/// with one message naming the file position.
@Suite("hostile pipeline files: exit 2 with a message, never a crash")
struct HostileConfigRunTests {
    static let commands = ["validate", "plan", "run"]

    private func file(_ source: String) throws -> String {
        let path = try CommandRunner.temporaryDirectory().appendingPathComponent("hostile.yaml").path
        try "name: hostile\nsource:\n\(source)\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private static let rest = "  type: rest\n  server: http://127.0.0.1:1\n  url: /x\n  paginate: offset\n"

    @Test("config numbers", arguments: [
        ("  timeout: 1e300", "'timeout' must be at most 24h"),
        ("  timeout: 100000000000000000", "'timeout' must be at most 24h"),
        ("  timeout: 99999999999999999999h", "'timeout' must be at most 24h"),
        ("  pagination: { page-size: 9223372036854775807 }", "'page-size' must be between 1 and 1000000"),
        ("  pagination: { page-size: 4611686018427387904 }", "'page-size' must be between 1 and 1000000"),
    ])
    func numbers(line: String, message: String) async throws {
        let path = try file(Self.rest + line)
        for command in Self.commands {
            let result = try await CommandRunner.run([command, path])
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("hostile.yaml:7:"), "\(command): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(command): \(result.stderr)")
        }
    }

    @Test("40,000 nested ${A:- defaults")
    func nestedDefaults() async throws {
        let scalar = String(repeating: "${A:-", count: 40_000) + "x" + String(repeating: "}", count: 40_000)
        let path = try file("  type: file\n  path: \"\(scalar)\"")
        for command in Self.commands {
            let result = try await CommandRunner.run([command, path])
            #expect(result.status == 2, "\(command): \(result.stderr.prefix(300))")
            #expect(result.stderr.contains("nested more than 32 levels"), "\(command): \(result.stderr.prefix(300))")
        }
    }

    @Test("a --set key path with 20,000 parts")
    func longSetPath() async throws {
        let path = try file("  type: file\n  path: rows.json")
        let key = Array(repeating: "a", count: 20_000).joined(separator: ".")
        for command in Self.commands {
            let result = try await CommandRunner.run([command, path, "--set", "\(key)=1"])
            #expect(result.status == 2, "\(command): \(result.stderr.prefix(300))")
            #expect(result.stderr.contains("more than 32 parts"), "\(command): \(result.stderr.prefix(300))")
            #expect(result.stderr.count < 1000)
        }
    }

    @Test("a 1 MiB scalar aliased 3,000 times")
    func aliasBomb() async throws {
        let big = String(repeating: "x", count: 1 << 20)
        let many = String(repeating: "    - *big\n", count: 3000)
        let path = try file("  type: file\n  path: &big \(big)\n  records:\n\(many)")
        let result = try await CommandRunner.run(["validate", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("aliases expand to more than 4 MiB of text"), "\(result.stderr.prefix(300))")
    }
}
