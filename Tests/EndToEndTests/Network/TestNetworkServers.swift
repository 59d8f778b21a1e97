import Foundation
import Testing

/// The proxies and TLS servers `make test` starts from Debian's packages
/// (scripts/net-test-servers.sh): tinyproxy with and without authentication, nginx over TLS
/// with HTTP/2 and gzip, and nginx asking for a client certificate.
enum TestNetwork {
    static let variables = ProcessInfo.processInfo.environment

    private static func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }

    static let directory = value("SCREENS_PIPE_TEST_NET_DIR")
    static let proxyURL = value("SCREENS_PIPE_TEST_PROXY_URL")
    static let authProxyURL = value("SCREENS_PIPE_TEST_AUTH_PROXY_URL")
    static let authProxyPassword = value("SCREENS_PIPE_TEST_AUTH_PROXY_PASSWORD")
    static let nginxURL = value("SCREENS_PIPE_TEST_NGINX_URL")
    static let mtlsURL = value("SCREENS_PIPE_TEST_MTLS_URL")

    /// Whether the proxies and nginx both run.
    static let available = directory != nil && proxyURL != nil && authProxyURL != nil && nginxURL != nil && mtlsURL != nil

    /// The note a skipped test shows; `make test` counts these.
    static let needed: Comment = "needs the network test servers (SCREENS_PIPE_TEST_PROXY_URL, SCREENS_PIPE_TEST_NGINX_URL; make test starts them)"

    /// The lines a server's log gained while `body` ran.
    static func logLines(_ name: String, during body: () async throws -> Void) async throws -> [String] {
        let path = try #require(directory) + "/" + name
        let before = (try? Data(contentsOf: URL(fileURLWithPath: path)))?.count ?? 0
        try await body()
        // tinyproxy and nginx write each line as the request ends; give them a moment.
        try await Task.sleep(for: .milliseconds(200))
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return String(decoding: data.dropFirst(before), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The lines of nginx's access log for the server on the port of `url` (both suites
    /// use nginx at once; each reads its own server's lines).
    static func nginxLines(_ lines: [String], of url: String?) -> [String] {
        guard let port = url.flatMap({ URLComponents(string: $0)?.port }) else { return [] }
        return lines.filter { $0.hasPrefix("\(port) ") }
    }

    /// A pipeline file with `source` (indented YAML lines of the source section) reading the
    /// nginx pages: 7 rows over 3 pages linked by `next`.
    static func pagesPipeline(_ sourceLines: String, name: String = "net") throws -> String {
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("\(name).yaml")
        try """
            name: \(name)
            source:
              type: rest
              url: /pages/1.json
              records: items
              paginate: { style: next-link, next-path: next }
              ca-file: ${SCREENS_PIPE_TEST_CA}
            \(sourceLines)
            """.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    /// The ids of the rows a run printed.
    static func ids(_ result: CommandResult) throws -> [Int64] {
        try result.jsonLines().compactMap { $0["id"]?.int64Value }
    }
}
