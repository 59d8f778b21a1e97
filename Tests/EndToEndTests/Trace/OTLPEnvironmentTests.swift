import Foundation
import Testing

/// How the command reads OpenTelemetry's exporter variables, in the build `make test` makes
/// (without the `OTLP` trait): every run completes; a build that cannot export, a protocol
/// it cannot speak and an export turned off each say so, or stay quiet, as the variables ask.
@Suite("OTLP: the exporter variables")
struct OTLPEnvironmentTests {
    private static let endpoint = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"]

    private func run(_ environment: [String: String]) async throws -> CommandResult {
        let result = try await CommandRunner.run(["run", "pipelines/bookmarks.yaml", "--quiet"], environment: environment)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutLines.count == 73)
        return result
    }

    @Test("an endpoint in a build without the trait: one warning that says how to build with it")
    func unavailable() async throws {
        let result = try await run(Self.endpoint)
        #expect(result.stderr.contains("built without OTLP export") && result.stderr.contains("--traits OTLP"), "\(result.stderr)")
    }

    /// swift-otel stops the process with a fatal error for grpc without its gRPC trait: the
    /// protocol is refused before it is asked (and in this build too, so the message is one).
    @Test("OTEL_EXPORTER_OTLP_PROTOCOL=grpc (or the traces variable): refused with a warning, the run completes")
    func grpcRefused() async throws {
        for variable in ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] {
            let result = try await run(Self.endpoint.merging([variable: "grpc"]) { $1 })
            #expect(result.stderr.contains("grpc is not supported"), "\(variable): \(result.stderr)")
        }
    }

    @Test("OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true: no export asked, nothing said")
    func turnedOff() async throws {
        for off in [["OTEL_TRACES_EXPORTER": "none"], ["OTEL_SDK_DISABLED": "true"]] {
            let result = try await run(Self.endpoint.merging(off) { $1 })
            #expect(!result.stderr.contains("OTLP") && !result.stderr.contains("OTEL"), "\(off): \(result.stderr)")
        }
    }
}
