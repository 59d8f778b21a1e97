import Foundation
import Sandbox
import ScreensBus
import Testing
import TestSupport

/// The journal's `get-articles` changed in Liferay 7.3 (`locale` added, `obc` renamed
/// `orderByComparator`): the same sample pipeline reaches the 7.3 signature with
/// `sort-param` and a `locale` param, and the 7.3 portal refuses the 7.2 form as a real one does.
@Suite("run: the journal's 7.3 signature")
struct JournalVersionRunTests {
    static let webContent = "pipelines/web-content.yaml"

    private func withPortal<T>(_ version: LiferayVersion, _ body: (String) async throws -> T) async throws -> T {
        var configuration = SandboxConfiguration()
        configuration.liferayVersion = version
        // Loading the portal's data is synchronous: on a thread of its own, not the pool's.
        let loader = DedicatedThreadExecutor(name: "sandbox-start")
        defer { loader.stop() }
        let server = try await withTaskExecutorPreference(loader) { try await SandboxServer.start(configuration) }
        do {
            let result = try await body(server.baseURL)
            try? await server.stop()
            return result
        } catch {
            try? await server.stop()
            throw error
        }
    }

    @Test("7.3 with sort-param orderByComparator and a locale: the same rows, sorted, as 7.2 gives")
    func sortParamReachesTheNewSignature() async throws {
        let reference = try await withPortal(.v7_2) { url in
            try await CommandRunner.run(["run", Self.webContent, "--policy", "remote-only"], environment: ["LIFERAY_SERVER": url])
        }
        #expect(reference.status == 0, "stderr: \(reference.stderr)")
        let newer = try await withPortal(.v7_3) { url in
            try await CommandRunner.run(
                [
                    "run", Self.webContent, "--policy", "remote-only", "--set", "source.sort-param=orderByComparator",
                    "--set", "source.rows.params.locale=es_ES",
                ],
                environment: ["LIFERAY_SERVER": url])
        }
        #expect(newer.status == 0, "stderr: \(newer.stderr)")
        #expect(!newer.stdoutLines.isEmpty)
        #expect(newer.stdoutLines == reference.stdoutLines)
    }

    @Test("7.3 refuses the 7.2 form (obc, no locale) with the portal's error, naming the page")
    func theOldFormIsRefused() async throws {
        let result = try await withPortal(.v7_3) { url in
            try await CommandRunner.run(["run", Self.webContent, "--policy", "remote-only"], environment: ["LIFERAY_SERVER": url])
        }
        #expect(result.status == 1)
        #expect(result.stderr.contains("page 0"), "stderr: \(result.stderr)")
    }
}
