import Foundation
import PostgresNIO
import ScreensBus
import ScreensPipe
import Testing

/// The test cluster's certificate authorities (scripts/pg-test-cluster.sh exports them).
enum TestCertificates {
    /// The CA that signed the server's certificate, and one that did not.
    static let caFile = ProcessInfo.processInfo.environment["SCREENS_PIPE_TEST_POSTGRES_CA"].flatMap { $0.isEmpty ? nil : $0 }
    static let otherCAFile = ProcessInfo.processInfo.environment["SCREENS_PIPE_TEST_POSTGRES_OTHER_CA"].flatMap { $0.isEmpty ? nil : $0 }
    static let needed: Comment = "needs PostgreSQL with TLS (SCREENS_PIPE_TEST_POSTGRES_CA; make test starts one when openssl is installed)"
}

/// TLS to PostgreSQL against the test cluster, which scripts/pg-test-cluster.sh starts with
/// `ssl=on`, a certificate for 127.0.0.1 from a throwaway CA, and a role (`screens_tls`) that
/// pg_hba admits over TLS only.
@Suite(.enabled(if: TestCertificates.caFile != nil, TestCertificates.needed))
struct PostgresTLSTests {
    /// Never sent in clear and never shown: the role is admitted without it (trust), so a
    /// leak could only come from the client's own messages.
    static let password = "Tls-Secret-7f3a"

    /// A fresh database, reached as the TLS-only role with `tls` and `caFile`.
    private func target(tls: PostgresTarget.TLSMode, caFile: String?) async throws -> PostgresTarget {
        var target = try await PostgresTesting.freshDatabase()
        target.user = "screens_tls"
        target.password = Secret(Self.password)
        target.tls = tls
        target.caFile = caFile
        return target
    }

    @Test func requireWithTheServersCAConnectsOverTLS() async throws {
        let target = try await target(tls: .require, caFile: try #require(TestCertificates.caFile))
        let store = try await PostgresCacheStore.open(target)
        let page = FetchedPage(request: CacheFixtures.request(0), rows: ["a", "b"], rowCount: 2, continuation: nil, origin: .remote, fetchedAt: Date())
        do {
            try await store.write(key: "k", pipeline: "p", page: page, snapshot: nil)
            #expect(try await store.read(key: "k", page: 0)?.rows == ["a", "b"])
            // The server's own view: this role's sessions are encrypted.
            let encrypted = try await PostgresTesting.withConnection(try PostgresTesting.serverTarget()) { connection in
                let rows = try await connection.query(
                    """
                    SELECT COUNT(*) FILTER (WHERE s.ssl), COUNT(*) FROM pg_stat_ssl AS s JOIN pg_stat_activity AS a USING (pid)
                    WHERE a.usename = 'screens_tls'
                    """, logger: PostgresTesting.logger)
                for try await (encrypted, all) in rows.decode((Int, Int).self) { return (encrypted, all) }
                return (0, 0)
            }
            #expect(encrypted.1 > 0)
            #expect(encrypted.0 == encrypted.1)
        } catch {
            await store.close()
            throw error
        }
        await store.close()

        // The sink too, from a pipeline file's tls and ca-file.
        let directory = try TemporaryDirectory()
        let rows = directory.file("rows.json")
        try #"[{"id": 1, "name": "over TLS"}]"#.write(toFile: rows, atomically: true, encoding: .utf8)
        let yaml = """
            source: { type: file, path: "\(rows)" }
            sink: { type: postgres, url: "\(target.description)", tls: require, ca-file: "\(target.caFile!)", table: t, key: id }
            """
        let summary = try await Pipeline(yaml: yaml, environment: PipelineEnvironment(variables: [:])).run()
        #expect(summary.failures.isEmpty, "\(summary.failures)")
    }

    @Test func requireWithAnotherCAFailsClearlyWithoutTheSecret() async throws {
        let target = try await target(tls: .require, caFile: try #require(TestCertificates.otherCAFile))
        do throws(ScreensPipeError) {
            let store = try await PostgresCacheStore.open(target)
            await store.close()
            Issue.record("a certificate signed by another CA must not be trusted")
        } catch {
            #expect(error.message.contains(target.description), "\(error.message)")
            #expect(error.message.lowercased().contains("certificate"), "\(error.message)")
            #expect(!error.message.contains(Self.password))
            #expect(!"\(error)".contains(Self.password))
        }
    }

    @Test func disableAgainstAHostSSLOnlyRoleFailsClearly() async throws {
        let target = try await target(tls: .disable, caFile: nil)
        do throws(ScreensPipeError) {
            let store = try await PostgresCacheStore.open(target)
            await store.close()
            Issue.record("pg_hba admits screens_tls over TLS only")
        } catch {
            #expect(error.message.contains("pg_hba.conf rejects connection"), "\(error.message)")
            #expect(error.message.contains("no encryption"), "\(error.message)")
            #expect(!error.message.contains(Self.password))
        }
    }

    @Test func aCAFileThatIsNotThereFailsBeforeConnecting() async throws {
        let target = try await target(tls: .require, caFile: "/nonexistent/ca.pem")
        await #expect {
            _ = try await PostgresCacheStore.open(target)
        } throws: { error in
            let message = (error as? ScreensPipeError)?.message ?? ""
            return message.contains("/nonexistent/ca.pem") && !message.contains(Self.password)
        }
    }
}
