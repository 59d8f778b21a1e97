import Foundation
import Testing

/// `plan` asks each wire format for its requests and nothing else: it opens no cache
/// database (wherever the cache would live), starts no client and sends nothing.
@Suite("plan is pure")
struct PlanPurityTests {
    /// Every file under `directory`, relative to it.
    private func files(under directory: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory.path)
        return (enumerator?.allObjects as? [String]) ?? []
    }

    @Test("plan creates nothing under HOME, XDG_CACHE_HOME, SCREENS_PIPE_CACHE_DIR or the cache path")
    func planCreatesNoFile() async throws {
        let root = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let places = ["home", "xdg", "cache-dir"].map { root.appendingPathComponent($0) }
        for place in places { try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true) }
        let environment = [
            "HOME": places[0].path, "XDG_CACHE_HOME": places[1].path, "SCREENS_PIPE_CACHE_DIR": places[2].path,
        ]

        // pipelines/bookmarks.yaml has a cache section with the default location.
        let plain = try await CommandRunner.run(["plan", "pipelines/bookmarks.yaml"], environment: environment)
        #expect(plain.status == 0, "stderr: \(plain.stderr)")
        #expect(plain.stdoutText.contains("/api/jsonws/invoke"))

        // An explicit cache path: a run would create it, the plan must not.
        let explicit = root.appendingPathComponent("explicit/cache.sqlite")
        let withPath = try await CommandRunner.run(
            ["plan", "pipelines/bookmarks.yaml", "--set", "cache.path=\(explicit.path)"], environment: environment)
        #expect(withPath.status == 0, "stderr: \(withPath.stderr)")

        for place in places {
            #expect(files(under: place).isEmpty, "plan wrote under \(place.lastPathComponent): \(files(under: place))")
        }
        #expect(!FileManager.default.fileExists(atPath: explicit.deletingLastPathComponent().path))
    }
}
