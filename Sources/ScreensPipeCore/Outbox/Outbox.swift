import ScreensBus

/// What a pending write does to its entry.
public enum OutboxOperation: String, Sendable, Hashable, CaseIterable {
    /// Creates the entry.
    case add
    /// Changes an entry an earlier write created.
    case update
    /// Removes the entry.
    case delete

    /// The pending write that does what `self` and then `next` would do to one entry
    /// (`CommentUpdateInteractor` keeps one pending write per comment): an update after an
    /// add is still an add, a delete after an add is nothing (nil), and an add or update
    /// after a delete changes the entry the delete would have removed.
    package func followed(by next: OutboxOperation) -> OutboxOperation? {
        switch (self, next) {
        case (.add, .delete): nil
        case (.add, _): .add
        case (.update, .delete), (.delete, .delete): .delete
        case (.update, _), (.delete, _): .update
        }
    }
}

/// One pending write of the outbox.
public struct OutboxEntry: Sendable, Hashable {
    /// Its place in the replay order: the first write to its key that is still pending.
    public var sequence: Int64
    /// The entry's key, the JSON array of the sink's `key` fields' values
    /// (`["https://example.com/1","20201"]`), as `outbox discard` takes it.
    public var key: String
    public var operation: OutboxOperation
    /// The row to write, as JSON text (for a delete, the row that names the entry).
    public var row: String
    /// When the write was first kept, seconds since 1970.
    public var createdAt: Double
    /// Times a sync tried it.
    public var attempts: Int
    /// Why the last try failed.
    public var lastError: String?
    /// The version (the sink's `version-field`, as JSON text) of the entry the first
    /// pending update was made from; nil when the row named none.
    public var baseVersion: String?

    package init(
        sequence: Int64, key: String, operation: OutboxOperation, row: String, createdAt: Double, attempts: Int, lastError: String?,
        baseVersion: String?
    ) {
        self.sequence = sequence
        self.key = key
        self.operation = operation
        self.row = row
        self.createdAt = createdAt
        self.attempts = attempts
        self.lastError = lastError
        self.baseVersion = baseVersion
    }
}

/// The pending writes of one pipeline and target: kept in order, collapsed per key, removed
/// once the journal records their outcome. Screens' `CacheManager` keeps the same "pending
/// to sync" set; the journal is what makes replaying it exactly once. Where they are kept is
/// an ``OutboxStorage`` in the cache's store (the SQLite file, or the PostgreSQL database
/// a fleet shares).
typealias Outbox = any OutboxStorage

/// What keeping a write did to the outbox.
package enum OutboxKept: Equatable, Sendable {
    /// A new pending write, or one collapsed with the key's earlier pending write into
    /// `operation`.
    case pending(OutboxOperation, collapsed: Bool)
    /// A delete of an entry whose add was still pending: neither is sent.
    case cancelled
}

/// Where the outbox of one pipeline and target is kept; every method is one transaction.
package protocol OutboxStorage: Sendable {
    /// The pipeline whose writes these are.
    var pipeline: String { get }
    /// The server (redacted) and site they go to.
    var target: String { get }
    func keep(key: String, operation: OutboxOperation, row: String, baseVersion: String?) async throws(ScreensPipeError) -> OutboxKept
    func entries() async throws(ScreensPipeError) -> [OutboxEntry]
    func entry(key: String) async throws(ScreensPipeError) -> OutboxEntry?
    func remove(_ entry: OutboxEntry) async throws(ScreensPipeError) -> Bool
    func recordFailure(_ entry: OutboxEntry, reason: String) async throws(ScreensPipeError)
    func discard(key: String) async throws(ScreensPipeError) -> Bool
    func clear() async throws(ScreensPipeError) -> Int
    /// Whether processes on other machines keep and sync this outbox too (PostgreSQL): a
    /// sync then claims each write (``claimNext(after:keys:)``) instead of holding the
    /// pipeline's write lock, and reads the journal afresh for each (OutboxClaim.swift).
    var isShared: Bool { get }
    /// The first pending write after `sequence` in replay order (of `keys` only, when
    /// given) that no other sync holds, held until settled; nil when there is none.
    func claimNext(after sequence: Int64, keys: Set<String>?) async throws(ScreensPipeError) -> (any OutboxClaim)?
}

extension OutboxStorage {
    /// Keeps `operation` on `key` with no base version.
    func keep(key: String, operation: OutboxOperation, row: String) async throws(ScreensPipeError) -> OutboxKept {
        try await keep(key: key, operation: operation, row: row, baseVersion: nil)
    }
}
