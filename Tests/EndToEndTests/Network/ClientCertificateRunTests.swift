import Foundation
import Testing

/// `client-cert`, `client-key` and `client-key-passphrase` through the real binary, against
/// nginx with `ssl_verify_client on` (scripts/net-test-servers.sh).
@Suite("run: client certificates against nginx ssl_verify_client", .enabled(if: TestNetwork.available, TestNetwork.needed), .serialized)
struct ClientCertificateRunTests {
    @Test("with the certificate the pages load, and nginx saw it verified")
    func presentsCertificate() async throws {
        let file = try TestNetwork.pagesPipeline(
            """
              server: ${SCREENS_PIPE_TEST_MTLS_URL}
              client-cert: ${SCREENS_PIPE_TEST_CLIENT_CERT}
              client-key: ${SCREENS_PIPE_TEST_CLIENT_KEY}
            """)
        var result: CommandResult?
        let logged = TestNetwork.nginxLines(
                try await TestNetwork.logLines("nginx-access.log") { result = try await CommandRunner.run(["run", file]) }, of: TestNetwork.mtlsURL)
        let run = try #require(result)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(try TestNetwork.ids(run) == Array(1...7))
        let pages = logged.filter { $0.contains("GET /pages/") }
        #expect(pages.count == 3 && pages.allSatisfy { $0.contains("client_verify=SUCCESS client=\"CN=screens-pipe test client\"") }, "\(logged)")
    }

    @Test("an encrypted key opens with client-key-passphrase from the environment; without it, an error naming the file")
    func encryptedKey() async throws {
        let file = try TestNetwork.pagesPipeline(
            """
              server: ${SCREENS_PIPE_TEST_MTLS_URL}
              client-cert: ${SCREENS_PIPE_TEST_CLIENT_CERT}
              client-key: ${SCREENS_PIPE_TEST_CLIENT_KEY_ENCRYPTED}
              client-key-passphrase: ${KEY_PASSPHRASE}
            """)
        let passphrase = try #require(TestNetwork.variables["SCREENS_PIPE_TEST_CLIENT_KEY_PASSPHRASE"])
        let run = try await CommandRunner.run(["run", file], environment: ["KEY_PASSPHRASE": passphrase])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(try TestNetwork.ids(run) == Array(1...7))
        #expect(!(run.stdoutText + run.stderr).contains(passphrase))

        let plan = try await CommandRunner.run(["plan", file], environment: ["KEY_PASSPHRASE": passphrase])
        #expect(plan.stdoutText.contains("client-key-passphrase: <redacted>"), "\(plan.stdoutText)")
        #expect(!plan.stdoutText.contains(passphrase))

        let wrong = try await CommandRunner.run(["run", file], environment: ["KEY_PASSPHRASE": "not-the-passphrase"])
        #expect(wrong.status != 0)
        let key = try #require(TestNetwork.variables["SCREENS_PIPE_TEST_CLIENT_KEY_ENCRYPTED"])
        #expect(wrong.stderr.contains(key), "stderr: \(wrong.stderr)")
        #expect(!wrong.stderr.contains("not-the-passphrase"))

        let missing = try TestNetwork.pagesPipeline(
            """
              server: ${SCREENS_PIPE_TEST_MTLS_URL}
              client-cert: ${SCREENS_PIPE_TEST_CLIENT_CERT}
              client-key: ${SCREENS_PIPE_TEST_CLIENT_KEY_ENCRYPTED}
            """, name: "no-passphrase")
        let noPassphrase = try await CommandRunner.run(["run", missing])
        #expect(noPassphrase.status != 0)
        #expect(noPassphrase.stderr.contains("client-key '\(key)' is encrypted"), "stderr: \(noPassphrase.stderr)")
    }

    @Test("without a certificate the server's refusal is the error")
    func withoutCertificate() async throws {
        let file = try TestNetwork.pagesPipeline("  server: ${SCREENS_PIPE_TEST_MTLS_URL}")
        let run = try await CommandRunner.run(["run", file])
        #expect(run.status != 0)
        #expect(run.stderr.contains("HTTP 400") && run.stderr.contains("No required SSL certificate was sent"), "stderr: \(run.stderr)")
    }

    @Test("a key that does not belong to the certificate: an error naming both files")
    func mismatchedKey() async throws {
        let file = try TestNetwork.pagesPipeline(
            """
              server: ${SCREENS_PIPE_TEST_MTLS_URL}
              client-cert: ${SCREENS_PIPE_TEST_CLIENT_CERT}
              client-key: ${SCREENS_PIPE_TEST_OTHER_KEY}
            """)
        let run = try await CommandRunner.run(["run", file])
        #expect(run.status != 0)
        let key = try #require(TestNetwork.variables["SCREENS_PIPE_TEST_OTHER_KEY"])
        #expect(run.stderr.contains("client-key '\(key)'"), "stderr: \(run.stderr)")
    }

    @Test("a file that cannot be read or is not PEM: an error naming it, before any request")
    func unreadableFiles() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let notPEM = directory.appendingPathComponent("not-a-cert.pem")
        try "hello".write(to: notPEM, atomically: true, encoding: .utf8)
        let cases: [(cert: String, key: String, expected: String)] = [
            (directory.appendingPathComponent("absent.pem").path, "${SCREENS_PIPE_TEST_CLIENT_KEY}", "cannot read client-cert '\(directory.path)/absent.pem'"),
            (notPEM.path, "${SCREENS_PIPE_TEST_CLIENT_KEY}", "client-cert '\(notPEM.path)' holds no PEM certificate"),
            ("${SCREENS_PIPE_TEST_CLIENT_CERT}", notPEM.path, "client-key '\(notPEM.path)' holds no PEM private key"),
        ]
        for (certificate, key, expected) in cases {
            let file = try TestNetwork.pagesPipeline(
                """
                  server: ${SCREENS_PIPE_TEST_MTLS_URL}
                  client-cert: \(certificate)
                  client-key: \(key)
                """)
            var result: CommandResult?
            let logged = TestNetwork.nginxLines(
                try await TestNetwork.logLines("nginx-access.log") { result = try await CommandRunner.run(["run", file]) }, of: TestNetwork.mtlsURL)
            let run = try #require(result)
            #expect(run.status != 0)
            #expect(run.stderr.contains(expected), "stderr: \(run.stderr)")
            #expect(logged.isEmpty, "no request before the files are checked: \(logged)")
        }
    }
}
