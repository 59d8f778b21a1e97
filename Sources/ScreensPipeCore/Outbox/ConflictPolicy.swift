/// What a sync does with a pending update whose entry changed on the portal since the row
/// it was made from (`conflict-policy:` in the sink): Screens' `SyncConflictResolution`
/// (`useRemote`, `useLocal`, `discard`, `ignore`), detected as `SyncManager+DDLForm` does,
/// by the entry's `modifiedDate` (or the sink's `version-field`).
public enum ConflictPolicy: String, Sendable, Hashable, CaseIterable {
    /// The portal's entry wins: the pending write is dropped and the journal takes the
    /// portal's values, so a later write compares with them.
    case keepRemote = "keep-remote"
    /// The pending write wins: it is sent, overwriting the portal's change.
    case keepLocal = "keep-local"
    /// The pending write is dropped; nothing else changes.
    case discard
    /// The pending write stays pending, and both versions are written to the conflicts
    /// file as one JSON line for someone to decide (the default: nothing is lost).
    case report
}
