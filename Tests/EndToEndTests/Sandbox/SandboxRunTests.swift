import Foundation
import Sandbox
import ScreensBus
import Testing

/// `screens-pipe run` against the sandbox portal over real loopback HTTP through libcurl.
@Suite("run: Liferay sandbox end to end")
struct SandboxRunTests {
    static let bookmarks = "pipelines/bookmarks.yaml"

    @Test("server: sandbox runs in-process: 73 bookmarks, in order, each once")
    func inProcessSandbox() async throws {
        let result = try await CommandRunner.run(["run", Self.bookmarks, "--policy", "remote-only"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let rows = try result.jsonLines()
        #expect(rows.count == 73)
        let ids = rows.compactMap { $0["entryId"] }
        #expect(Set(ids).count == 73)
        // Ids beyond 2^53 come out exact (rows 10, 49, 50 and 72 of the sandbox list).
        #expect(rows[10]["entryId"] == .int(9_007_199_254_740_993))
        #expect(rows[50]["entryId"] == .int(Int64.max))
        #expect(result.stdoutText.contains("9223372036854775807"))
    }

    @Test("one response per page: 50 then 23 rows, with the count on page 0")
    func pagesAndCount() async throws {
        try await withSandbox { harness in
            let result = try await harness.run(Self.bookmarks, ["--events", "--policy", "remote-only"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let responses = try result.jsonLines().filter { $0["event"] == "response" }
            #expect(responses.map { $0["rows"] } == [.int(50), .int(23)])
            #expect(responses.first?["rowCount"] == .int(73))
            #expect(responses.map { $0["origin"] } == ["remote", "remote"])
        }
    }

    @Test("short pages with a count (permission filtering) still load every page")
    func permissionFiltering() async throws {
        try await withSandbox(hideEvery: 4) { harness in
            let result = try await harness.run(
                Self.bookmarks, ["--events", "--policy", "remote-only", "--set", "source.pagination.page-size=10"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let events = try result.jsonLines()
            let responses = events.filter { $0["event"] == "response" }
            // 73 rows: page 0 of 50, then 3 pages of 10 (the last has 3): every page is asked for.
            #expect(responses.count == 4)
            #expect(responses.allSatisfy { ($0["rows"]?.int64Value ?? 0) < ($0["endRow"]!.int64Value! - $0["startRow"]!.int64Value!) })
            let selected = events.filter { $0["event"] == "selected" }
            #expect(selected.count == 73 - 73 / 4)
        }
    }

    @Test("prefetch 1 and 8 deliver the same rows in the same order", arguments: [1, 8])
    func prefetchKeepsOrder(prefetch: Int) async throws {
        let reference = try await ReferenceOutputs.shared.lines(for: Self.bookmarks, ["--set", "source.pagination.page-size=5"])
        try await withSandbox(faults: FaultPlan(latency: .milliseconds(20))) { harness in
            let result = try await harness.run(
                Self.bookmarks,
                ["--policy", "remote-only", "--set", "source.pagination.page-size=5", "--set", "source.pagination.prefetch=\(prefetch)"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == reference)
        }
    }

    @Test("bad credentials: exit 1, a clear message, and the password never printed")
    func badCredentials() async throws {
        try await withSandbox { harness in
            let secret = "hunter2-very-secret"
            let result = try await harness.run(Self.bookmarks, ["--events", "--policy", "remote-only"], environment: ["LIFERAY_PASSWORD": secret])
            #expect(result.status == 1)
            #expect(result.stderr.contains("401"))
            #expect(result.stderr.contains("page 0"))
            #expect(result.stderr.contains("POST \(harness.server.baseURL)/api/jsonws/invoke"))
            #expect(!result.stderr.contains(secret))
            #expect(!result.stdoutText.contains(secret))
            let base64 = Data("test@liferay.com:\(secret)".utf8).base64EncodedString()
            #expect(!result.stderr.contains(base64) && !result.stdoutText.contains(base64))
        }
    }

    @Test("headless delivery: 1-based pages of one size, totalCount, locale as Accept-Language")
    func headless() async throws {
        let spanish = try await CommandRunner.run(["run", "pipelines/structured-contents.yaml", "--events", "--policy", "remote-only"])
        #expect(spanish.status == 0, "stderr: \(spanish.stderr)")
        let events = try spanish.jsonLines()
        let responses = events.filter { $0["event"] == "response" }
        #expect(responses.map { $0["rows"] } == [.int(25), .int(25), .int(23)])
        #expect(responses.first?["rowCount"] == .int(73))
        let items = events.filter { $0["event"] == "selected" }.compactMap { $0["item"] }
        #expect(Set(items.compactMap { $0["id"] }).count == 73)
        #expect(items.first?["title"] == "Resultados trimestrales n.º 1")
        let english = try await CommandRunner.run(["run", "pipelines/structured-contents.yaml", "--limit", "1", "--set", "convert.locale=en_US"])
        #expect(try english.jsonLines().first?["title"] == "Quarterly results #1")
    }

    @Test("turning TLS verification off works but is warned about on stderr")
    func insecureTLSWarning() async throws {
        let result = try await CommandRunner.run(["run", Self.bookmarks, "--policy", "remote-only", "--set", "source.insecure-skip-tls-verify=true"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("warning: TLS verification is off"))
        #expect(result.stdoutLines.count == 73)
    }

    @Test("a redirect to the login page is reported as bad credentials")
    func loginRedirect() async throws {
        try await withSandbox(loginRedirect: true) { harness in
            let result = try await harness.run(Self.bookmarks, ["--policy", "remote-only"], environment: ["LIFERAY_PASSWORD": "wrong"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("credentials"))
        }
    }

    @Test("an unknown folder is a 404 naming the portal exception")
    func portalNotFound() async throws {
        try await withSandbox { harness in
            let result = try await harness.run(
                Self.bookmarks,
                ["--events", "--policy", "remote-only", "--set", "source.rows.params.folderId=424242", "--set", "source.count.params.folderId=424242"])
            #expect(result.status == 1)
            let error = try result.jsonLines().first { $0["event"] == "error" }
            #expect(error?["status"] == .int(404))
            #expect(error?["exceptionType"]?.stringValue?.contains("NoSuchFolderException") == true)
            #expect(error?["page"] == .int(0))
        }
    }

    @Test("plan shows the batch requests with credentials redacted")
    func plan() async throws {
        let result = try await CommandRunner.run(["plan", Self.bookmarks], environment: ["LIFERAY_PASSWORD": "s3cr3t-pw"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutText.contains("/api/jsonws/invoke"))
        #expect(result.stdoutText.contains(#""start":0"#) && result.stdoutText.contains(#""end":50"#))
        #expect(result.stdoutText.contains("get-entries-count"))
        #expect(result.stdoutText.contains("<redacted>"))
        #expect(!result.stdoutText.contains("s3cr3t-pw"))
        #expect(!result.stdoutText.contains(Data("test@liferay.com:s3cr3t-pw".utf8).base64EncodedString()))
    }
}
