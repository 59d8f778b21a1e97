/// Builds the source stage of a pipeline, wrapped in its cache policy.
enum SourceFactory {
    /// The source stage of `spec`, handing its rows over as `rows` (the run's ``RowReadPlan``).
    static func makeFetcher(
        spec: PipelineSpec, baseURL: String?, environment: PipelineEnvironment, rows: RowForm = .values
    ) async throws(ScreensPipeError) -> any PageFetcher {
        let store: (any CacheBackend)? = if let cache = spec.cache { try await environment.openCache(cache) } else { nil }
        return try await makeFetcher(spec: spec, baseURL: baseURL, environment: environment, rows: rows, store: store, client: environment.shared?.client)
    }

    /// The source stage over a cache store and an HTTP client that are already open: a
    /// fan-out builds one fetcher per child list on the run's one store and one client, and
    /// shuts that client down itself once, after every list; a ``ScreensPipeClient``'s
    /// runs share its client. A fetcher never shuts down a client it was given.
    static func makeFetcher(
        spec: PipelineSpec, baseURL: String?, environment: PipelineEnvironment, rows: RowForm = .values, store: (any CacheBackend)?,
        client: HTTPClient?
    ) async throws(ScreensPipeError) -> any PageFetcher {
        let spec = try await AssetClassResolver.resolve(spec, baseURL: baseURL, store: store, environment: environment)
        let source = try makeSource(spec: spec, baseURL: baseURL, environment: environment, rows: rows, client: client)
        guard let store else { return source }
        var cached = try CachedPageFetcher(
            base: source, store: store, spec: spec, refresh: environment.refresh, logger: environment.logger, snapshot: environment.cacheSnapshot)
        cached.keepsRowsAsTexts = rows.keepsTexts
        cached.clock = environment.clock
        return cached
    }

    /// The pagination a source really uses: headless and page-numbered REST APIs take one
    /// page size for every page, so the first page has that size too.
    static func effectivePagination(for source: SourceSpec) -> PaginationSpec {
        source.type.settings.effectivePagination(source.pagination)
    }

    /// The source of `spec` as `plan` shows it: built from the wire format alone, with the
    /// same checks as a run, and no cache database, HTTP client or thread behind it.
    static func makeBlueprint(spec: PipelineSpec, baseURL: String?) throws(ScreensPipeError) -> SourceBlueprint {
        try blueprint(spec: spec, baseURL: baseURL, environment: PipelineEnvironment())
    }

    private static func makeSource(
        spec: PipelineSpec, baseURL: String?, environment: PipelineEnvironment, rows: RowForm, client: HTTPClient?
    ) throws(ScreensPipeError) -> any PageFetcher {
        switch try blueprint(spec: spec, baseURL: baseURL, environment: environment, rows: rows) {
        case .fetcher(let fetcher):
            return fetcher
        case .http(let wire, let settings):
            return httpFetcher(wire, settings: settings, client: client)
        }
    }

    /// Opens the wire format's existential so the fetcher is specialised for it.
    private static func httpFetcher(_ wire: some WireFormat, settings: HTTPSourceSettings, client: HTTPClient?) -> any PageFetcher {
        if let client { return HTTPPageFetcher(wire: wire, settings: settings, client: client) }
        return HTTPPageFetcher(wire: wire, settings: settings)
    }

    static func blueprint(
        spec: PipelineSpec, baseURL: String?, environment: PipelineEnvironment, rows: RowForm = .values
    ) throws(ScreensPipeError) -> SourceBlueprint {
        let build = SourceBuild(source: spec.source, baseURL: baseURL, locale: spec.convert?.locale, environment: environment, rows: rows)
        return try spec.source.type.settings.blueprint(build)
    }
}
