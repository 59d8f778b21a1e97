import Foundation
import Sandbox
import ScreensBus
import Testing

/// The fault soak: many small pages of the sandbox's generated list through a portal that
/// misbehaves in every way it can (random 503/429 with Retry-After from a fixed seed, resets,
/// truncated and malformed bodies, stalls). The delivered rows must be exactly the generated
/// list: row i has entryId 9007199254740993 + i, each once, in order, and the FNV-1a hash of
/// the output equals the fault-free run's.
///
/// `make test` runs the short variant (a few hundred pages); `make soak`
/// (`SCREENS_PIPE_SOAK=1`) runs thousands of pages per fault status.
@Suite("Soak: random faults from a fixed seed, exact rows", .serialized)
struct FaultSoakTests {
    static let pipeline = "Benchmarks/pipelines/generated.yaml"
    static let firstId: Int64 = 9_007_199_254_740_993
    static let pageSize = 10
    static let long = ProcessInfo.processInfo.environment["SCREENS_PIPE_SOAK"] == "1"
    static let pages = long ? 4_000 : 300

    /// Small pages, short backoff and timeout (a stall ends in a timeout and a retry), and
    /// enough attempts that a page failing several times in a row still gets through.
    static let arguments = [
        "--policy", "remote-only", "--progress", "never",
        "--set", "source.pagination.first-page-size=\(pageSize)",
        "--set", "source.pagination.page-size=\(pageSize)",
        "--set", "source.retry.attempts=12",
        "--set", "source.retry.backoff=1ms",
        "--set", "source.retry.max-backoff=20ms",
        "--set", "source.timeout=1s",
    ]

    static func faults(status: Int) -> FaultPlan {
        FaultPlan(
            failRate: 0.08, failStatus: status, retryAfter: "0",
            resetEvery: 7, truncateEvery: 11, malformedEvery: 13,
            stallEvery: long ? 997 : 101, stallDuration: .seconds(3))
    }

    @Test("503 and 429 with Retry-After, resets, truncation, malformed JSON, stalls", arguments: [503, 429])
    func soak(status: Int) async throws {
        let rows = Self.pages * Self.pageSize
        let reference = try await output(rows: rows, faults: .none)
        #expect(reference.status == 0, "stderr: \(reference.stderr)")
        try expectGeneratedList(reference.stdout, rows: rows)

        let started = ContinuousClock.now
        let harness = try await SandboxHarness.start(faults: Self.faults(status: status), generatedRows: rows, seed: 20_261_121)
        let faulty = try await harness.run(Self.pipeline, Self.arguments)
        let requests = harness.server.requestCount
        await harness.stop()
        print("soak \(status): \(Self.pages) pages, \(rows) rows, \(requests) requests, \(ContinuousClock.now - started)")

        #expect(faulty.status == 0, "stderr: \(faulty.stderr.suffix(2000))")
        #expect(fnv1a(faulty.stdout) == fnv1a(reference.stdout))
        try expectGeneratedList(faulty.stdout, rows: rows)
        // Every fault fired many times: well over one request per page.
        #expect(requests > Self.pages + Self.pages / 4)
    }

    private func output(rows: Int, faults: FaultPlan) async throws -> CommandResult {
        // The reference needs no short timeout: a stall of the whole machine (seen in a full
        // run while another test streamed a 250 MB file) timed out its 12 tries of 1 s.
        return try await withSandbox(faults: faults, generatedRows: rows) { harness in
            return try await harness.run(Self.pipeline, Self.arguments + ["--set", "source.timeout=60s"])
        }
    }

    /// Line i is generated row i: its entryId, name and url, and nothing after the last row.
    private func expectGeneratedList(_ output: Data, rows: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let lines = output.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == rows, sourceLocation: sourceLocation)
        for (index, line) in lines.enumerated() {
            let row = try JSONValue(parsing: Array(line))
            guard row["entryId"] == .int(Self.firstId + Int64(index)),
                  row["name"] == .string("Generated bookmark \(index + 1)"),
                  row["url"] == .string("https://example.com/generated/\(index + 1)")
            else {
                Issue.record("line \(index) is not generated row \(index): \(String(decoding: line, as: UTF8.self))", sourceLocation: sourceLocation)
                return
            }
        }
    }

    /// 64-bit FNV-1a: a cheap, stable hash of the whole output.
    private func fnv1a(_ data: Data) -> UInt64 {
        data.reduce(14_695_981_039_346_656_037 as UInt64) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
    }
}
