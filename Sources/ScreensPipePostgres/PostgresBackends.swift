import ScreensPipeCore

/// What this product adds to a pipeline: the `postgres` sink type and the PostgreSQL store
/// (`cache.url`: pages, list states and run locks many processes on many machines share).
///
/// Linking the product registers both: the core calls ``register()`` before its first
/// lookup. Call it yourself only to register again after replacing a backend in a test.
public enum PostgresBackends {
    /// Registers the `postgres` sink type and the PostgreSQL store with the core.
    public static func register() {
        BackendRegistry.register(PostgresStorage(), for: .postgres)
        BackendRegistry.register(PostgresSinkType())
    }
}

/// Called by the core's registry (a weak C reference): linking this product is enough.
@_cdecl("screens_pipe_register_postgres")
public func screensPipeRegisterPostgres() {
    PostgresBackends.register()
}

/// The PostgreSQL store of `cache.url`: pages, list states, run locks, and the write journal
/// and outbox a fleet shares.
struct PostgresStorage: StorageBackend {
    func openCache(spec: CacheSpec?, environment: [String: String]) async throws(ScreensPipeError) -> any CacheBackend {
        try await PostgresCacheStore.open(try target(spec, environment))
    }

    func openStateStore(spec: CacheSpec?, environment: [String: String]) async throws(ScreensPipeError) -> any ListStateStore {
        try await PostgresListStateStore.open(try target(spec, environment))
    }

    func openWriteJournal(spec: CacheSpec?, environment: [String: String], pipeline: String, target: String)
        async throws(ScreensPipeError) -> (any WriteJournalStorage)?
    {
        try await PostgresWriteJournal.open(try self.target(spec, environment), pipeline: pipeline, journalTarget: target)
    }

    func openOutbox(spec: CacheSpec?, environment: [String: String], pipeline: String, target: String)
        async throws(ScreensPipeError) -> (any OutboxStorage)?
    {
        try await PostgresOutbox.open(try self.target(spec, environment), pipeline: pipeline, target: target)
    }

    func openLock(_ scope: RunLock.Scope, target: PostgresTarget) async throws(ScreensPipeError) -> (any SharedRunLock)? {
        try await PostgresAdvisoryLock.connect(scope, target: target)
    }

    private func target(_ spec: CacheSpec?, _ environment: [String: String]) throws(ScreensPipeError) -> PostgresTarget {
        guard let target = spec?.postgres else {
            throw ScreensPipeError.configuration("the PostgreSQL cache needs 'cache.url'")
        }
        return target.resolvingPassword(environment: environment)
    }
}
