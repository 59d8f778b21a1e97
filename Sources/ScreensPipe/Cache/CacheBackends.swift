/// Opens the cache backend a pipeline's `cache:` section names.
public enum CacheBackends {
    /// PostgreSQL for `url:` (the password from the URL, else `PGPASSWORD` in `environment`),
    /// else the SQLite file of `path:` or the default location.
    public static func open(spec: CacheSpec?, environment: [String: String]) async throws(ScreensPipeError) -> any CacheBackend {
        if let target = spec?.postgres {
            return try await PostgresCacheStore.open(target.resolvingPassword(environment: environment))
        }
        return try await CacheStore.open(spec: spec, environment: environment)
    }

    /// Where the list states of `spec`'s cache live: the same PostgreSQL database for `url:`,
    /// else the SQLite file, so a fleet that shares a cache shares its cursors too.
    public static func openStateStore(spec: CacheSpec?, environment: [String: String]) async throws(ScreensPipeError) -> any ListStateStore {
        if let target = spec?.postgres {
            return try await PostgresListStateStore.open(target.resolvingPassword(environment: environment))
        }
        return try await SQLiteListStateStore.open(spec: spec, environment: environment)
    }
}
