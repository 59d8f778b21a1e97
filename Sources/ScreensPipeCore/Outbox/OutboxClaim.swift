/// A pending write one sync holds while it sends it: no other sync (on this machine or, with
/// the outbox in PostgreSQL, on another) takes it until it is removed, failed or released.
///
/// A claim ends in exactly one of ``remove()``, ``recordFailure(reason:)`` or ``release()``;
/// the first two settle the write and let it go in one step.
package protocol OutboxClaim: Sendable {
    /// The write as it was when it was claimed; no write to its key can collapse into it
    /// while it is held.
    var entry: OutboxEntry { get }
    /// Removes the write (its outcome is in the journal, or it was given up) and lets it go;
    /// whether it was still there.
    @discardableResult
    func remove() async throws(ScreensPipeError) -> Bool
    /// Counts a failed try, with its reason, and lets the write go: it stays pending.
    func recordFailure(reason: String) async throws(ScreensPipeError)
    /// Lets the write go unchanged (the sync stopped before settling it); idempotent.
    func release() async
}

/// A claim whose exclusion is the pipeline's write lock, which the whole sync holds: the
/// claim of an outbox only one process syncs at a time (the SQLite file on one machine).
package struct OutboxClaimUnderRunLock: OutboxClaim {
    let outbox: any OutboxStorage
    package let entry: OutboxEntry

    package init(outbox: any OutboxStorage, entry: OutboxEntry) {
        self.outbox = outbox
        self.entry = entry
    }

    package func remove() async throws(ScreensPipeError) -> Bool { try await outbox.remove(entry) }
    package func recordFailure(reason: String) async throws(ScreensPipeError) { try await outbox.recordFailure(entry, reason: reason) }
    package func release() async {}
}
