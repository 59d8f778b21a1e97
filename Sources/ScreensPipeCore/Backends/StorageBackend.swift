/// The kinds of store a pipeline's `cache:` section can name, each from a product of its
/// own: the core holds none of them, so an embedder links only the one it uses.
public enum StorageKind: String, Sendable, Hashable, CaseIterable {
    /// One SQLite file (`cache.path`, or the default location): the `ScreensPipeSQLite` product.
    case sqlite
    /// A PostgreSQL database many processes share (`cache.url`): the `ScreensPipePostgres` product.
    case postgres

    /// What `spec` names: PostgreSQL for `url:`, else the SQLite file.
    public static func of(_ spec: CacheSpec?) -> StorageKind {
        spec?.postgres == nil ? .sqlite : .postgres
    }

    /// The product that provides this kind of store.
    public var product: String {
        switch self {
        case .sqlite: "ScreensPipeSQLite"
        case .postgres: "ScreensPipePostgres"
        }
    }

    var displayName: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }
}

/// One kind of store, as its product registers it: where the cache's pages, the lists'
/// states, the write journal and the shared run locks are kept.
///
/// The core decides *when* each is opened (the pipeline's rules); a backend decides *how*.
package protocol StorageBackend: Sendable {
    /// The cache of `spec` (its `path:` or `url:`, else the default SQLite file).
    func openCache(spec: CacheSpec?, environment: [String: String]) async throws(ScreensPipeError) -> any CacheBackend
    /// The list states beside that cache, so a fleet that shares a cache shares its cursors.
    func openStateStore(spec: CacheSpec?, environment: [String: String]) async throws(ScreensPipeError) -> any ListStateStore
    /// The write journal of `pipeline` and `target`, beside the cache (so a fleet that
    /// shares a cache shares its journal); nil when this store keeps none.
    func openWriteJournal(spec: CacheSpec?, environment: [String: String], pipeline: String, target: String) async throws(ScreensPipeError)
        -> (any WriteJournalStorage)?
    /// The outbox of `pipeline` and `target`, beside its write journal; nil when this store
    /// keeps none. A store many processes share says so (``OutboxStorage/isShared``) and
    /// claims each write for one sync at a time.
    func openOutbox(spec: CacheSpec?, environment: [String: String], pipeline: String, target: String) async throws(ScreensPipeError)
        -> (any OutboxStorage)?
    /// A run lock in the database of `target`; nil when this store locks with files.
    func openLock(_ scope: RunLock.Scope, target: PostgresTarget) async throws(ScreensPipeError) -> (any SharedRunLock)?
}

extension StorageBackend {
    package func openWriteJournal(spec: CacheSpec?, environment: [String: String], pipeline: String, target: String)
        async throws(ScreensPipeError) -> (any WriteJournalStorage)?
    { nil }

    package func openOutbox(spec: CacheSpec?, environment: [String: String], pipeline: String, target: String)
        async throws(ScreensPipeError) -> (any OutboxStorage)?
    { nil }

    package func openLock(_ scope: RunLock.Scope, target: PostgresTarget) async throws(ScreensPipeError) -> (any SharedRunLock)? {
        nil
    }
}

/// A run lock another process on another machine can see (a PostgreSQL advisory lock).
/// File locks, the default, are the core's own (``FileRunLock``).
package protocol SharedRunLock: Sendable {
    /// Takes the lock if it is free; false when another session holds it.
    func tryLock() async throws(ScreensPipeError) -> Bool
    /// Leaves who holds the lock where waiters can read it.
    func record(_ holder: RunLockHolder) async
    /// Who holds the lock, when the holder said.
    func holder() async -> RunLockHolder?
    /// Lets go of the lock and closes its connection.
    func release() async
}
