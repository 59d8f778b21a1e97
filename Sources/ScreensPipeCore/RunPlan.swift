/// What `plan` prints: the pipeline and the requests of its first pages, secrets redacted.
public struct RunPlan: Sendable {
    /// The plan as printed: lines ending in a newline, secrets redacted.
    public let text: String

    /// Builds the plan without sending anything. `server: sandbox` shows a placeholder port.
    ///
    /// Pure: each wire format is asked for its requests; no cache database is opened, and no
    /// HTTP client, thread or file is created.
    public init(spec: PipelineSpec, pages: Int) throws(ScreensPipeError) {
        let baseURL: String?
        switch spec.source.server {
        case .sandbox: baseURL = "http://127.0.0.1:<sandbox-port>"
        case .url(let url): baseURL = url
        case nil: baseURL = nil
        }
        let source = try SourceFactory.makeBlueprint(spec: spec, baseURL: baseURL)
        var lines: [String] = []
        lines.append("# pipeline \(spec.name)\(spec.file.map { " (\($0))" } ?? "")")
        lines.append(spec.redactedDescription())
        if spec.incremental != nil { lines.append(IncrementalPushDown.planLine(for: spec)) }
        if spec.source.fansOut {
            lines.append("# fan-out (each list is loaded per row of the list below it; ${name.field} is filled in from that row)")
            lines += FanOutPlan.tree(of: spec.source)
            lines.append("# requests of the child list, placeholders unresolved")
        } else {
            lines.append("# requests")
        }
        let pagination = SourceFactory.effectivePagination(for: spec.source)
        // A chained list's later requests are whatever each page names: only page 0 can be
        // shown as it will really be sent, and it asks for no row count.
        let shownPages = source.chaining == .chained ? 1 : max(1, pages)
        for index in 0..<shownPages {
            let request = PageRequest(index: index, pagination: pagination)
            if source.chaining == .chained {
                lines.append("page 0: the first page; each later page is the one the page before names")
            } else {
                lines.append("page \(index): rows \(request.startRow)..<\(request.endRow)\(request.includesRowCount ? " + row count" : "")")
            }
            for planned in source.plan(request) {
                lines.append("  \(planned.method) \(planned.url)")
                for header in planned.headers { lines.append("  \(header)") }
                if let body = planned.body { lines.append("  \(body)") }
            }
        }
        if let rest = spec.source.type.settings as? RESTSourceSpec, rest.paginate == .auto {
            lines.append(
                "... the paginator is decided at run time from the first page (a Link header, a next link or cursor, a has-more flag, a page count, or a total), then each next page as it says, one at a time, at most \(pagination.maxPages) pages")
            text = lines.joined(separator: "\n") + "\n"
            return
        }
        switch source.chaining {
        case .indexed:
            lines.append(
                "... then pages of \(pagination.pageSize) rows until the list ends (its row count, page count, has-more flag or a short page: see How a list is loaded), \(pagination.adaptivePrefetch ? "1 to \(pagination.prefetch) (auto)" : "\(pagination.prefetch)") in flight, at most \(pagination.maxPages) pages")
        case .chained:
            lines.append(
                "... each next page from the previous page's link or cursor, one at a time, until a page names none (no rel=\"next\" link, a null, empty or missing next marker, or a false has-more), at most \(pagination.maxPages) pages")
        }
        text = lines.joined(separator: "\n") + "\n"
    }
}
