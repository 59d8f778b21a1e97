import ScreensBus

/// Turns an asset list's `classes:` into class name ids before the first page, and puts
/// them into the asset entry query's `classNameIds` of the rows and count commands.
///
/// Ids come from the cache's class-name table when the pipeline has a cache (keyed by
/// server and class name), else from the portal's class-name service, and are stored for
/// the next run. Under `cache-only` nothing is asked of the portal: a name that is not
/// stored is an error.
enum AssetClassResolver {
    static func resolve(
        _ spec: PipelineSpec, baseURL: String?, store: (any CacheBackend)?, environment: PipelineEnvironment
    ) async throws(ScreensPipeError) -> PipelineSpec {
        guard var jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self), !jsonws.classNames.isEmpty else { return spec }
        let server = CacheKey.server(spec.source.server)
        var ids = try await store?.classNameIds(server: server, names: jsonws.classNames) ?? [:]
        let missing = jsonws.classNames.filter { ids[$0] == nil }
        if !missing.isEmpty {
            if spec.cache?.policy == .cacheOnly {
                throw ScreensPipeError(
                    .cache,
                    "the class name ids of \(missing.joined(separator: ", ")) are not in the cache (policy cache-only): run once with another policy to store them")
            }
            let found = try await lookUp(missing, of: jsonws, baseURL: baseURL, source: spec.source, environment: environment)
            try await store?.storeClassNameIds(server: server, found)
            ids.merge(found) { _, fresh in fresh }
        }
        let list = JSONValue.array(jsonws.classNames.compactMap { ids[$0] }.map(JSONValue.int))
        jsonws.rows = settingClassNameIds(list, in: jsonws.rows)
        jsonws.count = jsonws.count.map { settingClassNameIds(list, in: $0) }
        var resolved = spec
        resolved.source.type = .liferayJSONWS(jsonws)
        return resolved
    }

    /// `query.classNameIds` of the command's asset entry query, for the asset services.
    private static func settingClassNameIds(_ ids: JSONValue, in call: ServiceCall) -> ServiceCall {
        guard let query = ScreenletRule.rule(for: call.service)?.classesIn else { return call }
        var resolved = call
        resolved.params = JSONWSWireFormat.flatten(call.params)
        resolved.params["\(query).classNameIds"] = ids
        return resolved
    }

    /// One batch to the portal's class-name service, with the source's credentials, limits
    /// and retries.
    private static func lookUp(
        _ names: [String], of list: JSONWSSourceSpec, baseURL: String?, source: SourceSpec, environment: PipelineEnvironment
    ) async throws(ScreensPipeError) -> [String: Int64] {
        guard let baseURL else {
            throw ScreensPipeError.configuration("source type liferay-jsonws needs a server (a base URL, or sandbox)")
        }
        let settings = HTTPSourceSettings(source: source, configuredURL: baseURL, onRetry: environment.onRetry, logger: environment.logger)
        let fetcher = HTTPPageFetcher(wire: ClassNameLookup(spec: list, names: names, baseURL: baseURL), settings: settings)
        let answer: FetchedPage
        do throws(ScreensPipeError) {
            answer = try await fetcher.fetch(PageRequest(index: 0, startRow: 0, endRow: names.count, includesRowCount: false))
        } catch {
            await fetcher.shutdown()
            var failure = error
            failure.page = nil
            failure.message = "looking up the asset classes: \(error.message)"
            throw failure
        }
        await fetcher.shutdown()
        var ids: [String: Int64] = [:]
        for (name, id) in zip(names, answer.rows) { ids[name] = id.int64Value }
        return ids
    }
}
