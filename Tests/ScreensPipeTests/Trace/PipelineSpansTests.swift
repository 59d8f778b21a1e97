import Foundation
import InMemoryTracing
import Sandbox
import ScreensBus
import Testing
import Tracing
@testable import ScreensPipeCore
import ScreensPipe

/// The spans of a run (run > list > page > HTTP attempt) as swift-distributed-tracing's
/// in-memory tracer records them, on runs against the in-process sandbox over loopback.
///
/// The tracer is the process's (bootstrapped once); each test starts a root span of its own,
/// as an embedding server's request span, and reads back only the spans of that trace.
@Suite("tracing: spans of a run")
struct PipelineSpansTests {
    static let tracer: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()

    /// Secrets the pipeline below sends: none may appear in any span.
    static let secrets = ["qry-SECRET-5512", "hdr-SECRET-7731", "opaque-SECRET-4471"]

    /// For each site (a list of 1-row pages), its structured contents (pages of 10 rows).
    static let fanOutYAML = """
        name: contents
        source:
          type: liferay-headless
          server: sandbox
          auth: { basic: { username: test@liferay.com, password: test } }
          path: /o/headless-delivery/v1.0/sites/${site.id}/structured-contents
          query: { flatten: "true", api_key: qry-SECRET-5512, sig: { secret: opaque-SECRET-4471 } }
          headers: { X-Api-Token: hdr-SECRET-7731 }
          pagination: { page-size: 10, prefetch: 2 }
          retry: { attempts: 4, backoff: 10ms, max-backoff: 20ms }
          for-each:
            as: site
            concurrency: 2
            list: { type: liferay-headless, path: /o/headless-admin-user/v1.0/my-user-account/sites, pagination: { page-size: 1 } }
        convert:
          fields: { id: id, title: title }
        """

    struct Traced {
        var summary: RunSummary
        var root: String
        var spans: [FinishedInMemorySpan]

        func named(_ name: String) -> [FinishedInMemorySpan] { spans.filter { $0.operationName == name } }
        func children(of span: FinishedInMemorySpan) -> [FinishedInMemorySpan] { spans.filter { $0.parentSpanID == span.spanID } }
        func span(_ id: String?) -> FinishedInMemorySpan? { spans.first { $0.spanID == id } }
    }

    /// Runs `yaml` under a root span (an embedder's current span) and returns its trace.
    static func run(_ yaml: String, sandbox: SandboxConfiguration = SandboxConfiguration()) async throws -> Traced {
        let tracer = Self.tracer
        let variables = ["SCREENS_PIPE_CACHE_DIR": FileManager.default.temporaryDirectory.appendingPathComponent("spans-\(UUID().uuidString)").path]
        var spec = try PipelineLoader(environment: variables).load(yaml: yaml)
        spec.sink = SinkSpec(destination: .discard)
        let pipeline = Pipeline(spec: spec, environment: PipelineEnvironment(variables: variables, sandbox: BundledSandbox(configuration: sandbox)))
        let root = tracer.startSpan("embedder request", context: .topLevel)
        // run() throws a failed run's error, which carries its summary.
        let summary = try await ServiceContext.$current.withValue(root.context) { () async throws -> RunSummary in
            do {
                return try await pipeline.run()
            } catch let error as ScreensPipeError {
                guard let summary = error.summary else { throw error }
                return summary
            }
        }
        root.end()
        let trace = root.context.inMemorySpanContext!.traceID
        return Traced(
            summary: summary, root: root.context.inMemorySpanContext!.spanID,
            spans: tracer.finishedSpans.filter { $0.traceID == trace && $0.operationName != "embedder request" })
    }

    static func string(_ span: FinishedInMemorySpan, _ key: String) -> String? {
        guard case .string(let text)? = span.attributes[key]?.toSpanAttribute() else { return nil }
        return text
    }

    static func int(_ span: FinishedInMemorySpan, _ key: String) -> Int64? {
        switch span.attributes[key]?.toSpanAttribute() {
        case .int64(let value)?: value
        case .int32(let value)?: Int64(value)
        default: nil
        }
    }

    /// Every attribute of `span` and its status message, as text.
    static func texts(of span: FinishedInMemorySpan) -> [String] {
        var texts = [span.operationName, span.status?.message ?? ""]
        span.attributes.forEach { key, value in texts.append("\(key)=\(value)") }
        return texts
    }

    @Test("a fan-out run: run > list > page > attempt, child lists under their parent row's list, the embedder's span on top")
    func fanOutTree() async throws {
        let traced = try await Self.run(Self.fanOutYAML)
        #expect(traced.summary.succeeded, "\(traced.summary.failures)")
        let runs = traced.named(PipelineSpans.run)
        try #require(runs.count == 1)
        let run = runs[0]
        #expect(run.parentSpanID == traced.root)
        #expect(Self.string(run, PipelineSpans.Attribute.pipeline) == "contents")
        let runRows: Int64 = Self.int(run, PipelineSpans.Attribute.rows) ?? -1
        #expect(runRows == 97)

        let lists = traced.named(PipelineSpans.list)
        let sites = lists.filter { $0.parentSpanID == run.spanID }
        try #require(sites.count == 1, "the sites list, under the run")
        let children = lists.filter { $0.parentSpanID == sites[0].spanID }
        #expect(children.count == lists.count - 1, "every child list under the sites list")
        #expect(children.count >= 2)
        #expect(children.allSatisfy { Self.string($0, PipelineSpans.Attribute.parent)?.hasPrefix("site #") == true })
        #expect(Self.string(sites[0], PipelineSpans.Attribute.parent) == nil)

        // Pages under lists, each with its index and rows; their rows add up to the run's.
        let pages = traced.named(PipelineSpans.page)
        #expect(pages.allSatisfy { page in lists.contains { $0.spanID == page.parentSpanID } })
        let childPages = pages.filter { page in children.contains { $0.spanID == page.parentSpanID } }
        #expect(childPages.compactMap { Self.int($0, PipelineSpans.Attribute.rows) }.reduce(0, +) == 73 + 24)
        #expect(pages.allSatisfy { Self.int($0, PipelineSpans.Attribute.pageIndex) != nil })
        #expect(pages.allSatisfy { Self.string($0, PipelineSpans.Attribute.origin) == "remote" })

        // One HTTP attempt per page (no faults), a client span under its page.
        let attempts = traced.named("GET")
        #expect(attempts.count == pages.count)
        for attempt in attempts {
            #expect(pages.contains { $0.spanID == attempt.parentSpanID })
            #expect(attempt.kind == .client)
            #expect(Self.string(attempt, "http.request.method") == "GET")
            #expect(Self.string(attempt, "server.address") == "127.0.0.1")
            #expect(Self.int(attempt, "server.port").map { $0 > 0 } == true)
            #expect(Self.int(attempt, "http.response.status_code") == 200)
            #expect(Self.int(attempt, "http.request.resend_count") == nil)
            let url = Self.string(attempt, "url.full") ?? ""
            #expect(url.hasPrefix("http://127.0.0.1:"), "\(url)")
        }
        let childURL = attempts.compactMap { Self.string($0, "url.full") }.first { $0.contains("structured-contents") } ?? ""
        // OpenTelemetry's HTTP conventions write a redacted query value REDACTED (url.full).
        #expect(childURL.contains("api_key=REDACTED") && childURL.contains("sig=REDACTED"), "\(childURL)")
        #expect(traced.spans.allSatisfy { $0.status?.code != .error })
    }

    @Test("no secret in any span: query values, a secret header, a `{ secret: }` value")
    func noSecrets() async throws {
        let traced = try await Self.run(Self.fanOutYAML)
        #expect(!traced.spans.isEmpty)
        for span in traced.spans {
            for text in Self.texts(of: span) {
                for secret in Self.secrets { #expect(!text.contains(secret), "\(span.operationName): \(text)") }
            }
        }
    }

    @Test("retries are sibling attempts under their page: the 503 an error with error.type, the next one's resend_count")
    func retriesAreSiblings() async throws {
        let faulty = SandboxConfiguration(faults: FaultPlan(failEvery: 3))
        let traced = try await Self.run(Self.fanOutYAML, sandbox: faulty)
        #expect(traced.summary.succeeded, "\(traced.summary.failures)")
        let attempts = traced.named("GET")
        let failed = attempts.filter { Self.int($0, "http.response.status_code") == 503 }
        #expect(!failed.isEmpty)
        for attempt in failed {
            #expect(attempt.status?.code == .error)
            #expect(Self.string(attempt, "error.type") == "503")
            let siblings = attempts.filter { $0.parentSpanID == attempt.parentSpanID }
            #expect(siblings.contains { Self.int($0, "http.response.status_code") == 200 && (Self.int($0, "http.request.resend_count") ?? 0) >= 1 })
        }
        // The page itself succeeded: its retries do not fail it.
        #expect(traced.named(PipelineSpans.page).allSatisfy { $0.status?.code != .error })
    }

    @Test("a request sent again after its session was refused is a resend: resend_count counts it under the same page")
    func resendAfterRefusal() async throws {
        var sandbox = SandboxConfiguration()
        sandbox.sessionUses = 3
        let yaml = """
            name: cookie
            source:
              type: liferay-jsonws
              server: sandbox
              auth: { cookie: { username: joe@liferay.com, password: joe } }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
              pagination: { first-page-size: 10, page-size: 10, prefetch: 1 }
              retry: { attempts: 1 }
            """
        let traced = try await Self.run(yaml, sandbox: sandbox)
        #expect(traced.summary.succeeded, "\(traced.summary.failures)")
        // The list's requests (not the sign-in's), grouped by their page.
        let invokes = traced.named("POST").filter { Self.string($0, "url.full")?.contains("/api/jsonws/invoke") == true }
        let refused = invokes.filter { Self.int($0, "http.response.status_code") == 403 }
        #expect(!refused.isEmpty, "the session ended mid-list: \(traced.spans.map { ($0.operationName, $0.attributes) })")
        for attempt in refused {
            #expect(Self.int(attempt, "http.request.resend_count") == nil)
            let again = invokes.filter { $0.parentSpanID == attempt.parentSpanID && $0.spanID != attempt.spanID }
            #expect(again.count == 1)
            #expect(again.first.map { Self.int($0, "http.response.status_code") } == 200)
            #expect(again.first.flatMap { Self.int($0, "http.request.resend_count") } == 1)
        }
    }

    @Test("pages prefetched past a limit are given up, not failed: no span of the run is an error")
    func limitCancelsWithoutErrors() async throws {
        let slow = SandboxConfiguration(faults: FaultPlan(latency: .milliseconds(150)))
        let yaml = """
            name: limited
            source:
              type: liferay-jsonws
              server: sandbox
              auth: { basic: { username: test@liferay.com, password: test } }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
              count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 0 } }
              pagination: { first-page-size: 2, page-size: 2, prefetch: 6 }
            filter: { limit: 3 }
            """
        let traced = try await Self.run(yaml, sandbox: slow)
        #expect(traced.summary.succeeded, "\(traced.summary.failures)")
        #expect(traced.summary.selected == 3)
        let pages = traced.named(PipelineSpans.page)
        #expect(pages.count > 2, "pages were in flight when the limit was reached")
        for span in traced.spans { #expect(span.status?.code != .error, "\(span.operationName) \(span.attributes)") }
    }

    @Test("a failed run: the page, list and run spans are errors naming the code")
    func failure() async throws {
        let yaml = """
            name: missing
            source:
              type: liferay-headless
              server: sandbox
              auth: { basic: { username: test@liferay.com, password: test } }
              path: /o/headless-delivery/v1.0/sites/1/no-such-list
              retry: { attempts: 1 }
            """
        let traced = try await Self.run(yaml)
        #expect(!traced.summary.succeeded)
        let attempt = try #require(traced.named("GET").first)
        #expect(attempt.status?.code == .error)
        #expect(Self.string(attempt, "error.type") == "404")
        for name in [PipelineSpans.page, PipelineSpans.list, PipelineSpans.run] {
            let span = try #require(traced.named(name).first)
            #expect(span.status?.code == .error, "\(name)")
            #expect(Self.string(span, PipelineSpans.Attribute.errorCode) == "http", "\(name)")
        }
    }
}
