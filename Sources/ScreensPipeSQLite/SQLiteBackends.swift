import ScreensPipeCore

/// What this product adds to a pipeline: the SQLite store (`cache.path`, or the default
/// file): cached pages, list states and the write journal, in one file.
///
/// Linking the product registers it: the core calls ``register()`` before its first
/// lookup. Call it yourself only to register again after replacing a backend in a test.
public enum SQLiteBackends {
    /// Registers the SQLite store with the core.
    public static func register() {
        BackendRegistry.register(SQLiteStorage(), for: .sqlite)
    }
}

/// Called by the core's registry (a weak C reference): linking this product is enough.
@_cdecl("screens_pipe_register_sqlite")
public func screensPipeRegisterSQLite() {
    SQLiteBackends.register()
}

/// The SQLite store: one file, `cache.path` or the default location.
struct SQLiteStorage: StorageBackend {
    func openCache(spec: CacheSpec?, environment: [String: String]) async throws(ScreensPipeError) -> any CacheBackend {
        try await CacheStore.open(spec: spec, environment: environment)
    }

    func openStateStore(spec: CacheSpec?, environment: [String: String]) async throws(ScreensPipeError) -> any ListStateStore {
        try await SQLiteListStateStore.open(spec: spec, environment: environment)
    }

    func openWriteJournal(spec: CacheSpec?, environment: [String: String], pipeline: String, target: String)
        async throws(ScreensPipeError) -> (any WriteJournalStorage)?
    {
        let store = try await CacheStore.open(spec: spec, environment: environment)
        return SQLiteWriteJournal(store: store, pipeline: pipeline, target: target)
    }

    func openOutbox(spec: CacheSpec?, environment: [String: String], pipeline: String, target: String)
        async throws(ScreensPipeError) -> (any OutboxStorage)?
    {
        let store = try await CacheStore.open(spec: spec, environment: environment)
        return SQLiteOutbox(store: store, pipeline: pipeline, target: target)
    }
}
