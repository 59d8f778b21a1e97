import Foundation
import Sandbox
import TestSupport

/// A sandbox with an OAuth 2 provider of the test's choosing, for the HTTPAuth suites.
func withOAuth2Sandbox<T>(
    _ plan: OAuth2Plan = .standard, faults: FaultPlan = .none, _ body: (SandboxHarness) async throws -> T
) async throws -> T {
    try await withConfiguredSandbox({ $0.oauth2 = plan; $0.faults = faults }, body)
}

/// Writes a headless structured-contents pipeline with `auth` (YAML lines under `auth:`).
func oauth2Pipeline(
    auth: String, pageSize: Int = 25, prefetch: Int = 4, extra: String = "", in directory: URL? = nil
) throws -> String {
    let directory = try directory ?? CommandRunner.temporaryDirectory()
    let path = directory.appendingPathComponent("oauth2.yaml").path
    let text = """
        name: oauth2
        source:
          type: liferay-headless
          server: ${LIFERAY_SERVER}
          auth:
        \(auth.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
          path: /o/headless-delivery/v1.0/sites/20143/structured-contents
          query: { flatten: "true" }
          pagination: { first-page-size: \(pageSize), page-size: \(pageSize), prefetch: \(prefetch) }
          retry: { attempts: 1 }
        \(extra)
        """
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// The sandbox client's `oauth2:` block, with `secret` and further lines.
func oauth2ClientBlock(secret: String = "sandbox-secret", _ more: String = "") -> String {
    """
    oauth2:
      grant: client-credentials
      client-id: sandbox-client
      client-secret: \(secret)
    \(more.isEmpty ? "" : "  " + more)
    """
}
