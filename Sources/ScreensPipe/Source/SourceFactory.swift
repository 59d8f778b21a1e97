/// Builds the source stage of a pipeline, wrapped in its cache policy.
enum SourceFactory {
    static func makeFetcher(
        spec: PipelineSpec, baseURL: String?, environment: PipelineEnvironment
    ) async throws(ScreensPipeError) -> any PageFetcher {
        let source = try makeSource(spec: spec, baseURL: baseURL, environment: environment)
        guard let cache = spec.cache else { return source }
        let store = try await CacheStore.open(spec: cache, environment: environment.variables)
        return try CachedPageFetcher(base: source, store: store, spec: spec, refresh: environment.refresh, logger: environment.logger)
    }

    /// The pagination a source really uses: headless and page-numbered REST APIs take one
    /// page size for every page, so the first page has that size too.
    static func effectivePagination(for source: SourceSpec) -> PaginationSpec {
        var pagination = source.pagination
        switch source.protocolSpec {
        case .liferayHeadless:
            pagination.firstPageSize = pagination.pageSize
        case .rest(let rest):
            if case .page = rest.paginate { pagination.firstPageSize = pagination.pageSize }
        case .liferayJSONWS, .file, .custom:
            break
        }
        return pagination
    }

    /// The source of `spec` as `plan` shows it: built from the wire format alone, with the
    /// same checks as a run, and no cache database, HTTP client or thread behind it.
    static func makeBlueprint(spec: PipelineSpec, baseURL: String?) throws(ScreensPipeError) -> SourceBlueprint {
        try blueprint(spec: spec, baseURL: baseURL, environment: PipelineEnvironment())
    }

    private static func makeSource(
        spec: PipelineSpec, baseURL: String?, environment: PipelineEnvironment
    ) throws(ScreensPipeError) -> any PageFetcher {
        switch try blueprint(spec: spec, baseURL: baseURL, environment: environment) {
        case .fetcher(let fetcher):
            return fetcher
        case .http(let wire, let settings):
            return httpFetcher(wire, settings: settings)
        }
    }

    /// Opens the wire format's existential so the fetcher is specialised for it.
    private static func httpFetcher(_ wire: some ListProtocol, settings: HTTPSourceSettings) -> any PageFetcher {
        HTTPPageFetcher(wire: wire, settings: settings)
    }

    private static func blueprint(
        spec: PipelineSpec, baseURL: String?, environment: PipelineEnvironment
    ) throws(ScreensPipeError) -> SourceBlueprint {
        let source = spec.source
        switch source.protocolSpec {
        case .file(let file):
            // Reads nothing until the first page is asked for.
            return .fetcher(try FileSource(spec: file))
        case .custom(let fetcher):
            return .fetcher(fetcher)
        case .liferayJSONWS(let jsonws):
            let base = try requireServer(baseURL, type: "liferay-jsonws")
            let wire = JSONWSProtocol(spec: jsonws, baseURL: base, locale: spec.convert?.locale)
            return try http(wire, url: base, source: source, environment: environment)
        case .liferayHeadless(let headless):
            let base = try requireServer(baseURL, type: "liferay-headless")
            let wire = HeadlessProtocol(spec: headless, baseURL: base, locale: spec.convert?.locale)
            return try http(wire, url: base, source: source, environment: environment)
        case .rest(let rest):
            let wire = try RESTProtocol(spec: rest, baseURL: baseURL)
            return try http(wire, url: wire.firstURL, source: source, environment: environment)
        }
    }

    /// What every HTTP wire format shares, after the checks that apply to all of them.
    private static func http(
        _ wire: some ListProtocol, url: String, source: SourceSpec, environment: PipelineEnvironment
    ) throws(ScreensPipeError) -> SourceBlueprint {
        var settings = HTTPSourceSettings(source: source, configuredURL: url, onRetry: environment.onRetry, logger: environment.logger)
        settings.onResponseBody = environment.onResponseBody
        // Checked here too, so `plan` and `validate`-time runs refuse before any request.
        try CredentialPolicy.requireSafeTransport(URLParts(url), sendsCredentials: settings.hasCredentials, source: source)
        if source.insecureSkipTLSVerify {
            environment.logger.warning(
                "TLS verification is off (source.insecure-skip-tls-verify): anyone on the network path can read and change this traffic")
        }
        return .http(wire, settings)
    }

    private static func requireServer(_ baseURL: String?, type: String) throws(ScreensPipeError) -> String {
        guard let baseURL, !baseURL.isEmpty else {
            throw ScreensPipeError(.configuration, "source type \(type) needs a server (a base URL, or sandbox)")
        }
        guard ["http", "https"].contains(URLParts(baseURL).schemeName) else {
            throw ScreensPipeError(.configuration, "server must start with http:// or https://, found '\(redactedURL(baseURL))'")
        }
        return baseURL
    }
}
