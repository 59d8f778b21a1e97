public import struct Foundation.Date

/// Names the state of one list: the pipeline it belongs to and the list's identity.
///
/// `list` is the list's cache-key identity (``CacheKey``): it already hashes every secret, so
/// a state key can be printed, logged and stored in clear. Two pipelines that load the same
/// list keep separate states, because each commits only what its own sink made durable.
public struct StateKey: Sendable, Hashable, CustomStringConvertible {
    /// The pipeline's name.
    public var pipeline: String
    /// The list's cache-key identity.
    public var list: String

    /// Creates a state key.
    public init(pipeline: String, list: String) {
        self.pipeline = pipeline
        self.list = list
    }

    public var description: String { "\(pipeline) \(list)" }
}

/// What one list keeps between runs: its incremental cursor and its resume checkpoint,
/// as one JSON document that only the run loop interprets.
///
/// Stores keep the document as opaque text, so the SQLite and any other backend stay
/// byte-for-byte interchangeable and a newer screens-pipe can add members without a
/// storage migration.
public struct ListStateRecord: Sendable, Hashable {
    /// The state document (a JSON object), as committed.
    public var document: String
    /// When it was committed.
    public var committedAt: Date

    /// Creates a record.
    public init(document: String, committedAt: Date) {
        self.document = document
        self.committedAt = committedAt
    }
}

/// Where list states live between runs (SQLite beside the cache by default).
///
/// A commit replaces the whole record atomically: a reader sees the previous record or
/// the new one, never a mix. The run loop commits only after the sink has made the
/// matching output durable, so a crash between the two re-delivers rows (which the
/// cursor's lookback and idempotent sinks absorb) and never skips one.
public protocol ListStateStore: Sendable {
    /// The committed record of `key`, or nil if there is none.
    func record(for key: StateKey) async throws(ScreensPipeError) -> ListStateRecord?
    /// Replaces the record of `key` with `record`, atomically.
    func commit(_ record: ListStateRecord, for key: StateKey) async throws(ScreensPipeError)
    /// Removes the record of `key`; returns whether there was one.
    @discardableResult
    func reset(_ key: StateKey) async throws(ScreensPipeError) -> Bool
    /// Every committed record, of one pipeline or of all, ordered by pipeline then list.
    func records(pipeline: String?) async throws(ScreensPipeError) -> [(key: StateKey, record: ListStateRecord)]
    /// Releases what the store holds open (a database connection); the store is not used after.
    func close() async
}

extension ListStateStore {
    /// Nothing to release: a store on the cache's SQLite file closes with the file.
    public func close() async {}
}
