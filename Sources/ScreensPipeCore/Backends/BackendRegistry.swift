internal import CLinkedBackends
import Synchronization

/// The stores and sink types the products linked into this program provide.
///
/// The core names no backend: each product (`ScreensPipeSQLite`, `ScreensPipePostgres`)
/// registers its own, and linking a product is enough, as the `ScreensPipe` umbrella does
/// for every one. The first lookup asks every linked product to register (a weak C
/// reference per product, so a product that is not linked is skipped, never loaded).
package enum BackendRegistry {
    private struct Registered {
        var storage: [StorageKind: any StorageBackend] = [:]
        /// In registration order, so the schema and messages list them the same way each time.
        var sinkTypes: [any SinkType] = []
    }

    private static let registered = Mutex(Registered())

    /// Makes `backend` the store of `kind`, replacing an earlier registration.
    package static func register(_ backend: any StorageBackend, for kind: StorageKind) {
        registered.withLock { $0.storage[kind] = backend }
    }

    /// Adds a sink type, replacing one of the same name.
    package static func register(_ sinkType: any SinkType) {
        registered.withLock { registered in
            registered.sinkTypes.removeAll { $0.name == sinkType.name }
            registered.sinkTypes.append(sinkType)
        }
    }

    /// The store of `kind`, or an error naming the product to link.
    package static func storage(_ kind: StorageKind) throws(ScreensPipeError) -> any StorageBackend {
        linkOnce()
        guard let backend = registered.withLock({ $0.storage[kind] }) else {
            throw ScreensPipeError.configuration(
                "the \(kind.displayName) cache is in the \(kind.product) product, which this program does not link: add it (or the ScreensPipe umbrella) to the target's dependencies")
        }
        return backend
    }

    /// The registered sink types, in registration order.
    package static var sinkTypes: [any SinkType] {
        linkOnce()
        return registered.withLock { $0.sinkTypes }
    }

    /// The sink type named `name`, if a linked product registered it.
    package static func sinkType(named name: String) -> (any SinkType)? {
        sinkTypes.first { $0.name == name }
    }

    /// Whether the linked products have registered. A lookup waits for their registration,
    /// however many tasks look up at once: one registers, the others find it done.
    private static let linked = Mutex(false)

    private static func linkOnce() {
        linked.withLock { linked in
            guard !linked else { return }
            // Each product registers through `registered`, a lock of its own.
            screens_pipe_register_linked_backends()
            linked = true
        }
    }
}

/// Opens the stores a pipeline's `cache:` section names, through the registered backends.
public enum CacheBackends {
    /// PostgreSQL for `url:` (the password from the URL, else `PGPASSWORD` in `environment`),
    /// else the SQLite file of `path:` or the default location.
    public static func open(spec: CacheSpec?, environment: [String: String]) async throws(ScreensPipeError) -> any CacheBackend {
        try await BackendRegistry.storage(.of(spec)).openCache(spec: spec, environment: environment)
    }

    /// Where the list states of `spec`'s cache live: the same PostgreSQL database for `url:`,
    /// else the SQLite file, so a fleet that shares a cache shares its cursors too.
    public static func openStateStore(spec: CacheSpec?, environment: [String: String]) async throws(ScreensPipeError) -> any ListStateStore {
        try await BackendRegistry.storage(.of(spec)).openStateStore(spec: spec, environment: environment)
    }
}
