import Foundation
import ScreensPipe
import Testing

/// `cache: { url: ... }` and the PostgreSQL URL: what is accepted, what is refused and how,
/// and that the password shows up nowhere.
@Suite struct PostgresTargetTests {
    @Test func parsesTheUsualForms() throws {
        let full = try PostgresTarget(url: "postgres://app:p%40ss:word@db.example.com:6543/screens?sslmode=require")
        #expect((full.user, full.host, full.port, full.database, full.tls) == ("app", "db.example.com", 6543, "screens", .require))
        #expect(full.password?.revealed == "p@ss:word")
        #expect(full.description == "postgres://app@db.example.com:6543/screens")
        #expect(!"\(full)".contains("word") && !String(reflecting: full).contains("p@ss"))

        let short = try PostgresTarget(url: "postgresql://app@[::1]")
        #expect((short.host, short.port, short.database, short.tls) == ("::1", 5432, "app", .prefer))
        #expect(short.password == nil)
        #expect(short.resolvingPassword(environment: ["PGPASSWORD": "from-env"]).password?.revealed == "from-env")
        // A password in the URL wins over PGPASSWORD.
        #expect(full.resolvingPassword(environment: ["PGPASSWORD": "other"]).password?.revealed == "p@ss:word")
    }

    @Test(arguments: [
        ("mysql://app:hunter2@host/db", "scheme"),
        ("postgres://host/db", "no user name"),
        ("postgres://app:hunter2@host:99999/db", "port"),
        ("postgres://app:hunter2@host:x/db", "port"),
        ("postgres://app:hunter2@/db", "host"),
        ("postgres://app:hunter2@ho st/db", "host"),
        ("postgres://app:hunter2@host/db?sslmode=maybe", "sslmode"),
        ("postgres://app:hunter2@host/db?password=x", "unknown parameter"),
        ("postgres://app:hunter2%zz@host/db", "percent"),
        ("postgres://app:hunter2@host/db\n", "control"),
        ("postgres://app:hunter2@host/" + String(repeating: "d", count: 5_000), "longer than"),
    ])
    func refusesABadURLWithoutQuotingIt(url: String, why: String) {
        #expect {
            _ = try PostgresTarget(url: url)
        } throws: { error in
            let message = (error as? ScreensPipeError)?.message ?? ""
            return (error as? ScreensPipeError)?.code == .configuration && message.contains(why) && !message.contains("hunter2")
        }
    }

    @Test func aPipelineNamesTheDatabaseAndItsTLSOptions() throws {
        let spec = try loadPipeline(
            """
            source: { type: file, path: rows.json }
            cache:
              url: postgres://app:${DB_PASSWORD}@db.internal:5432/cache
              tls: require
              ca-file: /etc/ssl/db-ca.pem
            """, environment: ["DB_PASSWORD": "s3cret-value"])
        let target = try #require(spec.cache?.postgres)
        #expect((target.host, target.database, target.tls, target.caFile) == ("db.internal", "cache", .require, "/etc/ssl/db-ca.pem"))
        #expect(target.password?.revealed == "s3cret-value")
        #expect(!"\(spec)".contains("s3cret-value"))
        #expect(!String(reflecting: spec).contains("s3cret-value"))
    }

    @Test func aPipelineWithBothAPathAndAURLOrTLSWithoutAURLIsRefused() {
        let both = configErrors(
            """
            source: { type: file, path: rows.json }
            cache: { path: /tmp/c.sqlite, url: "postgres://app@db/cache" }
            """)
        #expect(both.contains { $0.contains("'path' and 'url' name two places") })
        let orphan = configErrors(
            """
            source: { type: file, path: rows.json }
            cache: { tls: require }
            """)
        #expect(orphan.contains { $0.contains("'tls' applies only with 'url'") })
        let bad = configErrors(
            """
            source: { type: file, path: rows.json }
            cache: { url: "postgres://app:topsecret@db:0/cache" }
            """)
        #expect(bad.contains { $0.contains("port") })
        #expect(!bad.joined().contains("topsecret"))
    }

    @Test func sinkKeysAreCheckedWhenThePipelineLoads() {
        let errors = configErrors(
            """
            source: { type: file, path: rows.json }
            sink: { type: postgres, url: "postgres://app:pw-never-shown@db/x", key: [a, a], path: out.json, table: "bad\\u0001name" }
            """)
        #expect(errors.contains { $0.contains("'key' names a field twice") })
        #expect(errors.contains { $0.contains("key 'path' does not apply to sink type 'postgres'") })
        #expect(errors.contains { $0.contains("'table' must be a table name") })
        #expect(!errors.joined().contains("pw-never-shown"))
        let misplaced = configErrors("source: { type: file, path: rows.json }\nsink: { type: stdout, table: x }")
        #expect(misplaced.contains { $0.contains("key 'table' applies only to sink type 'postgres'") })
    }
}

/// Connecting goes wrong in bounded time, with the reason and never the password.
@Suite(.enabled(if: PostgresTesting.isAvailable, PostgresTesting.needed))
struct PostgresConnectionFailureTests {
    @Test func aRefusedConnectionIsACacheErrorNamingTheServer() async throws {
        // A port nothing listens on: bound, then closed.
        let port = try TestPorts.unused()
        let target = PostgresTarget(host: "127.0.0.1", port: port, user: "app", password: "never-shown", tls: .disable)
        await #expect {
            _ = try await PostgresCacheStore.open(target)
        } throws: { error in
            let failure = error as? ScreensPipeError
            return failure?.code == .cache && failure!.message.contains("127.0.0.1:\(port)")
                && failure!.message.contains("no connection") && !"\(error)".contains("never-shown")
        }
    }

    @Test func aWrongPasswordIsAnAuthenticationErrorWithoutThePassword() async throws {
        let database = try await PostgresTesting.freshDatabase()
        let role = "r_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        try await PostgresTesting.withConnection(database) { connection in
            try await connection.query(.init(unsafeSQL: "CREATE ROLE \(role) LOGIN PASSWORD 'the-right-one'"), logger: PostgresTesting.logger)
            // PostgreSQL 15 lets only the owner create in schema public.
            try await connection.query(.init(unsafeSQL: "GRANT ALL ON SCHEMA public TO \(role)"), logger: PostgresTesting.logger)
        }
        var wrong = database
        wrong.user = String(role)
        wrong.password = "Wrong-Password-42"
        await #expect {
            _ = try await PostgresCacheStore.open(wrong)
        } throws: { error in
            let failure = error as? ScreensPipeError
            return failure?.code == .authentication && failure!.message.contains("password authentication failed")
                && !"\(error)".contains("Wrong-Password-42") && !"\(error)".contains("the-right-one")
        }
        var right = wrong
        right.password = "the-right-one"
        let store = try await PostgresCacheStore.open(right)
        #expect(try await store.entries().isEmpty)
        await store.close()
    }

    @Test func requiredTLSOnAServerWithoutTLSFailsClearly() async throws {
        var target = try await PostgresTesting.freshDatabase()
        target.tls = .require
        // The test cluster has TLS when openssl was there to make its certificate (see
        // PostgresTLSTests); its throwaway CA is then in no trust store, which `require`
        // without ca-file refuses just as clearly.
        let expected = TestCertificates.caFile == nil ? "does not offer TLS" : "CERTIFICATE_VERIFY_FAILED"
        await #expect {
            _ = try await PostgresCacheStore.open(target)
        } throws: { error in
            "\(error)".contains(expected) && "\(error)".contains(target.description)
        }
    }
}
