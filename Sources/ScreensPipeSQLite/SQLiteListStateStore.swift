import ScreensPipeCore
/// List states in the cache's SQLite database (the `list_state` table), the default store.
///
/// Each commit is one SQLite transaction in WAL mode, so a process killed at any moment
/// leaves the previous record or the new one.
public struct SQLiteListStateStore: ListStateStore {
    /// The database the states live in.
    public let cache: CacheStore

    /// A store in `cache`'s database file.
    public init(cache: CacheStore) {
        self.cache = cache
    }

    /// A store in the database a pipeline's `cache:` section names, or the default one,
    /// opened off the cooperative thread pool.
    public static func open(spec: CacheSpec?, environment: [String: String]) async throws(ScreensPipeError) -> SQLiteListStateStore {
        SQLiteListStateStore(cache: try await CacheStore.open(spec: spec, environment: environment))
    }

    public func record(for key: StateKey) async throws(ScreensPipeError) -> ListStateRecord? {
        try await cache.stateRecord(pipeline: key.pipeline, list: key.list)
    }

    public func commit(_ record: ListStateRecord, for key: StateKey) async throws(ScreensPipeError) {
        try await cache.commitState(record, pipeline: key.pipeline, list: key.list)
    }

    @discardableResult
    public func reset(_ key: StateKey) async throws(ScreensPipeError) -> Bool {
        try await cache.removeState(pipeline: key.pipeline, list: key.list)
    }

    public func records(pipeline: String?) async throws(ScreensPipeError) -> [(key: StateKey, record: ListStateRecord)] {
        try await cache.stateRecords(pipeline: pipeline)
    }
}
