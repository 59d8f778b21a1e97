import ScreensPipeCore
import ScreensBus
internal import Logging
import Synchronization

/// One process's turn to load a list into a ``CacheStore``: it holds the list's run lock
/// (a file lock beside the database) from the first page it fetches until its pages make a
/// whole list, or until the run lets go. Another run that would store the same list waits
/// for it, so a list's pages in the file are always of one load, never two interleaved
/// (a replay refuses a list of mixed snapshots). A process that dies drops the lock with it.
///
/// Pages are stored as they come, as before: SQLite readers see each page once its
/// transaction commits, and the snapshot id on each tells one load from another.
final class SQLiteRefreshLease: CacheRefreshLease {
    private let store: CacheStore
    private let key: String
    private let lock: RunLock
    /// The pages this load stored, until they make a whole list.
    private let progress = Mutex(LoadProgress())
    /// Called once, when the lock is let go.
    private let onRelease: Mutex<(@Sendable () -> Void)?>

    init(store: CacheStore, key: String, lock: RunLock, onRelease: @escaping @Sendable () -> Void) {
        self.store = store
        self.key = key
        self.lock = lock
        self.onRelease = Mutex(onRelease)
    }

    func write(pipeline: String, page: FetchedPage, snapshot: String, endsChain: Bool) async throws(ScreensPipeError) {
        try await store.write(key: key, pipeline: pipeline, page: page, snapshot: snapshot)
        let request = page.request
        let stored = StoredLoadPage(
            index: request.index, endRow: request.endRow, isShort: page.endsAsShortPage, rowCount: page.rowCount,
            pageCount: page.pageCount, endsChain: endsChain)
        if progress.withLock({ $0.add(stored) }) { await release() }
    }

    func release() async {
        await lock.release()
        onRelease.withLock { callback in
            defer { callback = nil }
            return callback
        }?()
    }

    /// A lease dropped without ``release()`` (a fetcher abandoned mid-load) still lets go.
    deinit {
        onRelease.withLock { $0 }?()
    }

    /// Only a wait for another process's load can have stored a fresher copy: without one,
    /// the pages this run found stale or missing are still so (a partly cached list, say).
    var followedAnotherLoad: Bool { lock.waited }
}
