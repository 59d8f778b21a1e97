import Foundation
import Sandbox
import ScreensBus
import Testing

/// `run --metrics-file` writes Prometheus text with the run's counts, and `run --trace`
/// writes a Chrome trace with one request span per page, overlapping exactly as prefetch
/// allows.
@Suite("run: metrics file and trace")
struct MetricsAndTraceRunTests {
    /// `name{labels} value` lines of a Prometheus text file, comments left out.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    static func read(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    @Test func metricsCountPagesRowsBytesCacheAndLatency() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let metrics = directory.appendingPathComponent("bookmarks.prom")
        let cache = ["SCREENS_PIPE_CACHE_DIR": directory.appendingPathComponent("cache").path]
        let first = try await CommandRunner.run(
            ["run", "pipelines/bookmarks.yaml", "--metrics-file", metrics.path, "--quiet"], environment: cache)
        #expect(first.status == 0, "stderr: \(first.stderr)")
        let text = try Self.read(metrics)
        let remote = Self.samples(text)
        #expect(text.contains("# TYPE screens_pipe_pages_total counter"))
        #expect(remote[#"screens_pipe_pages_total{pipeline="bookmarks",origin="remote"}"#] == 2, "\(text)")
        #expect(remote[#"screens_pipe_rows_received_total{pipeline="bookmarks"}"#] == 73)
        #expect(remote[#"screens_pipe_rows_selected_total{pipeline="bookmarks"}"#] == 73)
        #expect((remote[#"screens_pipe_response_bytes_total{pipeline="bookmarks"}"#] ?? 0) > 10_000)
        #expect(remote[#"screens_pipe_cache_misses_total{pipeline="bookmarks"}"#] == 2)
        #expect(remote[#"screens_pipe_cache_hits_total{pipeline="bookmarks"}"#] == 0)
        #expect(remote[#"screens_pipe_page_duration_seconds_count{pipeline="bookmarks"}"#] == 2, "\(text)")
        #expect(remote[#"screens_pipe_retries_total{pipeline="bookmarks"}"#] == 0)

        let second = try await CommandRunner.run(
            ["run", "pipelines/bookmarks.yaml", "--metrics-file", metrics.path, "--policy", "cache-only", "--quiet"], environment: cache)
        #expect(second.status == 0, "stderr: \(second.stderr)")
        let cached = Self.samples(try Self.read(metrics))
        #expect(cached[#"screens_pipe_pages_total{pipeline="bookmarks",origin="cache"}"#] == 2)
        #expect(cached[#"screens_pipe_cache_hits_total{pipeline="bookmarks"}"#] == 2)
        #expect(cached[#"screens_pipe_cache_misses_total{pipeline="bookmarks"}"#] == 0)
        #expect(cached[#"screens_pipe_response_bytes_total{pipeline="bookmarks"}"#] == 0)
        // Only the file remains: the temporary file was renamed into place.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["bookmarks.prom", "cache"])
    }

    @Test func retriesAndErrorsByKind() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let metrics = directory.appendingPathComponent("m.prom")
        try await withSandbox(faults: FaultPlan(failEvery: 1, failStatus: 503)) { harness in
            let result = try await harness.run(
                "pipelines/bookmarks.yaml",
                ["--policy", "remote-only", "--set", "source.retry.attempts=3", "--set", "source.retry.backoff=10ms",
                 "--metrics-file", metrics.path, "--quiet"])
            #expect(result.status == 1)
        }
        let samples = Self.samples(try Self.read(metrics))
        #expect(samples[#"screens_pipe_retries_total{pipeline="bookmarks"}"#] == 2)
        #expect(samples[#"screens_pipe_errors_total{pipeline="bookmarks",kind="http"}"#] == 1)
    }

    @Test func anUnwritableMetricsFileIsAnError() async throws {
        let result = try await CommandRunner.run(
            ["run", "pipelines/offline-bookmarks.yaml", "--metrics-file", "/nonexistent-dir/m.prom", "--quiet"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot write the metrics to /nonexistent-dir/m.prom"))
        #expect(result.stdoutLines.count == 9)
    }

    struct Span {
        var name: String
        var category: String
        var start: Int64
        var end: Int64
        var lane: Int64
        var page: Int64?
    }

    /// The complete spans of a trace file, after checking every event's shape.
    static func spans(_ url: URL) throws -> [Span] {
        guard case .array(let events) = try JSONValue(parsing: [UInt8](Data(contentsOf: url))) else {
            Issue.record("a trace is a JSON array")
            return []
        }
        var spans: [Span] = []
        for case .object(let event) in events where event["ph"] == "X" {
            guard case .string(let name)? = event["name"], case .string(let category)? = event["cat"],
                  case .int(let ts)? = event["ts"], case .int(let dur)? = event["dur"], case .int? = event["pid"],
                  case .int(let tid)? = event["tid"], case .object(let args)? = event["args"]
            else {
                Issue.record("malformed span \(event)")
                continue
            }
            var page: Int64?
            if case .int(let value)? = args["page"] { page = value }
            spans.append(Span(name: name, category: category, start: ts, end: ts + dur, lane: tid, page: page))
        }
        return spans
    }

    @Test func prefetchedRequestsOverlapOnSeparateLanes() async throws {
        let trace = try CommandRunner.temporaryDirectory().appendingPathComponent("assets.trace.json")
        // 48 assets in pages of 20: page 0 alone (it brings the count), then pages 1 and 2 at once.
        try await withSandbox(faults: FaultPlan(latency: .milliseconds(150))) { harness in
            let result = try await harness.run("pipelines/assets.yaml", ["--trace", trace.path, "--quiet"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
        }
        let spans = try Self.spans(trace)
        let requests = spans.filter { $0.category == "request" }.sorted { $0.page ?? 0 < $1.page ?? 0 }
        #expect(requests.map(\.page) == [0, 1, 2])
        guard requests.count == 3 else { return }
        #expect(requests[0].end <= requests[1].start && requests[0].end <= requests[2].start)
        #expect(requests[1].start < requests[2].end && requests[2].start < requests[1].end, "prefetched pages overlap")
        #expect(requests[1].lane != requests[2].lane)
        #expect(spans.filter { $0.category == "convert" }.count == 3)
        #expect(spans.filter { $0.category == "publish" }.count == 3)
        // Drawn from the run's tracing spans: the run and its list around everything, and
        // each page's HTTP attempts (the client spans) inside it, on its lane.
        let runs = spans.filter { $0.category == "run" }, lists = spans.filter { $0.category == "list" }
        #expect(runs.count == 1 && lists.count == 1)
        #expect(spans.allSatisfy { span in runs.allSatisfy { $0.start <= span.start && span.end <= $0.end } })
        let attempts = spans.filter { $0.category == "http" }
        #expect(attempts.count == 3 && attempts.allSatisfy { $0.name == "POST" || $0.name == "GET" })
        for attempt in attempts {
            #expect(requests.contains { $0.lane == attempt.lane && $0.start <= attempt.start && attempt.end <= $0.end })
        }

        // The timeline picture of the docs, drawn from this trace: one box per span, one
        // row per lane, the lanes named.
        let drawn = try await CommandRunner.shell(#"python3 scripts/trace_svg.py "$TRACE" --title prefetch"#, environment: ["TRACE": trace.path])
        #expect(drawn.status == 0, "stderr: \(drawn.stderr)")
        #expect(drawn.stdoutText.hasPrefix("<svg"))
        #expect(drawn.stdoutText.components(separatedBy: "<rect x=").count - 1 == spans.count)
        #expect(drawn.stdoutText.contains(">requests 2</text>"))
    }

    @Test func chainedRequestsNeverOverlap() async throws {
        let trace = try CommandRunner.temporaryDirectory().appendingPathComponent("rest.trace.json")
        let result = try await CommandRunner.run(["run", "pipelines/rest-bookmarks.yaml", "--trace", trace.path, "--quiet"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let requests = try Self.spans(trace).filter { $0.category == "request" }.sorted { $0.start < $1.start }
        #expect(requests.map(\.page) == [0, 1, 2])
        for (earlier, later) in zip(requests, requests.dropFirst()) { #expect(earlier.end <= later.start) }
    }

    @Test func retryWaitsShowOnThePagesLane() async throws {
        let trace = try CommandRunner.temporaryDirectory().appendingPathComponent("retry.trace.json")
        try await withSandbox(faults: FaultPlan(failEvery: 2, failStatus: 503, retryAfter: "0")) { harness in
            let result = try await harness.run(
                "pipelines/bookmarks.yaml",
                ["--policy", "remote-only", "--set", "source.pagination.prefetch=1", "--trace", trace.path, "--quiet"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
        }
        let spans = try Self.spans(trace)
        let waits = spans.filter { $0.category == "retry-wait" }
        #expect(!waits.isEmpty)
        for wait in waits {
            let request = spans.first { $0.category == "request" && $0.page == wait.page }
            #expect(request?.lane == wait.lane)
            #expect(request.map { $0.start <= wait.start && wait.start <= $0.end } == true)
        }
    }
}
